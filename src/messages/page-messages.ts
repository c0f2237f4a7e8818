import type { ElicitationStatus } from '../core/elicitation.types.js';
import type { FieldRule } from '../core/form-rules.js';

/**
 * The sentences the templates print themselves, handed to them as `labels` (the built-in templates print
 * nothing else of their own). One constant object, so passing it costs a render nothing.
 */
export interface PageLabels {
  /** The api-key page's input label. */
  readonly apiKey: string;
  /** Under the api-key input: where the key goes. */
  readonly apiKeyNote: string;
  /** The submit button of the api-key page and the hosted form. */
  readonly submit: string;
  /** The cancel button of the api-key page and the hosted form. */
  readonly cancel: string;
  /** The hosted form's note on required fields, around the red asterisk (markup, so not part of the text). */
  readonly requiredNote: { readonly before: string; readonly after: string };
  /** The done page's closing line. */
  readonly closeWindow: string;
  /**
   * The caption of the box that quotes the elicitation's message (and the confirm page's warning): what is
   * inside was written by the tool, not by this page.
   */
  readonly fromAssistant: string;
  /** The button that extends a pending request once ("Need more time?"). */
  readonly extend: string;
  /** The heading of the list of problems above a refused form (each item links to its field). */
  readonly errorSummary: string;
  /** The link to the inbox in every page's bar (the signed-in user's open questions): short, to share a phone's bar with the title. */
  readonly inbox: string;
}

/**
 * Every sentence the module's pages show (and the status route's error texts), in one place so that they
 * can be localised together. Plain strings, and small functions where a number or a plural goes in. Texts
 * never carry user-entered values, except a form field's own label (`form.fieldError`).
 */
export interface PageMessages {
  readonly labels: PageLabels;
  readonly headings: {
    readonly apiKey: string;
    /** The confirm page's heading when the elicitation sets no `title`. */
    readonly confirm: string;
    readonly form: string;
    /** The file page (`kind: 'file'`). */
    readonly file: string;
    readonly done: string;
    readonly tooManyAttempts: string;
    /** The page of a refused "Need more time?" (given once already, or not possible here). */
    readonly noMoreTime: string;
    /** The 403 page of a post that failed the CSRF or origin check (`errors.forgedPost`), unlike another account's 403. */
    readonly forgedPost: string;
    /** The 409 page of a file post sent while another to the same page is still being received (`file.busy`). */
    readonly uploadInProgress: string;
    /** The error page's heading per HTTP status. */
    readonly byStatus: Readonly<Partial<Record<number, string>>>;
    /** The 409 page's heading: how the request ended. */
    readonly finished: (status: ElicitationStatus) => string;
    /** The error page's heading for any other status. */
    readonly otherError: string;
  };
  /** The done page's text per outcome. */
  readonly done: {
    readonly declined: string;
    /** An `oauth` elicitation completed: the account is connected. */
    readonly accountConnected: (provider: string) => string;
    /** A file page (`kind: 'file'`) completed. */
    readonly fileReceived: string;
    readonly apiKeyReceived: string;
    readonly confirmationReceived: string;
    readonly answersReceived: string;
  };
  readonly apiKey: {
    readonly enterKey: string;
    readonly tooLong: (maxLength: number) => string;
    readonly unknownAction: string;
    /** When a failed check carries no message of its own. */
    readonly checkInput: string;
  };
  /** The `oauth` page (connect an account) and its callback's refusals. */
  readonly oauth: {
    readonly heading: (provider: string) => string;
    /** What Continue does. */
    readonly intro: (provider: string) => string;
    /** Above the list of scopes. */
    readonly scopesLabel: string;
    /** Where the tokens go. */
    readonly note: string;
    readonly continueLabel: (provider: string) => string;
    readonly chooseAction: string;
    /** The callback's `state` is not one of ours, was changed, or belongs to another request: 400. */
    readonly stateInvalid: string;
    /** The callback's `state` is past its expiry: 410. */
    readonly stateExpired: string;
    /** The callback's `state` was presented before: 400. */
    readonly stateUsed: string;
    /** The provider answered with an error (other than the user's refusal): 502. */
    readonly providerError: (provider: string, code: string | undefined) => string;
    /** The provider refused the code exchange: 502. */
    readonly exchangeRefused: (provider: string) => string;
    /** The provider could not be reached: 503. */
    readonly providerUnavailable: (provider: string) => string;
  };
  readonly confirm: {
    /** The confirm button when the elicitation sets no `confirmLabel`. */
    readonly confirmLabel: string;
    /** The cancel button when the elicitation sets no `cancelLabel`. */
    readonly cancelLabel: string;
    readonly chooseAction: string;
  };
  /** Approvals (`requestApproval`): an approver's confirm page, and the requester's page of where it stands. */
  readonly approval: {
    /** An approver's page heading. */
    readonly heading: string;
    readonly approve: string;
    readonly reject: string;
    /** The box of what is approved: its caption, and before the requester, the tool, the arguments, the hash. */
    readonly action: string;
    readonly requestedBy: string;
    readonly tool: string;
    readonly arguments: string;
    readonly hash: string;
    /** The requester's page heading. */
    readonly waiting: string;
    readonly progress: (approved: number, quorum: number) => string;
    readonly approvedBy: string;
    readonly rejectedBy: string;
    readonly waitingFor: string;
  };
  readonly form: {
    /** Above a refused hosted form: how many fields to check, how many invalid posts are left. */
    readonly summary: (fieldsToCheck: number, attemptsLeft: number) => string;
    /** The page after the last invalid post allowed (`limits.maxFormAttempts`). */
    readonly declinedAfter: (maxAttempts: number) => string;
    /** A field's error line: its label, then the validator's message. */
    readonly fieldError: (label: string, problem: string) => string;
    readonly enterSecretAgain: string;
    readonly timeInUtc: string;
    readonly chooseBetween: (min: number, max: number) => string;
    readonly chooseAtLeast: (min: number) => string;
    readonly chooseAtMost: (max: number) => string;
    /** The empty first option of a required select (the browser refuses it). */
    readonly choosePlaceholder: string;
    /** The empty first option of an optional select. */
    readonly noChoice: string;
  };
  /** The hosted form's per-field problems (the validator's rules), after the field's label (`form.fieldError`). */
  readonly validation: {
    readonly problem: (rule: FieldRule) => string;
  };
  /** When a request expires, and more time. */
  readonly time: {
    /**
     * The expiry line on every page: `relative` ("in 9 minutes", from `Intl.RelativeTimeFormat` in the page's
     * locale) and `absolute` (the time and date in UTC, from `Intl.DateTimeFormat`).
     */
    readonly expiresAt: (relative: string, absolute: string) => string;
    /** Shown by the page's countdown a minute before expiry. */
    readonly expiresSoon: string;
    /** Shown by the page's countdown once the time has run out. */
    readonly expiredNow: string;
    /** Under the extend button: how much it adds (`minutes`), and that it works once. */
    readonly extendHint: (minutes: number) => string;
    /** After an extension, above the page. */
    readonly extended: string;
    /** An extension refused: done once already. */
    readonly alreadyExtended: string;
    /** An extension refused: this request cannot have more time (its store cannot extend, or it is at its limit). */
    readonly cannotExtend: string;
  };
  /** Passkeys: the passkey page (`/<routePrefix>/passkeys`) and a confirm page that asks for one. */
  readonly passkeys: {
    /** The passkey page's heading, and its link in every page's bar. */
    readonly heading: string;
    readonly link: string;
    readonly intro: string;
    readonly none: string;
    readonly nameLabel: string;
    readonly add: string;
    readonly remove: string;
    /** When it was added, and last used (dates formatted in the page's locale). */
    readonly added: (date: string) => string;
    readonly lastUsed: (date: string) => string;
    readonly addedNotice: string;
    readonly removedNotice: string;
    /** The link back to the page that sent the user to add one. */
    readonly back: string;
    /** `passkeys.canRegister` said no. */
    readonly notAllowed: string;
    /** The browser has no WebAuthn, or the person stopped the ceremony. */
    readonly unsupported: string;
    readonly failed: string;
    /** On a confirm page that asks for a passkey: what signing means, and a user without one. */
    readonly signNote: string;
    readonly needed: string;
    /** Why a passkey was refused, by reason. */
    readonly refused: {
      readonly malformed: string;
      readonly 'no-passkey': string;
      readonly 'unknown-credential': string;
      readonly 'other-user': string;
      readonly removed: string;
      readonly 'other-action': string;
      readonly replayed: string;
      readonly 'not-verified': string;
      readonly expired: string;
      readonly exists: string;
      readonly limit: string;
    };
  };
  /** The inbox (`/<routePrefix>/inbox`): the signed-in user's open questions, newest first. */
  readonly inbox: {
    readonly heading: string;
    /** Under the heading: what the list is, and that it keeps itself current. */
    readonly intro: string;
    /** Instead of the list when nothing is open. */
    readonly empty: string;
    /** Before the name of the tool that asked. */
    readonly tool: string;
    /** Before the name of the MCP client (the app) that made the call. */
    readonly client: string;
    /** Before when the question was asked. */
    readonly askedAt: string;
    /** Before when it expires (relative, then the date and time in UTC). */
    readonly expiresAt: string;
    /** Each question's link to its page. */
    readonly answer: string;
    /** The link of an approval the user asked for (`requestApproval`): its page says where it stands. */
    readonly follow: string;
    /** The link to the next page of the list (older questions). */
    readonly older: string;
    /** On a later page: the link back to the first (the newest questions). */
    readonly newest: string;
    /** Said politely (a live region) when questions came in while the list was open. */
    readonly arrived: string;
    /** Said politely when questions left the list (answered, declined or expired). */
    readonly left: string;
  };
  /** The file page (`kind: 'file'`). */
  readonly file: {
    readonly label: string;
    /** The accepted types, listed (`types`: e.g. "PDF, image"). */
    readonly accepted: (types: string) => string;
    /** The largest file, `size` formatted in the page's locale (e.g. "5 MB"). */
    readonly maxSize: (size: string) => string;
    readonly chooseFile: string;
    readonly oneFile: string;
    readonly empty: string;
    readonly tooLarge: (size: string) => string;
    readonly wrongType: (types: string) => string;
    /** A second file post to a page whose first is still being received (409). */
    readonly busy: string;
    /** The server holds as many files in memory as it may (503, with `Retry-After: retryAfterSeconds`). */
    readonly serverBusy: (retryAfterSeconds: number) => string;
  };
  /** Texts of the error page (and of the JSON errors of the status route, which share the exceptions). */
  readonly errors: {
    readonly notFound: string;
    readonly expired: string;
    readonly finished: (status: ElicitationStatus) => string;
    readonly signIn: string;
    readonly otherAccount: string;
    readonly tooMuchData: string;
    /** A post that failed the CSRF or origin check: what happened and what to do (reload). */
    readonly forgedPost: string;
    readonly throttled: (retryAfterSeconds: number) => string;
    readonly answerTooLarge: string;
    readonly unavailable: string;
    /** This instance cannot open what another sealed (the instances disagree on `encryptionKey`): 503. */
    readonly keyMismatch: string;
    readonly unexpected: string;
    /** The status route's 503 (JSON). */
    readonly statusUnavailable: string;
    /** A page or the status route while the app shuts down: 503. */
    readonly shuttingDown: string;
    /** The error page's closing line. */
    readonly statusLine: (statusCode: number) => string;
    /** A request the router could not read (a link with a broken percent-escape, a malformed body): 400. */
    readonly unreadable: string;
    /** No page of the module at this address, or not for this method (an unknown page name, a PUT): 404. */
    readonly noSuchPage: string;
    /** A post in a content type or charset the app's body parser refuses: 415. */
    readonly unsupportedBody: string;
  };
}
