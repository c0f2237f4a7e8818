import { Logger } from '@nestjs/common';

/** Whether the once-per-process hints about `resolvePageUser` were logged. */
let toldNoPageUser = false;
let toldOtherPageUser = false;

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

/**
 * In development, the first page refused because its browser user is not the user the elicitation was made for
 * logs, once per process, where the two users come from: trying the README's MCP controllers beside the quick start
 * (every browser `dev-user`, the MCP call another user) otherwise shows "Not your request" with nothing in the log.
 * No user id is logged.
 */
export function hintOtherPageUser(): void {
  if (toldOtherPageUser || process.env.NODE_ENV === 'production') return;
  toldOtherPageUser = true;
  new Logger('ElicitationPages').warn(
    'A page answered 403 "Not your request": the browser user (resolvePageUser in ElicitationModule.forRoot) is not the ' +
      "user the elicitation was created for (the userId given to createUrlElicitation, or the MCP call's user from " +
      'resolveMcpUser). Both must name the same person. (Logged once, outside production.)',
  );
}
