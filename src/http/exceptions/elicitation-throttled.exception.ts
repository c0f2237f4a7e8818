import { HttpException, HttpStatus } from '@nestjs/common';
import { PAGE_MESSAGES } from '../../messages/default-messages.js';
import { withPageText } from './page-text.js';

/** HTTP 429 from the per-IP throttle, with a readable message (a page on the page routes, JSON on the status route). */
export class ElicitationThrottledException extends HttpException {
  constructor(readonly retryAfterSeconds: number) {
    super(PAGE_MESSAGES.errors.throttled(retryAfterSeconds), HttpStatus.TOO_MANY_REQUESTS);
    withPageText(this, (m) => m.errors.throttled(retryAfterSeconds));
  }
}
