import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import { ElicitationTransitions } from '../../src/lifecycle/elicitation-transitions.js';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { ElicitationInputError } from '../../src/errors/elicitation-input.error.js';
import { ElicitationNotFoundError } from '../../src/errors/elicitation-not-found.error.js';
import { ElicitationEvents } from '../../src/events/elicitation-events.js';
import { buildForm } from '../../src/forms/define-form.js';
import { ElicitationStore, type ElicitationEventChannel } from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { compileElicitation } from '../support/testing-module.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('ElicitationService', () => {
  let ref: TestingModule;
  let service: ElicitationService;
  let records: ElicitationRecords;
  let events: ElicitationEvent[];
  let stopListening: () => void;

  beforeEach(async () => {
    ref = await compileElicitation({ ttlMs: 60_000, retentionMs: 30_000 });
    service = ref.get(ElicitationService);
    records = ref.get(ElicitationRecords);
    events = [];
    stopListening = ref.get(ElicitationEvents).subscribe((e) => events.push(e));
  });
  afterEach(async () => {
    stopListening();
    await ref.close();
  });

  const createKey = (extra: Partial<Parameters<ElicitationService['createUrlElicitation']>[0]> = {}) =>
    service.createUrlElicitation({ kind: 'api-key', message: 'Enter your GitHub key', userId: 'alice', type: 'api-key-github', ...extra });

  describe('createUrlElicitation', () => {
    it('returns an unguessable id, a URL holding only the id, and the expiry', async () => {
      const before = Date.now();
      const created = await createKey({ metadata: { service: 'github', email: 'alice@example.com' }, session: 'session-123' });
      expect(created.elicitationId).toMatch(UUID_V4);
      expect(created.url).toBe(`https://mcp.example.com/elicit/${created.elicitationId}/api-key`);
      expect(created.url).not.toMatch(/alice|github|session-123/);
      expect(created.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 60_000);
      expect(created.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
      expect(events).toEqual([
        expect.objectContaining({
          type: 'created',
          elicitationId: created.elicitationId,
          userId: 'alice',
          kind: 'api-key',
          elicitationType: 'api-key-github',
          sessionId: 'session-123',
        }),
      ]);
    });

    it('never repeats an id', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 500; i++) ids.add((await createKey()).elicitationId);
      expect(ids.size).toBe(500);
    });

    it('honours a per-call ttlMs and defaults the type to the kind', async () => {
      const created = await service.createUrlElicitation({ kind: 'confirm', message: 'Sure?', userId: 'alice', ttlMs: 5_000 });
      expect(created.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(5_000);
      const [summary] = await service.list({ userId: 'alice' });
      expect(summary.type).toBe('confirm');
    });

    it.each([
      ['kind', { kind: 'password' }],
      ['message', { message: '' }],
      ['message', { message: 'x'.repeat(2001) }],
      ['userId', { userId: '' }],
      ['type', { type: '' }],
      ['metadata', { metadata: [] }],
      ['ttlMs', { ttlMs: 0 }],
      ['session', { session: 42 }],
      ['metadata.warning', { kind: 'confirm', metadata: { warning: { html: true } } }],
    ])('refuses a bad %s with ElicitationInputError and stores nothing', async (field, patch) => {
      const error = await createKey(patch as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ElicitationInputError);
      expect((error as ElicitationInputError).field).toBe(field);
      expect(await service.list({ userId: 'alice' })).toEqual([]);
    });
  });

  describe('status, result and lookups', () => {
    it('reports status without any submitted data', async () => {
      const { elicitationId } = await createKey();
      await service.complete(elicitationId, { apiKey: 'sk-live-SECRET' });
      const view = await service.getStatus(elicitationId);
      expect(view).toEqual({
        elicitationId,
        status: 'completed',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        completed: true,
      });
      expect(JSON.stringify(view)).not.toContain('SECRET');
      expect(JSON.stringify(await service.list({ userId: 'alice' }))).not.toContain('SECRET');
      expect(JSON.stringify(events)).not.toContain('SECRET');
    });

    it('answers undefined for unknown and malformed ids without touching the store', async () => {
      const store = ref.get<ElicitationStore, MemoryElicitationStore>(ElicitationStore);
      let reads = 0;
      const get = store.get.bind(store);
      store.get = async (...args) => (reads++, get(...args));
      expect(await service.getStatus('not-an-id')).toBeUndefined();
      expect(await service.getStatus('../../etc/passwd')).toBeUndefined();
      expect(reads).toBe(0);
      expect(await service.getStatus('1b4e28ba-2fa1-41d2-883f-0016d3cca427')).toBeUndefined();
      expect(reads).toBe(1);
    });

    it('gives getResult per state', async () => {
      const a = await createKey();
      expect(await service.getResult(a.elicitationId)).toEqual({ status: 'pending' });
      await service.complete(a.elicitationId, { apiKey: 'k1' });
      expect(await service.getResult(a.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'k1' } });
      const b = await createKey();
      await service.decline(b.elicitationId);
      expect(await service.getResult(b.elicitationId)).toEqual({ status: 'declined' });
      const c = await createKey();
      await service.cancel(c.elicitationId);
      expect(await service.getResult(c.elicitationId)).toEqual({ status: 'cancelled' });
      expect(await service.getResult('1b4e28ba-2fa1-41d2-883f-0016d3cca427')).toBeUndefined();
    });

    it('findByUserAndType returns the latest completed answer of that user only', async () => {
      expect(await service.findByUserAndType('alice', 'api-key-github')).toBeUndefined();
      const first = await createKey();
      const second = await createKey();
      await service.complete(first.elicitationId, { apiKey: 'old' });
      await new Promise((r) => setTimeout(r, 5));
      await service.complete(second.elicitationId, { apiKey: 'new' });
      const bob = await createKey({ userId: 'bob' });
      await service.complete(bob.elicitationId, { apiKey: 'bobs' });
      const found = await service.findByUserAndType('alice', 'api-key-github');
      expect(found).toMatchObject({ elicitationId: second.elicitationId, data: { apiKey: 'new' } });
      expect(found!.completedAt).toBeInstanceOf(Date);
      expect(await service.findByUserAndType('alice', 'api-key-gitlab')).toBeUndefined();
    });

    it("lists a user's elicitations, filterable by status", async () => {
      const a = await createKey();
      const b = await service.createUrlElicitation({ kind: 'confirm', message: 'Deploy?', userId: 'alice' });
      await createKey({ userId: 'bob' });
      await service.decline(b.elicitationId);
      const all = await service.list({ userId: 'alice' });
      expect(all.map((s) => [s.elicitationId, s.status])).toEqual([
        [a.elicitationId, 'pending'],
        [b.elicitationId, 'declined'],
      ]);
      expect((await service.list({ userId: 'alice', status: 'pending' })).map((s) => s.elicitationId)).toEqual([a.elicitationId]);
    });
  });

  describe('transitions', () => {
    it('leaves pending exactly once: a second completion is refused and the first value kept', async () => {
      const { elicitationId } = await createKey();
      expect(await service.complete(elicitationId, { apiKey: 'first' })).toMatchObject({ ok: true });
      expect(await service.complete(elicitationId, { apiKey: 'second' })).toMatchObject({
        ok: false,
        reason: 'already-finished',
        status: 'completed',
      });
      expect(await service.decline(elicitationId)).toMatchObject({ ok: false, reason: 'already-finished' });
      expect(await service.cancel(elicitationId)).toMatchObject({ ok: false, reason: 'already-finished' });
      expect(await service.getResult(elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'first' } });
      expect(events.filter((e) => e.type !== 'created').map((e) => e.type)).toEqual(['completed']);
    });

    it('lets exactly one of 100 concurrent completions win, with one event', async () => {
      const { elicitationId } = await createKey();
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => service.complete(elicitationId, { apiKey: `k${i}` })));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = results.find((r) => r.ok) as { ok: true; record: { data?: Record<string, unknown> } };
      expect(await service.getResult(elicitationId)).toEqual({ status: 'completed', data: winner.record.data });
      expect(events.filter((e) => e.type === 'completed')).toHaveLength(1);
    });

    it('races complete against decline and cancel: one outcome, one event', async () => {
      const { elicitationId } = await createKey();
      const results = await Promise.all([
        service.decline(elicitationId),
        service.complete(elicitationId, { apiKey: 'x' }),
        service.cancel(elicitationId),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(events.filter((e) => e.type !== 'created')).toHaveLength(1);
    });

    it('answers not-found for unknown and malformed ids', async () => {
      expect(await service.complete('nope', { a: 1 })).toEqual({ ok: false, reason: 'not-found' });
      expect(await service.decline('1b4e28ba-2fa1-41d2-883f-0016d3cca427')).toEqual({ ok: false, reason: 'not-found' });
    });

    it('expires lazily on read, emitting expired once, and refuses a late completion', async () => {
      const { elicitationId } = await createKey({ ttlMs: 20 });
      await new Promise((r) => setTimeout(r, 40));
      expect(await service.complete(elicitationId, { apiKey: 'late' })).toMatchObject({ ok: false, reason: 'expired' });
      expect((await service.getStatus(elicitationId))!.status).toBe('expired');
      expect((await service.getStatus(elicitationId))!.status).toBe('expired');
      expect(events.filter((e) => e.type === 'expired')).toHaveLength(1);
      expect(await service.getResult(elicitationId)).toEqual({ status: 'expired' });
    });

    it('sweep(now) expires overdue records and announces them', async () => {
      const a = await createKey();
      const b = await createKey();
      await service.complete(b.elicitationId, { apiKey: 'k' });
      expect(await service.sweep(Date.now() + 61_000)).toBe(1);
      expect(events.filter((e) => e.type === 'expired').map((e) => e.elicitationId)).toEqual([a.elicitationId]);
      expect(await service.sweep(Date.now() + 61_000)).toBe(0);
    });
  });

  describe('recordInvalidFormAttempt', () => {
    const createForm = () =>
      service.createUrlElicitation({
        kind: 'form',
        form: buildForm({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }),
        message: 'Tell us your name',
        userId: 'alice',
      });

    it('counts invalid answers and declines on the limits.maxFormAttempts-th (default 3)', async () => {
      const { elicitationId } = await createForm();
      const record = (await records.read(elicitationId))!;
      expect(await records.recordInvalidFormAttempt(record)).toEqual({ attemptsLeft: 2 });
      expect(await records.recordInvalidFormAttempt(record)).toEqual({ attemptsLeft: 1 });
      const third = await records.recordInvalidFormAttempt(record);
      expect(third).toMatchObject({ attemptsLeft: 0, declined: { ok: true, record: { status: 'declined' } } });
      expect(await service.getResult(elicitationId)).toEqual({ status: 'declined' });
      expect(events.filter((e) => e.type !== 'created').map((e) => e.type)).toEqual(['declined']);
      // A late attempt finds it finished: nothing is declined twice.
      expect(await records.recordInvalidFormAttempt(record)).toMatchObject({
        attemptsLeft: 0,
        declined: { ok: false, reason: 'already-finished', status: 'declined' },
      });
    });

    it('keeps one count per elicitation', async () => {
      const a = (await records.read((await createForm()).elicitationId))!;
      const b = (await records.read((await createForm()).elicitationId))!;
      expect(await records.recordInvalidFormAttempt(a)).toEqual({ attemptsLeft: 2 });
      expect(await records.recordInvalidFormAttempt(a)).toEqual({ attemptsLeft: 1 });
      expect(await records.recordInvalidFormAttempt(b)).toEqual({ attemptsLeft: 2 });
    });
  });

  describe('waitForCompletion', () => {
    it('resolves with the data when the user completes later', async () => {
      const { elicitationId } = await createKey();
      const wait = service.waitForCompletion(elicitationId);
      setTimeout(() => void service.complete(elicitationId, { apiKey: 'typed' }), 10);
      await expect(wait).resolves.toEqual({ status: 'completed', data: { apiKey: 'typed' } });
    });

    it('resolves at once for an elicitation that already finished', async () => {
      const { elicitationId } = await createKey();
      await service.decline(elicitationId);
      await expect(service.waitForCompletion(elicitationId)).resolves.toEqual({ status: 'declined' });
    });

    it('resolves declined and cancelled outcomes', async () => {
      const a = await createKey();
      const b = await createKey();
      const waits = Promise.all([service.waitForCompletion(a.elicitationId), service.waitForCompletion(b.elicitationId)]);
      await service.decline(a.elicitationId);
      await service.cancel(b.elicitationId);
      await expect(waits).resolves.toEqual([{ status: 'declined' }, { status: 'cancelled' }]);
    });

    it('resolves expired when the elicitation expires while waiting', async () => {
      const { elicitationId } = await createKey({ ttlMs: 30 });
      await expect(service.waitForCompletion(elicitationId)).resolves.toEqual({ status: 'expired' });
      expect(events.filter((e) => e.type === 'expired')).toHaveLength(1);
    });

    it('resolves expired only once the record expired, when its timer fires before the wall clock reaches the expiry', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      try {
        const { elicitationId } = await createKey({ ttlMs: 1_000 });
        let outcome: unknown;
        const wait = service.waitForCompletion(elicitationId).then((o) => (outcome = o));
        await jest.advanceTimersByTimeAsync(0);
        // The wall clock falls 5 ms behind the timers (Date.now and timers run on different clocks).
        jest.setSystemTime(Date.now() - 5);
        await jest.advanceTimersByTimeAsync(1_000);
        expect(outcome).toBeUndefined();
        expect(events.filter((e) => e.type === 'expired')).toHaveLength(0);
        await jest.advanceTimersByTimeAsync(5);
        await wait;
        expect(outcome).toEqual({ status: 'expired' });
        expect(events.filter((e) => e.type === 'expired')).toHaveLength(1);
        expect(await service.getStatus(elicitationId)).toMatchObject({ status: 'expired' });
      } finally {
        jest.useRealTimers();
      }
    });

    it('resolves timeout when timeoutMs passes first, leaving the elicitation pending', async () => {
      const { elicitationId } = await createKey();
      await expect(service.waitForCompletion(elicitationId, { timeoutMs: 20 })).resolves.toEqual({ status: 'timeout' });
      expect((await service.getStatus(elicitationId))!.status).toBe('pending');
      expect(ref.get(ElicitationTransitions)['waiters'].size).toBe(0);
    });

    it('rejects with the abort reason when the signal aborts, and forgets the waiter', async () => {
      const { elicitationId } = await createKey();
      const controller = new AbortController();
      const wait = service.waitForCompletion(elicitationId, { signal: controller.signal });
      controller.abort(new Error('client went away'));
      await expect(wait).rejects.toThrow('client went away');
      expect(ref.get(ElicitationTransitions)['waiters'].size).toBe(0);
      const aborted = AbortSignal.abort(new Error('already'));
      await expect(service.waitForCompletion(elicitationId, { signal: aborted })).rejects.toThrow('already');
    });

    it('rejects for an unknown id with ElicitationNotFoundError, a plain error that does not repeat the id', async () => {
      const unknown = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
      await expect(service.waitForCompletion(unknown)).rejects.toThrow(/not found/);
      const error = await service.waitForCompletion(unknown).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ElicitationNotFoundError);
      expect(error).not.toHaveProperty('getStatus');
      expect(error).toMatchObject({ name: 'ElicitationNotFoundError', elicitationId: unknown });
      expect((error as Error).message).toContain('a UUID');
      expect((error as Error).message).not.toContain(unknown);
      const malformed = await service.waitForCompletion('not an id').catch((e: unknown) => e);
      expect(malformed).toMatchObject({ name: 'ElicitationNotFoundError', elicitationId: 'not an id' });
      expect(ref.get(ElicitationTransitions)['waiters'].size).toBe(0);
    });

    it('wakes every waiter of one id', async () => {
      const { elicitationId } = await createKey();
      const waits = Promise.all([1, 2, 3].map(() => service.waitForCompletion(elicitationId)));
      await service.complete(elicitationId, { apiKey: 'k' });
      expect(await waits).toEqual(Array(3).fill({ status: 'completed', data: { apiKey: 'k' } }));
    });

    it('wakes a waiter of a transition made here with the answer in hand, without reading the store again', async () => {
      const { elicitationId } = await createKey();
      const wait = service.waitForCompletion(elicitationId);
      await new Promise((r) => setTimeout(r, 5));
      const store = ref.get<ElicitationStore, MemoryElicitationStore>(ElicitationStore);
      let reads = 0;
      const get = store.get.bind(store);
      store.get = async (...args) => (reads++, get(...args));
      const answer = { apiKey: 'k' };
      await service.complete(elicitationId, answer);
      const outcome = await wait;
      expect(outcome).toEqual({ status: 'completed', data: { apiKey: 'k' } });
      expect(outcome.status === 'completed' && outcome.data).not.toBe(answer);
      expect(reads).toBe(0);
    });
  });

  describe('across instances (events through the store channel)', () => {
    /** A memory store whose event channel links the instances that share it, in process. */
    class LinkedMemoryStore extends MemoryElicitationStore {
      reads = 0;
      private readonly channels = new Set<(event: ElicitationEvent) => void>();
      override get(id: string, now: number) {
        this.reads++;
        return super.get(id, now);
      }
      override openEventChannel(onRemoteEvent: (event: ElicitationEvent) => void): Promise<ElicitationEventChannel> {
        this.channels.add(onRemoteEvent);
        return Promise.resolve({
          publish: (event) => {
            for (const deliver of this.channels) if (deliver !== onRemoteEvent) deliver(event);
            return Promise.resolve();
          },
          close: () => {
            this.channels.delete(onRemoteEvent);
            return Promise.resolve();
          },
        });
      }
    }
    let store: LinkedMemoryStore;
    let refA: TestingModule;
    let refB: TestingModule;
    beforeEach(async () => {
      store = new LinkedMemoryStore();
      const encryptionKey = Buffer.alloc(32, 7);
      refA = await compileElicitation({ store, encryptionKey });
      refB = await compileElicitation({ store, encryptionKey });
    });
    afterEach(async () => {
      await Promise.all([refA.close(), refB.close()]);
    });

    it('wakes a waiter on A when B completes, reading the answer once', async () => {
      const [a, b] = [refA.get(ElicitationService), refB.get(ElicitationService)];
      const { elicitationId } = await a.createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'alice' });
      const waits = Promise.all([a.waitForCompletion(elicitationId), a.waitForCompletion(elicitationId)]);
      await new Promise((r) => setTimeout(r, 5));
      store.reads = 0;
      expect(await b.complete(elicitationId, { apiKey: 'from-b' })).toMatchObject({ ok: true });
      expect(await waits).toEqual(Array(2).fill({ status: 'completed', data: { apiKey: 'from-b' } }));
      expect(store.reads).toBe(1);
      expect(refA.get(ElicitationTransitions)['waiters'].size).toBe(0);
    });

    it('wakes a waiter on A with the status a declined event from B carries, without a read', async () => {
      const [a, b] = [refA.get(ElicitationService), refB.get(ElicitationService)];
      const { elicitationId } = await a.createUrlElicitation({ kind: 'confirm', message: 'Deploy?', userId: 'alice' });
      const wait = a.waitForCompletion(elicitationId);
      await new Promise((r) => setTimeout(r, 5));
      store.reads = 0;
      await b.decline(elicitationId);
      await expect(wait).resolves.toEqual({ status: 'declined' });
      expect(store.reads).toBe(0);
    });

    it('gives remote-only listeners the events of the other instances, and every listener all of them', async () => {
      const eventsA = refA.get(ElicitationEvents);
      const listeners = eventsA.listenerCount;
      const remoteOnA: string[] = [];
      const allOnA: string[] = [];
      const stops = [eventsA.subscribeRemote((e) => remoteOnA.push(e.type)), eventsA.subscribe((e) => allOnA.push(e.type))];
      expect(eventsA.listenerCount).toBe(listeners + 2);
      const created = await refA.get(ElicitationService).createUrlElicitation({ kind: 'confirm', message: 'Ok?', userId: 'alice' });
      await refB.get(ElicitationService).cancel(created.elicitationId);
      expect(remoteOnA).toEqual(['cancelled']);
      expect(allOnA).toEqual(['created', 'cancelled']);
      stops.forEach((stop) => stop());
      expect(eventsA.listenerCount).toBe(listeners);
    });
  });

  it('keeps working when an event listener throws', async () => {
    const stop = ref.get(ElicitationEvents).subscribe(() => {
      throw new Error('listener bug');
    });
    const { elicitationId } = await createKey();
    expect(await service.complete(elicitationId, { apiKey: 'k' })).toMatchObject({ ok: true });
    expect(events.map((e) => e.type)).toEqual(['created', 'completed']);
    stop();
  });

  it('streams events through events$', async () => {
    const seen: string[] = [];
    const sub = ref.get(ElicitationEvents).events$.subscribe((e) => seen.push(e.type));
    const { elicitationId } = await createKey();
    await service.cancel(elicitationId);
    sub.unsubscribe();
    await createKey();
    expect(seen).toEqual(['created', 'cancelled']);
  });
});
