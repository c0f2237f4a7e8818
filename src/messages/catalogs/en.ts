import type { PageMessages } from '../page-messages.js';
import { englishProblem } from '../../core/form-rules.js';

const plural = (count: number, one: string, many: string): string => (count === 1 ? one : many);

/** The pages' English texts (`en`): the catalog every other must have every key of. */
export const EN_MESSAGES: PageMessages = {
  labels: {
    apiKey: 'API key',
    apiKeyNote: 'The key is sent to this server only. It is never shown to the AI assistant.',
    submit: 'Submit',
    cancel: 'Cancel',
    requiredNote: { before: 'Fields marked with an asterisk (', after: ') are required.' },
    closeWindow: 'You can close this window.',
    fromAssistant: 'Request from the assistant',
    extend: 'Need more time?',
    errorSummary: 'There is a problem',
    inbox: 'Open questions',
  },
  headings: {
    apiKey: 'An API key is needed',
    confirm: 'Please confirm',
    form: 'Please fill in this form',
    file: 'Please choose a file',
    done: 'Done',
    tooManyAttempts: 'Too many invalid attempts',
    noMoreTime: 'No more time',
    forgedPost: 'This form has expired',
    uploadInProgress: 'Upload in progress',
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
    fileReceived: 'Thank you. The file was received.',
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
  approval: {
    heading: 'Your approval is requested',
    approve: 'Approve',
    reject: 'Reject',
    action: 'What you approve',
    requestedBy: 'Requested by',
    tool: 'Tool',
    arguments: 'Arguments',
    hash: 'Fingerprint',
    waiting: 'Waiting for approval',
    progress: (approved, quorum) => `${approved} of ${quorum} approval${quorum === 1 ? '' : 's'}`,
    approvedBy: 'Approved by',
    rejectedBy: 'Rejected by',
    waitingFor: 'Waiting for',
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
  validation: {
    // The validator's own English (tool errors and form mode say it), with real plurals on the page.
    problem: (rule) => {
      switch (rule.code) {
        case 'min-items':
          return `needs at least ${rule.limit} ${plural(rule.limit, 'option', 'options')}`;
        case 'max-items':
          return `allows at most ${rule.limit} ${plural(rule.limit, 'option', 'options')}`;
        case 'min-length':
          return `must be at least ${rule.limit} ${plural(rule.limit, 'character', 'characters')} long`;
        case 'max-length':
          return `must be at most ${rule.limit} ${plural(rule.limit, 'character', 'characters')} long`;
        default:
          return englishProblem(rule);
      }
    },
  },
  time: {
    expiresAt: (relative, absolute) => `This request expires ${relative} (${absolute}).`,
    expiresSoon: 'Less than a minute left: answer now, or ask for more time.',
    expiredNow: 'This request has expired. Ask the assistant to start again.',
    extendHint: (minutes) => `Adds ${minutes} ${plural(minutes, 'minute', 'minutes')}, once.`,
    extended: 'You have more time now.',
    alreadyExtended: 'This request already got more time once. Nothing was changed.',
    cannotExtend: 'This request cannot get more time. Nothing was changed.',
  },
  passkeys: {
    heading: 'Your passkeys',
    link: 'Passkeys',
    intro:
      'A passkey lets you approve the most sensitive requests with your fingerprint, face or device PIN: a signature that nobody can make in your name, not even with your session.',
    none: 'You have no passkey yet.',
    nameLabel: 'Name (optional)',
    add: 'Add a passkey',
    remove: 'Remove',
    added: (date) => `Added ${date}`,
    lastUsed: (date) => `last used ${date}`,
    addedNotice: 'Your passkey was added.',
    removedNotice: 'The passkey was removed. Decisions it signed can still be verified.',
    back: 'Back to the request',
    notAllowed: 'You cannot add a passkey here. Ask your administrator.',
    unsupported: 'This browser cannot use passkeys. Open this page in a current browser.',
    failed: 'The passkey did not answer. Try again.',
    signNote: 'This request asks for your passkey: approving signs exactly what is shown above, and nothing else.',
    needed: 'You need a passkey to approve this request. Add one, then come back to this page.',
    refused: {
      malformed: 'No passkey signature came with your answer. Approve again and use your passkey when your browser asks.',
      'no-passkey': 'You have no passkey yet. Add one, then approve again.',
      'unknown-credential': 'This passkey is not registered here. Use one of the passkeys on your account.',
      'other-user': 'This passkey belongs to another account. Use your own passkey.',
      removed: 'This passkey was removed from your account. Use another one.',
      'other-action': 'This signature was made for another request or other arguments. Nothing was approved.',
      replayed: 'This signature was used already. Approve again with your passkey.',
      'not-verified': 'The passkey signature could not be verified. Nothing was approved.',
      expired: 'The passkey setup took too long or was used already. Start again.',
      exists: 'This passkey is registered already.',
      limit: 'You have as many passkeys as allowed. Remove one first.',
    },
  },
  inbox: {
    heading: 'Your open questions',
    intro: 'Questions waiting for your answer, newest first. The list updates by itself.',
    empty: 'Nothing is waiting for you. New questions appear here.',
    tool: 'Tool',
    client: 'App',
    askedAt: 'Asked',
    expiresAt: 'Expires',
    answer: 'Answer this question',
    follow: 'See where this approval stands',
    older: 'Older questions',
    newest: 'Back to the newest questions',
    arrived: 'New questions arrived.',
    left: 'Questions that were answered or expired left the list.',
  },
  file: {
    label: 'File',
    accepted: (types) => `Accepted: ${types}.`,
    maxSize: (size) => `At most ${size}.`,
    chooseFile: 'Choose a file.',
    oneFile: 'Send one file only. Nothing was saved.',
    empty: 'The file is empty. Nothing was saved.',
    tooLarge: (size) => `The file is larger than ${size}. Nothing was saved.`,
    wrongType: (types) => `This kind of file is not accepted (accepted: ${types}). Nothing was saved.`,
    busy: 'Another file for this request is still being received. This one was not saved. Wait for the other to finish, then reload the page.',
    serverBusy: (retryAfterSeconds) =>
      `This server is receiving too many files right now. Nothing was saved. Wait ${retryAfterSeconds} ${plural(retryAfterSeconds, 'second', 'seconds')}, then send the file again.`,
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
