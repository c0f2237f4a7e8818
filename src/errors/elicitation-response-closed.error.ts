/**
 * The client closed the response stream of a tool call that waited for a person (it hung up), and nothing can
 * resume that stream (no event store): the call's waits end with this error, its keep-alive stops, and the
 * question it waited on stays open (the person may still answer; the next identical call takes it up). Internal:
 * nobody is left to read the call's result.
 */
export class ElicitationResponseClosedError extends Error {
  override readonly name = 'ElicitationResponseClosedError';

  constructor() {
    super('The client closed the tool call before it was answered; the question stays open for a later call.');
  }
}
