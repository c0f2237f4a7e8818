import { ForbiddenException } from '@nestjs/common';
import { PAGE_MESSAGES } from '../../messages/default-messages.js';
import { withPageText } from './page-text.js';

/**
 * HTTP 403 for a page post that failed the origin or CSRF check: its page says the form has to be loaded again
 * (a person who reloaded or cleared cookies sees this, not only an attacker), under its own heading rather than
 * the "another account" one.
 */
export class ElicitationCsrfException extends ForbiddenException {
  constructor() {
    super(PAGE_MESSAGES.errors.forgedPost);
    withPageText(this, (m) => m.errors.forgedPost);
  }
}
