import { GoneException } from '@nestjs/common';
import { PAGE_MESSAGES } from '../../messages/default-messages.js';
import { withPageText } from './page-text.js';

/** HTTP 410 for a page of an expired elicitation. */
export class ElicitationExpiredException extends GoneException {
  constructor() {
    super(PAGE_MESSAGES.errors.expired);
    withPageText(this, (m) => m.errors.expired);
  }
}
