/**
 * The kinds of elicitation, the one list: what `createUrlElicitation` accepts, the pages the module serves, the
 * templates it renders and the kinds the audit log names are all derived from it. Internal (the package exports the
 * `ElicitationKind` type only).
 */
export const ELICITATION_KINDS = ['api-key', 'confirm', 'form', 'oauth', 'file', 'external', 'approval'] as const;

/**
 * The page a URL-mode elicitation sends the user to: `api-key`, `confirm`, `form` (a hosted form built from
 * a restricted schema), `oauth` (connect an account at one of the `oauth.providers`: the built-in OAuth 2 / OpenID
 * Connect flow), `file` (a file upload: the answer is the file's name, type, size and SHA-256, with its content or
 * the `uploadSink`'s reference), `external` (a third-party page; your own callback completes it) or `approval` (a
 * decision by a quorum of approvers, each on a confirm page of their own; its page shows the requester where it stands).
 */
export type ElicitationKind = (typeof ELICITATION_KINDS)[number];

/** A kind with a page of the module's own: every kind but `external` (a third-party page). */
export type PageKind = Exclude<ElicitationKind, 'external'>;

/** The kinds with a page of the module's own, in the order of `ELICITATION_KINDS`. */
export const PAGE_KINDS: readonly PageKind[] = ELICITATION_KINDS.filter((kind): kind is PageKind => kind !== 'external');

/** True when `value` is one of the kinds. */
export function isElicitationKind(value: unknown): value is ElicitationKind {
  return ELICITATION_KINDS.some((kind) => kind === value);
}

/** True when `value` is a kind with a page of the module's own. */
export function isPageKind(value: unknown): value is PageKind {
  return PAGE_KINDS.some((kind) => kind === value);
}
