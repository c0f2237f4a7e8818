/** What `fn` throws (fails the test when it does not), for assertions on the error itself. */
export function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}
