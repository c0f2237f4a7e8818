import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import type { ElicitationContact, ElicitationNotice, ElicitationNotifier } from '../../src/core/notice.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { NoticeOutbox } from '../../src/notify/notice-outbox.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { compileElicitation } from '../support/testing-module.js';

/** A notifier that records what it was sent, failing its first `failures` sends. */
function recorder(name = 'rec', failures = 0) {
  const sent: Array<{ notice: ElicitationNotice; contact: ElicitationContact }> = [];
  let calls = 0;
  const notifier: ElicitationNotifier = {
    name,
    send(notice, contact) {
      calls++;
      if (calls <= failures) return Promise.reject(new Error(`receiver down (${calls})`));
      sent.push({ notice, contact });
      return Promise.resolve();
    },
  };
  return { notifier, sent, calls: () => calls };
}

const until = async (check: () => boolean, ms = 8_000) => {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
};

const FAST = { pollIntervalMs: 25, retryBaseMs: 30, retryMaxMs: 100, leaseMs: 2_000, sendTimeoutMs: 500 };

describe('notifications through the outbox (memory store)', () => {
  let moduleRef: TestingModule | undefined;
  afterEach(async () => {
    await moduleRef?.close();
    moduleRef = undefined;
  });

  it('sends created, the reminder and expired once each, to the contact resolveContact gives, with the link and no answer', async () => {
    const rec = recorder();
    moduleRef = await compileElicitation({
      notify: [rec.notifier],
      reminders: [{ beforeExpiryMs: 700 }],
      resolveContact: (userId) => ({ email: `${userId}@example.com`, locale: 'de' }),
      outbox: FAST,
    });
    const service = moduleRef.get(ElicitationService);
    const { elicitationId, url } = await service.createUrlElicitation({
      kind: 'confirm',
      message: 'Deploy v2 to production?',
      userId: 'alice',
      ttlMs: 1_000,
      metadata: { askedBy: { tool: 'deploy', client: 'inspector' } },
    });
    await until(() => rec.sent.length >= 3);
    await new Promise((r) => setTimeout(r, 300));
    expect(rec.sent.map((s) => s.notice.event)).toEqual(['created', 'reminder', 'expired']);
    const [created, reminder, expired] = rec.sent.map((s) => s.notice);
    expect(created).toMatchObject({
      event: 'created',
      elicitationId,
      userId: 'alice',
      kind: 'confirm',
      message: 'Deploy v2 to production?',
      url,
      inboxUrl: 'https://mcp.example.com/elicit/inbox',
      askedBy: { tool: 'deploy', client: 'inspector' },
    });
    expect(reminder).toMatchObject({ beforeExpiryMs: 700, url });
    expect(expired.url).toBeUndefined();
    expect(new Set(rec.sent.map((s) => s.notice.id)).size).toBe(3);
    expect(rec.sent[0].contact).toEqual({ email: 'alice@example.com', locale: 'de' });
    const stats = moduleRef.get(NoticeOutbox).state;
    expect(stats).toMatchObject({ pending: 0, failed: 0, delivered: 3 });
  });

  it('sends no reminder and no expiry for a question answered in time', async () => {
    const rec = recorder();
    moduleRef = await compileElicitation({ notify: [rec.notifier], reminders: [{ beforeExpiryMs: 400 }], outbox: FAST });
    const service = moduleRef.get(ElicitationService);
    const { elicitationId } = await service.createUrlElicitation({ kind: 'confirm', message: 'Go?', userId: 'alice', ttlMs: 800 });
    await until(() => rec.sent.length === 1);
    await service.complete(elicitationId, { confirmed: true });
    // Past the expiry and its notice's grace: the reminder and the expiry notice were due, and were dropped.
    await new Promise((r) => setTimeout(r, 2_200));
    expect(rec.sent.map((s) => s.notice.event)).toEqual(['created']);
    const store = moduleRef.get(ElicitationStore);
    await expect(store.noticeStats!(Date.now())).resolves.toMatchObject({ pending: 0, failed: 0, delivered: 1 });
  });

  it('retries a notifier that fails three times, with backoff, and delivers once with the same id', async () => {
    const rec = recorder('flaky', 3);
    moduleRef = await compileElicitation({ notify: [rec.notifier], outbox: FAST });
    await moduleRef.get(ElicitationService).createUrlElicitation({ kind: 'confirm', message: 'Go?', userId: 'bob', ttlMs: 60_000 });
    await until(() => rec.sent.length === 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(rec.calls()).toBe(4);
    expect(rec.sent).toHaveLength(1);
    expect(rec.sent[0].contact).toEqual({});
  });

  it('gives a notice up after outbox.maxAttempts and counts it failed', async () => {
    const rec = recorder('down', 1_000);
    moduleRef = await compileElicitation({ notify: [rec.notifier], outbox: { ...FAST, maxAttempts: 3 } });
    await moduleRef.get(ElicitationService).createUrlElicitation({ kind: 'confirm', message: 'Go?', userId: 'bob', ttlMs: 60_000 });
    const store = moduleRef.get(ElicitationStore);
    await until(() => rec.calls() >= 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(rec.calls()).toBe(3);
    // The created notice given up; the expiry's notice waits for its time.
    await expect(store.noticeStats!(Date.now())).resolves.toMatchObject({ pending: 1, failed: 1, delivered: 0 });
  });

  it('escalates the last reminder to escalateTo\'s contact as well, and moves a reminder with "Need more time?"', async () => {
    const rec = recorder();
    moduleRef = await compileElicitation({
      notify: [rec.notifier],
      reminders: [{ beforeExpiryMs: 1_500 }, { beforeExpiryMs: 600 }],
      escalateTo: (userId) => (userId === 'alice' ? 'carol' : undefined),
      resolveContact: (userId) => ({ name: userId }),
      extendMs: 1_000,
      outbox: FAST,
    });
    const service = moduleRef.get(ElicitationService);
    const { elicitationId } = await service.createUrlElicitation({ kind: 'confirm', message: 'Go?', userId: 'alice', ttlMs: 2_000 });
    await until(() => rec.sent.some((s) => s.notice.event === 'reminder'));
    const extended = await service.extend(elicitationId);
    expect(extended.ok).toBe(true);
    await until(() => rec.sent.filter((s) => s.notice.event === 'reminder').length === 3, 6_000);
    const reminders = rec.sent.filter((s) => s.notice.event === 'reminder');
    expect(reminders.map((s) => [s.notice.beforeExpiryMs, s.notice.escalated ?? false, s.contact.name])).toEqual([
      [1_500, false, 'alice'],
      [600, false, 'alice'],
      [600, true, 'carol'],
    ]);
    // The 600 ms reminders went out against the new expiry.
    const newExpiry = Date.parse(reminders[1].notice.expiresAt);
    expect(newExpiry - Date.parse(rec.sent[0].notice.expiresAt)).toBe(1_000);
    await service.cancel(elicitationId);
  });

  it('keeps delivering beside a slow receiver: a send that hangs holds one slot, not the instance', async () => {
    const fast = recorder('fast');
    let hanging = 0;
    const slow: ElicitationNotifier = {
      name: 'slow',
      send: () => {
        hanging++;
        return new Promise((resolve) => setTimeout(resolve, 2_000));
      },
    };
    moduleRef = await compileElicitation({ notify: [slow, fast.notifier], outbox: { ...FAST, leaseMs: 5_000, sendTimeoutMs: 3_000 } });
    const service = moduleRef.get(ElicitationService);
    await service.createUrlElicitation({ kind: 'confirm', message: 'First?', userId: 'alice', ttlMs: 60_000 });
    await until(() => hanging === 1 && fast.sent.length === 1);
    const start = Date.now();
    await service.createUrlElicitation({ kind: 'confirm', message: 'Second?', userId: 'alice', ttlMs: 60_000 });
    await until(() => fast.sent.length === 2);
    // Well before the first slow send ends (2 s): the second question's fast notice did not wait for it.
    expect(Date.now() - start).toBeLessThan(1_500);
    expect(hanging).toBe(2);
    await moduleRef.get(NoticeOutbox).settled();
  });

  it('refuses notify on a store without an outbox, naming the option and what the store lacks', async () => {
    class NoOutbox extends MemoryElicitationStore {}
    for (const m of ['addNotices', 'claimNotices', 'settleNotice', 'noticeStats'] as const)
      Object.defineProperty(NoOutbox.prototype, m, { value: undefined });
    const error = await compileElicitation({ notify: [recorder().notifier], store: new NoOutbox() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ElicitationConfigError);
    expect(String((error as Error).message)).toMatch(/notify.*NoOutbox lacks addNotices, claimNotices, settleNotice, noticeStats/s);
  });

  it('checks the options: notifier names, unique; reminders; outbox', async () => {
    const bad = async (options: object) => ((await compileElicitation(options).catch((e: unknown) => e)) as Error).message;
    expect(await bad({ notify: [{ name: 'a b', send: () => Promise.resolve() }] })).toMatch(/notify\[0\]\.name/);
    expect(await bad({ notify: [recorder('x').notifier, recorder('x').notifier] })).toMatch(/notify\[1\]\.name.*unique/s);
    expect(await bad({ notify: [{ name: 'x' }] })).toMatch(/notify\[0\].*send/s);
    expect(await bad({ reminders: [{ beforeExpiryMs: -1 }] })).toMatch(/reminders\[0\]\.beforeExpiryMs/);
    expect(await bad({ outbox: { sendTimeoutMs: 5_000, leaseMs: 1_000 } })).toMatch(/outbox\.sendTimeoutMs/);
    expect(await bad({ outbox: { pollIntervalMS: 5 } })).toMatch(/outbox\.pollIntervalMS.*pollIntervalMs/s);
  });

  it('does nothing without notifiers: no notice kept', async () => {
    moduleRef = await compileElicitation({});
    await moduleRef.get(ElicitationService).createUrlElicitation({ kind: 'confirm', message: 'Go?', userId: 'bob' });
    await expect(moduleRef.get(ElicitationStore).noticeStats!(Date.now())).resolves.toMatchObject({ pending: 0 });
  });
});
