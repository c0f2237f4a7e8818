import type { ElicitationContact, ElicitationNotifier } from '../core/notice.js';

/** A reminder to whoever has not answered yet (`reminders` option). */
export interface ElicitationReminder {
  /** How long before the question expires it goes out, in milliseconds (above 0). */
  beforeExpiryMs: number;
}

/** How the outbox delivers (`outbox` option): every field optional. */
export interface ElicitationOutboxOptions {
  /** How often each instance looks for due notices, in milliseconds. @default 1000 */
  pollIntervalMs?: number;
  /** Notices one instance claims per look, at most. @default 20 */
  batchSize?: number;
  /** How long a claim holds, in milliseconds: a notice an instance claimed and did not settle is due again after it. @default 60000 */
  leaseMs?: number;
  /** How long one `send` may take, in milliseconds (less than `leaseMs`). @default 10000 */
  sendTimeoutMs?: number;
  /** Attempts before a notice is given up (kept as failed). @default 8 */
  maxAttempts?: number;
  /** The first retry's delay, doubled at each attempt up to `retryMaxMs`, in milliseconds. @default 1000 */
  retryBaseMs?: number;
  /** The longest delay between two attempts, in milliseconds. @default 300000 (5 minutes) */
  retryMaxMs?: number;
  /** How long after a question is created its `created` notice goes out, in milliseconds (a question answered meanwhile sends none). @default 0 */
  createdDelayMs?: number;
  /** How old the oldest due notice may be before the health indicator reports the outbox down, in milliseconds. @default 600000 */
  healthMaxAgeMs?: number;
}

/** The options that reach people where they are: notifiers, who to reach, reminders (see docs/reaching-people.md). */
export interface ElicitationNotifyOptions {
  /**
   * The notifiers called when a question is created for a user, for each reminder and when it expires unanswered:
   * `webhookNotifier`, `emailNotifier`, `slackNotifier` or your own. Needs a store with an outbox (every built-in one).
   * @default none
   */
  notify?: readonly ElicitationNotifier[];
  /** Where a user is reached: what each notifier needs. Unset: `{}` for every user (a webhook or Slack channel still gets every notice). */
  resolveContact?: (userId: string) => ElicitationContact | undefined | Promise<ElicitationContact | undefined>;
  /** Reminders before expiry, to whoever has not answered yet. @default none */
  reminders?: readonly ElicitationReminder[];
  /** A second person (a user id, reached through `resolveContact`) who also gets the last reminder. @default none */
  escalateTo?: (userId: string) => string | undefined | Promise<string | undefined>;
  /** How the outbox delivers. */
  outbox?: ElicitationOutboxOptions;
}

/** The notify options, checked and defaulted (`notify` empty when unset). */
export interface ResolvedNotifyOptions {
  readonly notifiers: readonly ElicitationNotifier[];
  readonly resolveContact?: ElicitationNotifyOptions['resolveContact'];
  /** Longest first. */
  readonly reminders: readonly ElicitationReminder[];
  readonly escalateTo?: ElicitationNotifyOptions['escalateTo'];
  readonly outbox: Readonly<Required<ElicitationOutboxOptions>>;
}
