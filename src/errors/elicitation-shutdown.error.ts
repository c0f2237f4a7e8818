/**
 * The app is shutting down (`app.close()`, or a signal with `app.enableShutdownHooks()`), so a wait for an
 * answer ends here instead of hanging: every `waitForCompletion` in progress rejects with it when the module
 * starts to close (`ElicitationModule`'s `onModuleDestroy`), and so does any wait or `createUrlElicitation`
 * started afterwards. A tool waiting on a question (`requestUrl`, a 2026-07-28 retry waiting for the page) ends
 * with it as a readable tool error. The elicitation itself is left pending in the store: on a store shared by
 * several instances its page can still be answered on another one, and calling the tool again there takes it up.
 */
export class ElicitationShutdownError extends Error {
  override readonly name = 'ElicitationShutdownError';

  /** @param elicitationId the elicitation that was waited on, when there was one */
  constructor(readonly elicitationId?: string) {
    super('The server is shutting down, so it stopped waiting for your answer. Call the tool again in a moment.');
  }
}
