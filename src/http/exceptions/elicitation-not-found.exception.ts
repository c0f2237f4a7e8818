import { NotFoundException } from '@nestjs/common';
import { PAGE_MESSAGES } from '../../messages/default-messages.js';
import { withPageText } from './page-text.js';

/** HTTP 404 for an unknown, malformed or forgotten elicitation id. */
export class ElicitationNotFoundException extends NotFoundException {
  constructor() {
    super(PAGE_MESSAGES.errors.notFound);
    withPageText(this, (m) => m.errors.notFound);
  }
}
