import type { FinalStatus } from '../../core/elicitation.types.js';
import { ElicitationValidationError } from '../../errors/elicitation-validation.error.js';
import type { ElicitationTelemetry } from '../../observability/elicitation-telemetry.js';
import type { LadderStep } from '../../options/client-ladder.js';

/** What the two mechanisms report to the metrics: form-mode questions and the ladder's fallbacks. */
export type MechanismTelemetry = Pick<ElicitationTelemetry, 'created' | 'finished' | 'fallback'>;

/** JSON-RPC error code of a request that timed out (the SDKs' `ErrorCode.RequestTimeout`). */
const REQUEST_TIMEOUT = -32001;

/** The final status a client's answer to a form-mode question stands for. */
export function statusOfAction(action: unknown): FinalStatus {
  return action === 'accept' ? 'completed' : action === 'decline' ? 'declined' : 'cancelled';
}

/** How a form rung's step ended: `cannot-ask` is the client's (instant) decline; `next` passed it on unanswered. */
export function statusOfStep(step: LadderStep<{ action: unknown }>): FinalStatus {
  if (step === 'cannot-ask') return 'declined';
  return step === 'next' ? 'cancelled' : statusOfAction(step.done.action);
}

/**
 * The status of a form-mode question that ended by an error: the last invalid answer is a decline (as on the hosted
 * form), a timeout an expiry, anything else (the call aborted, the session closed) a cancellation.
 */
export function statusOfError(error: unknown): FinalStatus {
  if (error instanceof ElicitationValidationError) return 'declined';
  return (error as { code?: unknown } | null)?.code === REQUEST_TIMEOUT ? 'expired' : 'cancelled';
}

/**
 * Runs one form-mode question answered inside the call (2025-11-25), counted as one form-mode elicitation:
 * `elicitation.created {kind: form, mode: form}` when it goes out, `elicitation.finished` and the answer's duration
 * when it ends, however it ends.
 */
export async function countedFormQuestion<R>(
  telemetry: MechanismTelemetry,
  ask: () => Promise<R>,
  statusOf: (result: R) => FinalStatus,
): Promise<R> {
  const askedAt = Date.now();
  telemetry.created('form', 'form');
  let status: FinalStatus = 'cancelled';
  try {
    const result = await ask();
    status = statusOf(result);
    return result;
  } catch (error) {
    status = statusOfError(error);
    throw error;
  } finally {
    telemetry.finished('form', status, 'form', askedAt, Date.now());
  }
}
