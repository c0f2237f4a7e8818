import type { PageLabels, PageMessages } from '../messages/page-messages.js';
import type { PageLocale } from '../messages/locales.js';
import type { InboxItemView } from './inbox-view.js';
import type { FieldView } from './form-view.js';

// What the templates read: each page's context, the expiry line and the frame every page gets (`TemplateRenderer`).

/** What the api-key and confirm pages read (both get every field, so a custom template may use any). */
export interface FormPageContext {
  heading: string;
  message: string;
  maxLength: number;
  error: string | null;
  csrf: string;
  labels: PageLabels;
}

/** What each template reads besides `nonce`, `theme` and `assets` (strict mode: every field it reads must be there). */
export interface PageContexts {
  'api-key': FormPageContext;
  confirm: FormPageContext & {
    warning: string | null;
    confirmLabel: string;
    cancelLabel: string;
    action?: ApprovalActionView | null;
    /** A page that asks for a passkey: what the browser signs with, or where to add one first. */
    passkey?: ConfirmPasskeyView | null;
  };
  /** The requester's page of an approval: where it stands (no form: the approvers decide on pages of their own). */
  approval: {
    heading: string;
    message: string;
    progress: string;
    approvedBy: string | null;
    rejectedBy: string | null;
    waitingFor: string | null;
    action: ApprovalActionView | null;
    labels: PageLabels;
    texts: PageMessages['approval'];
  };
  form: {
    heading: string;
    message: string;
    fields: FieldView[];
    hasRequired: boolean;
    error: string | null;
    csrf: string;
    labels: PageLabels;
  };
  oauth: {
    heading: string;
    message: string;
    intro: string;
    scopesLabel: string;
    scopes: string[];
    note: string;
    continueLabel: string;
    error: string | null;
    csrf: string;
    labels: PageLabels;
  };
  file: {
    heading: string;
    message: string;
    /** The file input's label. */
    label: string;
    /** The input's `accept` attribute (MIME types and `type/*`), or null: any. */
    accept: string | null;
    /** "Accepted: PDF, image." or null: any type. */
    accepted: string | null;
    /** "At most 5 MB." */
    maxSize: string;
    error: string | null;
    csrf: string;
    labels: PageLabels;
  };
  done: { heading: string; text: string; message: string; labels: PageLabels };
  error: { heading: string; text: string; statusCode: number; statusLine: string };
  inbox: {
    heading: string;
    /** The catalog's inbox texts (the intro, the empty state, each question's labels, the announcements). */
    texts: PageMessages['inbox'];
    /** The open questions of this page of the list, newest first (empty: the empty state shows). */
    questions: InboxItemView[];
    /** What the page's script polls: this page of the list as JSON (the inbox's path, and `?after=` on a later page). */
    source: string;
    /** The inbox's own path (the script builds the next page's link from it). */
    home: string;
    /** The next page's link (older questions), or null on the last page. */
    older: string | null;
    /** On a later page, the link back to the first; null on the first. */
    newest: string | null;
  };
  /** The passkey page: the user's passkeys, each with its removal form, and the form that adds one. */
  passkeys: {
    heading: string;
    texts: PageMessages['passkeys'];
    /** Where both forms post (the page's own path). */
    action: string;
    csrf: string;
    passkeys: Array<{ id: string; name: string; added: string; used: string | null }>;
    /** The browser's registration options (JSON, for `passkey.js`), or null when the user may not add one. */
    options: string | null;
    /** Why the user may not add one, or null. */
    blocked: string | null;
    notice: string | null;
    error: string | null;
    /** The page that sent the user here (a page of this module), to go back to; or null. */
    returnTo: string | null;
  };
}

/** A confirm page's passkey: the options the browser signs the decision with (JSON), or the link to add a passkey. */
export interface ConfirmPasskeyView {
  options: string | null;
  register: string | null;
  texts: PageMessages['passkeys'];
}

/** What an approver (and the requester) is shown of the action approved: made safe to show by the template's escaping. */
export interface ApprovalActionView {
  caption: string;
  /** Who asked (an approval's requester); null on a confirm page of the user's own. */
  requestedBy: string | null;
  tool: string | null;
  arguments: Array<{ name: string; value: string }>;
  /** The action hash's first 12 digits, and the whole for a title. */
  hash: string | null;
  fullHash: string | null;
  details: string | null;
  texts: PageMessages['approval'];
}

/**
 * The expiry line of a pending request's page: the sentence around the relative time (so that the countdown can
 * replace just that), the absolute time, the moment itself for the script, its texts for the last minute and the
 * end, and the form that asks for more time when the request can still have it.
 */
export interface ExpiryView {
  before: string;
  relative: string;
  after: string;
  absolute: string;
  /** ISO 8601 (the `<time datetime>` and the countdown's end). */
  iso: string;
  soon: string;
  expired: string;
  extend: { action: string; hint: string; csrf: string } | null;
  /** After "Need more time?" gave it more: says so (the button is gone then). */
  extended: string | null;
}

/** What every page gets besides its own context: its language, and the expiry line of a pending request. */
export interface PageFrame {
  locale: PageLocale;
  expiry?: ExpiryView | null;
}
