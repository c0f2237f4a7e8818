import { Logger } from '@nestjs/common';

/** Whether the once-per-process hint about `resolvePageUser` was logged. */
let toldNoPageUser = false;

/**
 * In development (`NODE_ENV` other than `production`), the first page refused because `resolvePageUser` returned
 * nothing logs, once per process, which option decides it: a fresh app has no browser login, so every page would
 * otherwise answer "Please sign in" with nothing in the log. `got` is what the function returned (never a request value).
 */
export function hintNoPageUser(got: undefined | null | string): void {
  if (toldNoPageUser || process.env.NODE_ENV === 'production') return;
  toldNoPageUser = true;
  const value = got === '' ? "''" : String(got);
  new Logger('ElicitationPages').warn(
    `A page answered 401 "Please sign in": resolvePageUser (ElicitationModule.forRoot) returned ${value} for its request. ` +
      'Set resolvePageUser to read the user of your browser login (e.g. req.user.id, set by Passport), the same user ' +
      'the elicitation was created for, or set loginUrl to send such browsers to sign in. (Logged once, outside production.)',
  );
}
