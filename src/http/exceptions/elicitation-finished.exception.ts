import { ConflictException } from '@nestjs/common';
import type { ElicitationStatus } from '../../core/elicitation.types.js';
import { PAGE_MESSAGES } from '../../messages/default-messages.js';
import { withPageText } from './page-text.js';

/** HTTP 409 for a page opened or submitted after its elicitation finished; names the outcome, never the data. */
export class ElicitationFinishedException extends ConflictException {
  constructor(readonly recordedStatus: ElicitationStatus) {
    super(PAGE_MESSAGES.errors.finished(recordedStatus));
    withPageText(this, (m) => m.errors.finished(recordedStatus));
  }
}
