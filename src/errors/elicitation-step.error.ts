/** Why `elicitation.step` refused: a name used twice in a run, a bad name, or a result it cannot keep. */
export type ElicitationStepReason = 'duplicate' | 'name' | 'not-json' | 'too-large';

/**
 * A step of a tool body (`elicitation.step(name, fn)`) that cannot be run once: its name is not unique in the run or
 * not a usable name (thrown before `fn` is called), or its result cannot be kept (not JSON, or over
 * `limits.maxStepResultBytes`: `fn` ran, and a later run calls it again with the same idempotency key). A programming
 * error in the tool: the call's result is the tool's error, as for any error the tool throws.
 */
export class ElicitationStepError extends Error {
  override readonly name = 'ElicitationStepError';

  constructor(
    readonly step: string,
    readonly reason: ElicitationStepReason,
    message: string,
  ) {
    super(message);
  }
}
