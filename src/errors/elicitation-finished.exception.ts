import { ConflictException } from '@nestjs/common';
import type { ElicitationStatus } from '../elicitation.types.js';

const TEXT: Partial<Record<ElicitationStatus, string>> = {
  completed: 'This request was already answered. Nothing was changed.',
  declined: 'This request was already declined. Nothing was changed.',
  cancelled: 'This request was withdrawn by the application. Nothing was changed.',
};

/** HTTP 409 for a page opened or submitted after its elicitation finished; names the outcome, never the data. */
export class ElicitationFinishedException extends ConflictException {
  constructor(readonly recordedStatus: ElicitationStatus) {
    super(TEXT[recordedStatus] ?? 'This request is no longer open. Nothing was changed.');
  }
}
