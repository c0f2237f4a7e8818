import type { AskedBy } from './asked-by.js';
import type { ElicitationKind } from './elicitation-kinds.js';

/** What a notification is about: a question created for a person, a reminder before it expires, its expiry unanswered. */
export type NoticeEvent = 'created' | 'reminder' | 'expired';

/**
 * One notification, as a notifier gets it: the page link, the message, what asked and the expiry. Never an answer,
 * a token or a secret. The link is safe to forward: only the user the question is for can answer it (the page checks
 * who the browser user is).
 */
export interface ElicitationNotice {
  /** Stable per elicitation, event and notifier: the idempotency key a receiver de-duplicates on. */
  readonly id: string;
  readonly event: NoticeEvent;
  readonly elicitationId: string;
  /** The user the question is for (for an escalated reminder too: the contact is someone else's). */
  readonly userId: string;
  readonly kind: ElicitationKind;
  /** The question, as the tool asked it (plain text: escape it where it goes into HTML or markup). */
  readonly message: string;
  /** The question's page: absent once it expired (`expired`). */
  readonly url?: string;
  /** The inbox: every open question of the user. */
  readonly inboxUrl: string;
  /** The tool and client that asked, where known. */
  readonly askedBy?: AskedBy;
  /** When it was asked and when it expires, ISO 8601. */
  readonly askedAt: string;
  readonly expiresAt: string;
  /** For `reminder`: how long before the expiry it was meant to go out, in milliseconds. */
  readonly beforeExpiryMs?: number;
  /** For `reminder`: `true` when sent to the escalation contact (`escalateTo`) rather than the user. */
  readonly escalated?: boolean;
}

/**
 * Where a person is reached, as the app's `resolveContact(userId)` gives it: what each notifier needs (the e-mail
 * notifier `email`, the Slack notifier nothing beyond its webhook, the app's own notifiers whatever they read).
 */
export interface ElicitationContact {
  /** The address the e-mail notifier writes to. */
  readonly email?: string;
  /** A display name (the e-mail's greeting). */
  readonly name?: string;
  /** `en`, `de` or `ar`: the language of the e-mail (others: English). */
  readonly locale?: string;
  /** A Slack member id (`U…`): the Slack notifier mentions them. */
  readonly slackUserId?: string;
  /** Anything the app's own notifiers read. */
  readonly [key: string]: unknown;
}

/**
 * A way to reach people (`notify` option): the module calls `send` for each notice, through its outbox, and retries
 * with backoff when it throws. Built in: `webhookNotifier`, `emailNotifier`, `slackNotifier`.
 */
export interface ElicitationNotifier {
  /** Unique among the module's notifiers: letters, digits, `-`, `_`; part of every notice's idempotency key. */
  readonly name: string;
  /**
   * Sends one notice to `contact`. Resolves when it was handed over (a 2xx, an accepted mail); throws to have it
   * retried; resolves `'skipped'` when the contact has nothing this notifier can use (no e-mail address, say).
   */
  send(notice: ElicitationNotice, contact: ElicitationContact): Promise<void | 'skipped'>;
}
