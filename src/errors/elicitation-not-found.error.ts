/**
 * No elicitation has this id: it was never created here, is not an elicitation id at all (one is the UUID
 * `createUrlElicitation` returned), or was forgotten after it ended. What `waitForCompletion` rejects with for an
 * unknown id. The message never repeats the id (it may come from a tool's input); `.elicitationId` holds it for
 * the caller's own logs. The pages answer an unknown id with their own 404 (`ElicitationNotFoundException`).
 */
export class ElicitationNotFoundError extends Error {
  override readonly name = 'ElicitationNotFoundError';

  constructor(readonly elicitationId: string) {
    super(
      'Elicitation not found: no elicitation has this id. Pass the id (a UUID) that createUrlElicitation returned; ' +
        'an elicitation is forgotten some time after it ends.',
    );
  }
}
