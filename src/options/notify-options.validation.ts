import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import type { ElicitationNotifier } from '../core/notice.js';
import type { ElicitationNotifyOptions, ElicitationOutboxOptions, ResolvedNotifyOptions } from './notify-options.js';
import { positiveCount, positiveMs } from './option-values.js';

const NOTIFIER_NAME = /^[A-Za-z0-9_-]{1,40}$/;

/** The outbox's defaults (`outbox` option). */
export const OUTBOX_DEFAULTS: Readonly<Required<ElicitationOutboxOptions>> = Object.freeze({
  pollIntervalMs: 1_000,
  batchSize: 20,
  leaseMs: 60_000,
  sendTimeoutMs: 10_000,
  maxAttempts: 8,
  retryBaseMs: 1_000,
  retryMaxMs: 300_000,
  createdDelayMs: 0,
  healthMaxAgeMs: 600_000,
});

/** Checks `notify`, `resolveContact`, `reminders`, `escalateTo` and `outbox`, and fills in the defaults. */
export function resolveNotify(raw: ElicitationNotifyOptions): ResolvedNotifyOptions {
  const notifiers = raw.notify ?? [];
  if (!Array.isArray(notifiers)) throw new ElicitationConfigError('notify', 'must be a list of notifiers', { value: notifiers });
  const names = new Set<string>();
  notifiers.forEach((n: unknown, i) => {
    const notifier = n as { name?: unknown; send?: unknown } | null;
    if (typeof notifier !== 'object' || notifier === null || typeof notifier.send !== 'function') {
      throw new ElicitationConfigError(`notify[${i}]`, 'must be a notifier: an object with a name and a send(notice, contact) function', {
        value: n,
      });
    }
    if (typeof notifier.name !== 'string' || !NOTIFIER_NAME.test(notifier.name)) {
      throw new ElicitationConfigError(`notify[${i}].name`, 'must be 1 to 40 letters, digits, "-" or "_"', { value: notifier.name });
    }
    if (names.has(notifier.name)) {
      throw new ElicitationConfigError(`notify[${i}].name`, 'must be unique among the notifiers (give each a name of its own)', {
        value: notifier.name,
      });
    }
    names.add(notifier.name);
  });
  for (const key of ['resolveContact', 'escalateTo'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'function') {
      throw new ElicitationConfigError(key, 'must be a function of the user id', { value: raw[key] });
    }
  }
  const reminders = raw.reminders ?? [];
  if (!Array.isArray(reminders))
    throw new ElicitationConfigError('reminders', 'must be a list such as [{ beforeExpiryMs: 3600000 }]', { value: reminders });
  const checked = reminders.map((r: unknown, i) => ({
    beforeExpiryMs: positiveMs(`reminders[${i}].beforeExpiryMs`, (r as { beforeExpiryMs?: unknown } | null)?.beforeExpiryMs, NaN),
  }));
  const outbox = resolveOutbox(raw.outbox ?? {});
  return Object.freeze({
    notifiers: Object.freeze(notifiers.slice() as ElicitationNotifier[]),
    ...(raw.resolveContact && { resolveContact: raw.resolveContact }),
    reminders: Object.freeze(checked.sort((a, b) => b.beforeExpiryMs - a.beforeExpiryMs)),
    ...(raw.escalateTo && { escalateTo: raw.escalateTo }),
    outbox,
  });
}

function resolveOutbox(raw: ElicitationOutboxOptions): Readonly<Required<ElicitationOutboxOptions>> {
  const d = OUTBOX_DEFAULTS;
  const outbox = {
    pollIntervalMs: positiveMs('outbox.pollIntervalMs', raw.pollIntervalMs, d.pollIntervalMs),
    batchSize: positiveCount('outbox.batchSize', raw.batchSize, d.batchSize),
    leaseMs: positiveMs('outbox.leaseMs', raw.leaseMs, d.leaseMs),
    sendTimeoutMs: positiveMs('outbox.sendTimeoutMs', raw.sendTimeoutMs, d.sendTimeoutMs),
    maxAttempts: positiveCount('outbox.maxAttempts', raw.maxAttempts, d.maxAttempts),
    retryBaseMs: positiveMs('outbox.retryBaseMs', raw.retryBaseMs, d.retryBaseMs),
    retryMaxMs: positiveMs('outbox.retryMaxMs', raw.retryMaxMs, d.retryMaxMs),
    createdDelayMs: positiveMs('outbox.createdDelayMs', raw.createdDelayMs, d.createdDelayMs, true),
    healthMaxAgeMs: positiveMs('outbox.healthMaxAgeMs', raw.healthMaxAgeMs, d.healthMaxAgeMs),
  };
  if (outbox.sendTimeoutMs >= outbox.leaseMs) {
    throw new ElicitationConfigError(
      'outbox.sendTimeoutMs',
      `must be less than outbox.leaseMs (${outbox.leaseMs} ms), so that a claim outlives a send`,
      {
        value: outbox.sendTimeoutMs,
      },
    );
  }
  if (outbox.batchSize > 500) throw new ElicitationConfigError('outbox.batchSize', 'must be at most 500', { value: outbox.batchSize });
  return Object.freeze(outbox);
}
