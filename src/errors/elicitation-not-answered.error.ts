/**
 * A tool needed an answer (`requireAnswer`) and the user did not give one: they declined, cancelled, or
 * let the elicitation expire. Thrown inside a tool it becomes a readable tool error.
 */
export class ElicitationNotAnsweredError extends Error {
  override readonly name = 'ElicitationNotAnsweredError';

  constructor(readonly status: 'declined' | 'cancelled' | 'expired') {
    super(
      status === 'declined'
        ? 'The user declined to give the information this tool needs.'
        : status === 'cancelled'
          ? 'The request for information was cancelled.'
          : 'The request for information expired before the user answered.',
    );
  }
}
