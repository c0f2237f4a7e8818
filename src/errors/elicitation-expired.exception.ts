import { GoneException } from '@nestjs/common';
import { PAGE_MESSAGES } from '../messages/page-messages.js';

/** HTTP 410 for a page of an expired elicitation. */
export class ElicitationExpiredException extends GoneException {
  constructor() {
    super(PAGE_MESSAGES.errors.expired);
  }
}
