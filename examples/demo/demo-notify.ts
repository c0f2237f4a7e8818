/**
 * The demo's opt-in notifications (docs/reaching-people.md): a signed webhook (`ELICITATION_WEBHOOK_URL` and
 * `ELICITATION_WEBHOOK_SECRET`), or with `ELICITATION_WEBHOOK_URL=log` a notifier of the demo's own that prints each
 * notice to the Nest logger; reminders before expiry (`ELICITATION_REMINDER_MS`); each demo user reached at
 * `<user>@example.com`; and the outbox's timings, which the tests shorten (`ELICITATION_OUTBOX_*`).
 */
import { Logger } from '@nestjs/common';
import {
  webhookNotifier,
  type ElicitationContact,
  type ElicitationNotifier,
  type ElicitationNotifyOptions,
  type ElicitationOutboxOptions,
} from '../../src/index.js';

/** The value of `ELICITATION_WEBHOOK_URL` that prints each notice to the log instead of posting it. */
export const LOG_NOTIFIER_URL = 'log';

/** The webhook's signing secret, at least this long (as `webhookNotifier` requires). */
const MIN_SECRET_LENGTH = 32;

/** The demo's notification settings (from the environment in `main.ts`, from the tests directly). */
export interface DemoNotifySettings {
  /** Where each notice is posted, or `'log'` (printed to the Nest logger). Unset: no notifications. */
  webhookUrl?: string;
  /** The webhook's signing secret, at least 32 characters: required with a webhook URL (not with `'log'`). */
  webhookSecret?: string;
  /** Reminders, each this many milliseconds before the question expires. @default none */
  remindersMs?: number[];
  /** The outbox's timings (`outbox` option), in milliseconds; unset ones take the module's defaults. */
  outbox?: Pick<ElicitationOutboxOptions, 'pollIntervalMs' | 'leaseMs' | 'retryBaseMs' | 'sendTimeoutMs' | 'createdDelayMs'>;
}

/** The environment variable each outbox timing is read from. */
const OUTBOX_ENV = {
  pollIntervalMs: 'ELICITATION_OUTBOX_POLL_MS',
  leaseMs: 'ELICITATION_OUTBOX_LEASE_MS',
  retryBaseMs: 'ELICITATION_OUTBOX_RETRY_MS',
  sendTimeoutMs: 'ELICITATION_OUTBOX_SEND_TIMEOUT_MS',
  createdDelayMs: 'ELICITATION_OUTBOX_CREATED_DELAY_MS',
} as const;

/**
 * The notification settings in the environment: `ELICITATION_WEBHOOK_URL`, `ELICITATION_WEBHOOK_SECRET`,
 * `ELICITATION_REMINDER_MS` (comma-separated milliseconds before expiry) and the `ELICITATION_OUTBOX_*` timings.
 * A malformed number throws, naming its variable.
 */
export function notifySettingsFromEnv(env: NodeJS.ProcessEnv): DemoNotifySettings {
  const outbox: NonNullable<DemoNotifySettings['outbox']> = {};
  for (const [key, name] of Object.entries(OUTBOX_ENV) as Array<[keyof typeof OUTBOX_ENV, string]>) {
    if (env[name]) outbox[key] = positiveMs(name, env[name], key === 'createdDelayMs');
  }
  return {
    webhookUrl: env.ELICITATION_WEBHOOK_URL || undefined,
    webhookSecret: env.ELICITATION_WEBHOOK_SECRET || undefined,
    remindersMs: env.ELICITATION_REMINDER_MS
      ? env.ELICITATION_REMINDER_MS.split(',').map((part) => positiveMs('ELICITATION_REMINDER_MS', part.trim()))
      : undefined,
    outbox,
  };
}

/**
 * The module options of `settings`: none without a webhook URL; otherwise `notify` (the signed webhook, or the log
 * notifier), `resolveContact`, `reminders` and `outbox`. Throws, naming the environment variable, when a webhook
 * URL comes without a secret of at least 32 characters.
 */
export function demoNotifyOptions(settings: DemoNotifySettings | undefined): ElicitationNotifyOptions {
  if (!settings?.webhookUrl) return {};
  const { webhookUrl, webhookSecret } = settings;
  let notifier: ElicitationNotifier;
  if (webhookUrl === LOG_NOTIFIER_URL) {
    notifier = logNotifier();
  } else {
    if (!webhookSecret || webhookSecret.length < MIN_SECRET_LENGTH) {
      throw new Error(
        `ELICITATION_WEBHOOK_URL needs ELICITATION_WEBHOOK_SECRET, at least ${MIN_SECRET_LENGTH} characters ` +
          `(${webhookSecret ? `it has ${webhookSecret.length}` : 'it is not set'}), shared with the receiver: ` +
          'e.g. export ELICITATION_WEBHOOK_SECRET="$(openssl rand -hex 32)"',
      );
    }
    try {
      notifier = webhookNotifier({ url: webhookUrl, secret: webhookSecret });
    } catch (error) {
      // Its message names webhookNotifier's option: the demo's reader set an environment variable instead.
      throw new Error(`ELICITATION_WEBHOOK_URL must be an http(s) URL without credentials, or "${LOG_NOTIFIER_URL}"`, { cause: error });
    }
  }
  return {
    notify: [notifier],
    resolveContact: demoContact,
    ...(settings.remindersMs?.length && { reminders: settings.remindersMs.map((beforeExpiryMs) => ({ beforeExpiryMs })) }),
    outbox: outboxOptions(settings.outbox ?? {}),
  };
}

/** DEMO ONLY: every demo user is reached at `<user>@example.com` (an app looks its users up). */
export function demoContact(userId: string): ElicitationContact {
  return { email: `${userId}@example.com`, name: userId };
}

/**
 * A notifier of the demo's own (`ELICITATION_WEBHOOK_URL=log`): prints each notice (its event, elicitation id, user
 * and link) to the Nest logger instead of posting it. A notice holds no answer or secret; the contact is not printed.
 */
export function logNotifier(logger: Pick<Logger, 'log'> = new Logger('DemoNotifications')): ElicitationNotifier {
  return {
    name: 'log',
    send(notice) {
      const lead =
        notice.beforeExpiryMs === undefined ? '' : ` ${notice.beforeExpiryMs} ms before expiry${notice.escalated ? ', escalated' : ''}`;
      logger.log(
        `Notice ${notice.id}: ${notice.event}${lead} of ${notice.elicitationId} for ${notice.userId}, ` +
          (notice.url ? `page ${notice.url}` : `inbox ${notice.inboxUrl}`),
      );
      return Promise.resolve();
    },
  };
}

/**
 * The outbox timings; a lease given without a send timeout also sets the send timeout, to half the lease (10 s, the
 * module's default, at most), so that a short test lease alone starts (the send timeout must stay below the lease).
 */
function outboxOptions(outbox: NonNullable<DemoNotifySettings['outbox']>): ElicitationOutboxOptions {
  const sendTimeoutMs =
    outbox.sendTimeoutMs ?? (outbox.leaseMs !== undefined ? Math.min(10_000, Math.floor(outbox.leaseMs / 2)) : undefined);
  return { ...outbox, ...(sendTimeoutMs !== undefined && { sendTimeoutMs }) };
}

/** A whole number of milliseconds above 0 (or from 0), or an error naming the variable. */
function positiveMs(name: string, value: string | undefined, allowZero = false): number {
  const n = Number(value);
  if (!value || !/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < (allowZero ? 0 : 1)) {
    throw new Error(
      `${name} must be a whole number of milliseconds ${allowZero ? 'from 0' : 'above 0'}${name === 'ELICITATION_REMINDER_MS' ? ' (or a comma-separated list of them)' : ''}, got "${value}"`,
    );
  }
  return n;
}
