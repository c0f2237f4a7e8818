import type { ElicitationStatus } from '../elicitation.types.js';

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
    readonly done: string;
    readonly tooManyAttempts: string;
    /** The 403 page of a post that failed the CSRF or origin check (`errors.forgedPost`), unlike another account's 403. */
    readonly forgedPost: string;
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

const plural = (count: number, one: string, many: string): string => (count === 1 ? one : many);

/** The pages' English texts. */
export const PAGE_MESSAGES: PageMessages = {
  labels: {
    apiKey: 'API key',
    apiKeyNote: 'The key is sent to this server only. It is never shown to the AI assistant.',
    submit: 'Submit',
    cancel: 'Cancel',
    requiredNote: { before: 'Fields marked with an asterisk (', after: ') are required.' },
    closeWindow: 'You can close this window.',
    fromAssistant: 'Request from the assistant',
  },
  headings: {
    apiKey: 'An API key is needed',
    confirm: 'Please confirm',
    form: 'Please fill in this form',
    done: 'Done',
    tooManyAttempts: 'Too many invalid attempts',
    forgedPost: 'This form has expired',
    byStatus: {
      400: 'Something is wrong with this request',
      401: 'Please sign in',
      403: 'Not your request',
      404: 'Request not found',
      409: 'Already answered',
      410: 'This request has expired',
      413: 'Too much data',
      415: 'Form not accepted',
      429: 'Too many requests',
      502: 'The other service refused',
      503: 'Temporarily unavailable',
    },
    finished: (status) => {
      switch (status) {
        case 'completed':
          return 'Already answered';
        case 'declined':
          return 'Already declined';
        case 'cancelled':
          return 'Request cancelled';
        default:
          return 'No longer open';
      }
    },
    otherError: 'Error',
  },
  done: {
    declined: 'You declined the request.',
    accountConnected: (provider) => `Thank you. Your ${provider} account is connected.`,
    apiKeyReceived: 'Thank you. The API key was received.',
    confirmationReceived: 'Thank you. Your confirmation was received.',
    answersReceived: 'Thank you. Your answers were received.',
  },
  apiKey: {
    enterKey: 'Enter the API key.',
    tooLong: (maxLength) => `The API key is longer than ${maxLength} characters.`,
    unknownAction: 'Unknown action.',
    checkInput: 'Check what you entered.',
  },
  oauth: {
    heading: (provider) => `Connect your ${provider} account`,
    intro: (provider) => `Continue to sign in at ${provider} and allow access. You will come back here afterwards.`,
    scopesLabel: 'Access asked for:',
    note: 'Your password and the access tokens stay between this server and the provider. They are never shown to the AI assistant.',
    continueLabel: (provider) => `Continue to ${provider}`,
    chooseAction: 'Choose continue or cancel.',
    stateInvalid: 'This sign-in answer is not valid for this request. Nothing was saved. Start again from the link the assistant gave you.',
    stateExpired: 'This sign-in took too long and has expired. Nothing was saved. Start again from the link the assistant gave you.',
    stateUsed: 'This sign-in answer was already used. Nothing was changed. Start again from the link the assistant gave you.',
    providerError: (provider, code) =>
      `${provider} did not grant access${code ? ` (${code})` : ''}. Nothing was saved. You can try again from the link the assistant gave you.`,
    exchangeRefused: (provider) =>
      `${provider} refused to complete the sign-in. Nothing was saved. You can try again from the link the assistant gave you.`,
    providerUnavailable: (provider) =>
      `${provider} could not be reached just now. Nothing was saved. Please try again in a moment from the link the assistant gave you.`,
  },
  confirm: {
    confirmLabel: 'Confirm',
    cancelLabel: 'Cancel',
    chooseAction: 'Choose confirm or cancel.',
  },
  form: {
    summary: (fieldsToCheck, attemptsLeft) =>
      `Check the ${plural(fieldsToCheck, 'field', `${fieldsToCheck} fields`)} marked below. ` +
      `After ${attemptsLeft} more ${plural(attemptsLeft, 'invalid attempt', 'invalid attempts')} this request will be declined.`,
    declinedAfter: (maxAttempts) =>
      `This request was declined after ${maxAttempts} ${plural(maxAttempts, 'invalid attempt', 'invalid attempts')}. ` +
      'Nothing was saved. If you still want to answer, ask the assistant again.',
    fieldError: (label, problem) => `${label} ${problem}.`,
    enterSecretAgain: 'Enter it again: a secret is never sent back to the page.',
    timeInUtc: 'The time is in UTC.',
    chooseBetween: (min, max) => `Choose ${min} to ${max}.`,
    chooseAtLeast: (min) => `Choose at least ${min}.`,
    chooseAtMost: (max) => `Choose at most ${max}.`,
    choosePlaceholder: 'Choose…',
    noChoice: '(none)',
  },
  errors: {
    notFound: 'This elicitation was not found. It may have expired or the link may be wrong.',
    expired: 'This request has expired. Ask the assistant to start again.',
    finished: (status) => {
      switch (status) {
        case 'completed':
          return 'This request was already answered. Nothing was changed.';
        case 'declined':
          return 'This request was already declined. Nothing was changed.';
        case 'cancelled':
          return 'This request was cancelled (by the assistant or the application) and is no longer open. Nothing was changed.';
        default:
          return 'This request is no longer open. Nothing was changed.';
      }
    },
    signIn: 'Please sign in to this application, then open the link again.',
    otherAccount: 'This request was made for a different account. Sign in with the account that asked, or ask the assistant again.',
    tooMuchData: 'The form sent too much data. Nothing was saved.',
    forgedPost: 'This form has expired or was not sent from this site. Nothing was saved. Reload the page and try again.',
    throttled: (retryAfterSeconds) => `Too many requests from your network. Wait ${retryAfterSeconds} seconds, then try again.`,
    answerTooLarge: 'The answer is too large to store. Nothing was saved.',
    unavailable: 'This service is temporarily unavailable. Nothing was saved. Please try again in a moment.',
    keyMismatch:
      "This server cannot read this request because of a configuration problem on our side. Nothing was saved. Please try again in a moment; if it keeps happening, tell the site's operator.",
    unexpected: 'Something went wrong on our side. Please try again later.',
    statusUnavailable: 'The elicitation store is temporarily unavailable. Try again shortly.',
    shuttingDown: 'This server is restarting. Nothing was saved. Please try again in a moment.',
    statusLine: (statusCode) => `Status ${statusCode}. You can close this window.`,
    unreadable: 'This request could not be read. Nothing was saved. Check the link, or reload the page and try again.',
    noSuchPage: 'There is no page at this address. Check the link, or ask the assistant to start again.',
    unsupportedBody: 'The form was sent in a format this page does not accept. Nothing was saved. Reload the page and try again.',
  },
};
