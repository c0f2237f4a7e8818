/**
 * "Need more time?" (#16, Time) in the service: the arithmetic (`extendMs`, by default the elicitation's own
 * lifetime, never past twice that lifetime after creation), once per elicitation, the refusals, the event and the
 * audit record, waits that follow the new expiry, and the hosted form's attempt count across an extension.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { MAX_TIMER_MS } from '../../src/options/elicitation.constants.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import type { ElicitationEvent, ElicitationRecord } from '../../src/core/elicitation.types.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { ElicitationEvents } from '../../src/events/elicitation-events.js';
import type { ElicitationAuditRecord } from '../../src/options/audit-record.js';
import { ElicitationWaiters } from '../../src/lifecycle/elicitation-waiters.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { pendingRecord } from '../../src/testing/index.js';
import { compileElicitation } from '../support/testing-module.js';

/** Resolves once `check` holds, polling; fails after `ms`. */
async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('ElicitationService.extend', () => {
  let ref: TestingModule | undefined;
  let service: ElicitationService;
  let records: ElicitationRecords;
  let events: ElicitationEvent[];
  let audit: ElicitationAuditRecord[];

  async function start(options: Partial<ElicitationModuleOptions> = {}): Promise<void> {
    audit = [];
    ref = await compileElicitation({ ttlMs: 60_000, retentionMs: 30_000, audit: (r) => void audit.push(r), ...options });
    service = ref.get(ElicitationService);
    records = ref.get(ElicitationRecords);
    events = [];
    ref.get(ElicitationEvents).subscribe((e) => events.push(e));
  }
  afterEach(async () => {
    await ref?.close();
    ref = undefined;
  });

  const create = (ttlMs: number, kind: 'api-key' | 'form' = 'api-key') =>
    service.createUrlElicitation({
      kind,
      message: 'Need a key',
      userId: 'alice',
      ttlMs,
      ...(kind === 'form' && { form: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] } }),
    });
  const record = async (id: string) => (await records.read(id))!;

  describe('the new expiry', () => {
    it('adds the elicitation its own lifetime by default, which is also the cap: twice the lifetime after creation', async () => {
      await start();
      const { elicitationId } = await create(10_000);
      const before = await record(elicitationId);
      const result = await service.extend(elicitationId);
      expect(result.ok).toBe(true);
      const after = await record(elicitationId);
      expect(after.expiresAt).toBe(before.expiresAt + 10_000);
      expect(after.expiresAt).toBe(before.createdAt + 20_000);
      expect(after.purgeAt).toBe(before.purgeAt + 10_000);
      expect(after).toMatchObject({ status: 'pending', extendedFrom: before.expiresAt });
      expect(after.extendedAt).toBeGreaterThanOrEqual(before.createdAt);
      expect(result.ok && result.record.expiresAt).toBe(after.expiresAt);
    });

    it('adds extendMs when it stays within twice the lifetime', async () => {
      await start({ extendMs: 3_000 });
      const { elicitationId } = await create(10_000);
      const before = await record(elicitationId);
      await service.extend(elicitationId);
      expect((await record(elicitationId)).expiresAt).toBe(before.expiresAt + 3_000);
    });

    it('never goes past twice the lifetime after creation, whatever extendMs says', async () => {
      await start({ extendMs: 50_000 });
      const { elicitationId } = await create(10_000);
      const before = await record(elicitationId);
      await service.extend(elicitationId);
      expect((await record(elicitationId)).expiresAt).toBe(before.createdAt + 20_000);
    });

    it('shows in the status view and in the list', async () => {
      await start();
      const { elicitationId, expiresAt } = await create(10_000);
      const result = await service.extend(elicitationId);
      if (!result.ok) throw new Error(`not extended: ${result.reason}`);
      const iso = new Date(result.record.expiresAt).toISOString();
      expect(iso).not.toBe(expiresAt.toISOString());
      expect(await service.getStatus(elicitationId)).toMatchObject({ status: 'pending', expiresAt: iso });
      expect((await service.list({ userId: 'alice' }))[0].expiresAt).toBe(result.record.expiresAt);
    });
  });

  describe('once, and only while pending', () => {
    it('refuses a second extension, leaving the first expiry', async () => {
      await start();
      const { elicitationId } = await create(10_000);
      await service.extend(elicitationId);
      const first = await record(elicitationId);
      expect(await service.extend(elicitationId)).toEqual({ ok: false, reason: 'already-extended', record: first });
      expect(await record(elicitationId)).toEqual(first);
      expect(events.filter((e) => e.type === 'extended')).toHaveLength(1);
    });

    it('lets one of several racing extensions win', async () => {
      await start();
      const { elicitationId } = await create(10_000);
      const results = await Promise.all(Array.from({ length: 5 }, () => service.extend(elicitationId)));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok && r.reason === 'already-extended')).toHaveLength(4);
    });

    it('refuses a finished, an unknown and a malformed id', async () => {
      await start();
      const { elicitationId } = await create(10_000);
      await service.decline(elicitationId);
      expect(await service.extend(elicitationId)).toMatchObject({ ok: false, reason: 'already-finished', status: 'declined' });
      expect(await service.extend('1b4e28ba-2fa1-41d2-883f-0016d3cca427')).toEqual({ ok: false, reason: 'not-found' });
      expect(await service.extend('../etc/passwd')).toEqual({ ok: false, reason: 'not-found' });
      expect(events.filter((e) => e.type === 'extended')).toEqual([]);
    });

    it('refuses an overdue elicitation and expires it, once', async () => {
      await start();
      const { elicitationId, expiresAt } = await create(30);
      await until(() => Date.now() > expiresAt.getTime());
      expect(await service.extend(elicitationId)).toMatchObject({ ok: false, reason: 'expired', record: { status: 'expired' } });
      expect(events.filter((e) => e.type === 'expired')).toHaveLength(1);
      expect(await service.extend(elicitationId)).toMatchObject({ ok: false, reason: 'already-finished', status: 'expired' });
    });

    it('says unsupported on a store without extend', async () => {
      const store = new MemoryElicitationStore();
      Object.defineProperty(store, 'extend', { value: undefined });
      await start({ store });
      const { elicitationId } = await create(10_000);
      expect(await service.extend(elicitationId)).toEqual({ ok: false, reason: 'unsupported' });
    });
  });

  it('announces the extension: the extended event with the new expiresAt, and an audit record', async () => {
    await start();
    const { elicitationId } = await create(10_000);
    const result = await service.extend(elicitationId);
    if (!result.ok) throw new Error(`not extended: ${result.reason}`);
    const extended = events.filter((e) => e.type === 'extended');
    expect(extended).toEqual([
      expect.objectContaining({ elicitationId, userId: 'alice', kind: 'api-key', expiresAt: result.record.expiresAt }),
    ]);
    expect(extended[0].at).toBe(result.record.extendedAt);
    expect(audit.filter((r) => r.event === 'extended')).toEqual([
      expect.objectContaining({ event: 'extended', outcome: 'success', elicitationId, kind: 'api-key', userId: 'alice' }),
    ]);
    // The created event carries no expiry: only an extension does.
    expect(events.find((e) => e.type === 'created')).not.toHaveProperty('expiresAt');
  });

  describe('waits', () => {
    it('a wait without timeout follows the new expiry: still waiting past the old one, answered after it', async () => {
      await start();
      const { elicitationId, expiresAt } = await create(300);
      let outcome: unknown;
      const wait = service.waitForCompletion(elicitationId).then((o) => (outcome = o));
      await service.extend(elicitationId);
      await until(() => Date.now() > expiresAt.getTime() + 100);
      expect(outcome).toBeUndefined();
      expect((await service.complete(elicitationId, { apiKey: 'late' })).ok).toBe(true);
      await wait;
      expect(outcome).toEqual({ status: 'completed', data: { apiKey: 'late' } });
    });

    it('a wait without timeout ends expired at the new expiry', async () => {
      await start({ extendMs: 200 });
      const { elicitationId } = await create(200);
      const wait = service.waitForCompletion(elicitationId);
      const result = await service.extend(elicitationId);
      if (!result.ok) throw new Error(`not extended: ${result.reason}`);
      await expect(wait).resolves.toEqual({ status: 'expired' });
      expect(Date.now()).toBeGreaterThanOrEqual(result.record.expiresAt);
    });

    it("a wait's own timeout still counts when the extension goes past it", async () => {
      await start();
      const { elicitationId, expiresAt } = await create(300);
      const started = Date.now();
      const wait = service.waitForCompletion(elicitationId, { timeoutMs: 450 });
      await service.extend(elicitationId);
      // Without the extension the wait would have ended expired at 300 ms; extended to 600 ms, its timeout (450 ms)
      // comes first.
      await expect(wait).resolves.toEqual({ status: 'timeout' });
      expect(Date.now()).toBeGreaterThan(expiresAt.getTime());
      expect(Date.now() - started).toBeGreaterThanOrEqual(440);
      expect((await service.getStatus(elicitationId))!.status).toBe('pending');
    });
  });

  it("keeps the hosted form's invalid-attempt count across an extension", async () => {
    await start({ limits: { createPerMinute: 100, maxPendingPerUser: 100, maxFormAttempts: 3 } });
    const { elicitationId } = await create(10_000, 'form');
    expect(await records.recordInvalidFormAttempt(await record(elicitationId))).toEqual({ attemptsLeft: 2 });
    expect(await records.recordInvalidFormAttempt(await record(elicitationId))).toEqual({ attemptsLeft: 1 });
    expect((await service.extend(elicitationId)).ok).toBe(true);
    const third = await records.recordInvalidFormAttempt(await record(elicitationId));
    expect(third).toMatchObject({ attemptsLeft: 0, declined: { ok: true } });
  });
});

describe('ElicitationWaiters and an extended event from another instance', () => {
  const ID = '5f0c2d3e-8a41-4b6f-9c1d-2e3f4a5b6c7d';
  /** Alice's pending confirm request `ID`, created at `createdAt`, expiring at `expiresAt`. */
  const confirmRecord = (createdAt: number, expiresAt: number): ElicitationRecord =>
    pendingRecord({ id: ID, kind: 'confirm', type: 'confirm', userId: 'alice', message: 'Deploy?', metadata: {}, createdAt, expiresAt });

  it('re-arms the expiry of a wait at the new expiresAt, without a store read', async () => {
    const created = Date.now();
    let current = confirmRecord(created, created + 150);
    let reads = 0;
    const waiters = new ElicitationWaiters({
      current: () => {
        reads++;
        // An overdue pending record reads as expired, as the service's getRecord makes it.
        if (current.status === 'pending' && Date.now() >= current.expiresAt) current = { ...current, status: 'expired' };
        return Promise.resolve(current);
      },
      stored: () => Promise.resolve(current),
      outcome: (r) => ({ status: r.status as 'expired' }),
    });
    let outcome: unknown;
    const wait = waiters.wait(ID).then((o) => (outcome = o));
    await until(() => reads === 1);
    // Another instance extended it: the store has the new expiry, and the event tells this one.
    const expiresAt = created + 600;
    current = { ...current, expiresAt, extendedAt: created + 1, extendedFrom: created + 150 };
    waiters.remote({
      type: 'extended',
      elicitationId: ID,
      userId: 'alice',
      kind: 'confirm',
      elicitationType: 'confirm',
      at: created + 1,
      expiresAt,
    });
    await until(() => Date.now() > created + 300);
    expect(outcome).toBeUndefined();
    expect(reads).toBe(1);
    await wait;
    expect(outcome).toEqual({ status: 'expired' });
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(waiters.size).toBe(0);
  });

  it('ignores an extended event for an id nobody waits on, and one that would shorten the wait', async () => {
    const created = Date.now();
    const pending = confirmRecord(created, created + 60_000);
    let reads = 0;
    const waiters = new ElicitationWaiters({
      current: () => {
        reads++;
        return Promise.resolve(pending);
      },
      stored: () => Promise.resolve(pending),
      outcome: () => ({ status: 'expired' }),
    });
    const event = { type: 'extended', userId: 'alice', kind: 'confirm', elicitationType: 'confirm', at: created } as const;
    waiters.remote({ ...event, elicitationId: '1b4e28ba-2fa1-41d2-883f-0016d3cca427', expiresAt: created + 1 });
    let outcome: unknown;
    const wait = waiters.wait(ID, { timeoutMs: 300 }).then((o) => (outcome = o));
    await until(() => waiters.size === 1);
    await new Promise((r) => setImmediate(r));
    waiters.remote({ ...event, elicitationId: ID, expiresAt: created + 10 });
    await wait;
    // Its timeout ended it; the earlier "expiry" the event named armed no timer (which would have read the record).
    expect(outcome).toEqual({ status: 'timeout' });
    expect(Date.now() - created).toBeGreaterThanOrEqual(290);
    expect(reads).toBe(1);
  });
});

describe('the extendMs option', () => {
  const resolve = (extendMs: unknown) =>
    resolveElicitationOptions({ baseUrl: 'https://mcp.example.com', extendMs } as ElicitationModuleOptions, 'elicit', {}).options.extendMs;

  it('is optional (the elicitation’s own lifetime) and takes a positive whole number of ms', () => {
    expect(resolve(undefined)).toBeUndefined();
    expect(resolve(120_000)).toBe(120_000);
    expect(resolve(MAX_TIMER_MS)).toBe(MAX_TIMER_MS);
    // As every duration option: digits in a string (an environment variable) are read as the number.
    expect(resolve('60000')).toBe(60_000);
  });

  it.each([0, -1, 1.5, MAX_TIMER_MS + 1, '1e3', null, Number.NaN])('refuses %p naming the option', (value) => {
    const error = (() => {
      try {
        resolve(value);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ElicitationConfigError);
    expect((error as Error).message).toContain('"extendMs"');
  });
});
