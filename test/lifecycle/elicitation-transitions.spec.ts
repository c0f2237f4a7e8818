/**
 * The publish path of the lifecycle's moves: each move's event reaches this instance's listeners and the other
 * instances once, whether the store says nothing (the module publishes the event on the store's channel) or says
 * it sent the event itself (`eventSent`: the module publishes nothing more), and the store's report never shows
 * in what the service returns.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import type { ElicitationEvent, ElicitationRecord, ExtendResult, TransitionResult } from '../../src/core/elicitation.types.js';
import { ElicitationEvents, lifecycleEvent } from '../../src/events/elicitation-events.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import {
  createResultOf,
  ElicitationStore,
  sweepReportOf,
  type CreatedReport,
  type CreateQuota,
  type CreateResult,
  type ElicitationEventChannel,
  type EventSentReport,
  type ExtendChange,
  type FinishChange,
  type SweepReport,
} from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { compileElicitation } from '../support/testing-module.js';

/** What links the stores of the tests' instances, in process: their event channels' listeners. */
class Bus {
  private readonly listeners = new Set<(event: ElicitationEvent) => void>();

  /** A channel on the bus: `published` records what goes out through its `publish`. */
  open(onRemoteEvent: (event: ElicitationEvent) => void, published: ElicitationEvent[]): ElicitationEventChannel {
    this.listeners.add(onRemoteEvent);
    return {
      publish: (event) => {
        published.push(event);
        this.send(onRemoteEvent, event);
        return Promise.resolve();
      },
      close: () => {
        this.listeners.delete(onRemoteEvent);
        return Promise.resolve();
      },
    };
  }

  /** Hands `event` to every listener but the sender's. */
  send(from: ((event: ElicitationEvent) => void) | undefined, event: ElicitationEvent): void {
    for (const deliver of this.listeners) if (deliver !== from) deliver(event);
  }
}

/** A user's own store that says nothing of events: a memory store with an event channel on the bus. */
class QuietStore extends MemoryElicitationStore {
  readonly published: ElicitationEvent[] = [];
  constructor(private readonly bus: Bus) {
    super();
  }
  override openEventChannel(onRemoteEvent: (event: ElicitationEvent) => void): Promise<ElicitationEventChannel> {
    return Promise.resolve(this.bus.open(onRemoteEvent, this.published));
  }
}

/**
 * A store that sends the event of each move itself, within the move, and says so (`eventSent`), as the Redis store's
 * scripts do: its records are a memory store's.
 */
class ReportingStore extends ElicitationStore {
  readonly published: ElicitationEvent[] = [];
  private readonly records = new MemoryElicitationStore();
  private own: ((event: ElicitationEvent) => void) | undefined;
  constructor(private readonly bus: Bus) {
    super();
  }
  override openEventChannel(onRemoteEvent: (event: ElicitationEvent) => void): Promise<ElicitationEventChannel> {
    this.own = onRemoteEvent;
    return Promise.resolve(this.bus.open(onRemoteEvent, this.published));
  }
  async create(record: ElicitationRecord, quota?: CreateQuota): Promise<CreateResult | CreatedReport> {
    const created = createResultOf(await this.records.create(record, quota));
    if (created !== 'created') return created;
    this.bus.send(this.own, lifecycleEvent('created', record, record.createdAt));
    return { result: 'created', eventSent: true };
  }
  async finish(id: string, change: FinishChange): Promise<TransitionResult & EventSentReport> {
    const result = await this.records.finish(id, change);
    if (!result.ok) return result;
    this.bus.send(this.own, lifecycleEvent(change.status, result.record, change.now));
    return { ...result, eventSent: true };
  }
  override async extend(id: string, change: ExtendChange): Promise<ExtendResult & EventSentReport> {
    const result = await this.records.extend(id, change);
    if (!result.ok) return result;
    this.bus.send(this.own, lifecycleEvent('extended', result.record, change.now));
    return { ...result, eventSent: true };
  }
  async sweep(now: number, retentionMs: number): Promise<SweepReport> {
    const { expired } = sweepReportOf(await this.records.sweep(now, retentionMs));
    for (const record of expired) this.bus.send(this.own, lifecycleEvent('expired', record, now));
    return { expired, eventSent: true };
  }
  get(id: string, now: number) {
    return this.records.get(id, now);
  }
  consume(id: string, now: number) {
    return this.records.consume(id, now);
  }
  findLatestCompleted(userId: string, type: string, now: number) {
    return this.records.findLatestCompleted(userId, type, now);
  }
  listByUser(userId: string, now: number) {
    return this.records.listByUser(userId, now);
  }
  hit(key: string, windowMs: number, now: number) {
    return this.records.hit(key, windowMs, now);
  }
}

describe('ElicitationTransitions: each move announced once, here and to the other instances', () => {
  const refs: TestingModule[] = [];
  afterEach(async () => {
    await Promise.all(refs.splice(0).map((ref) => ref.close()));
  });

  /** Two instances, A and B, on stores `make` builds on one bus; what each instance's listeners heard. */
  async function instances<S extends ElicitationStore>(make: (bus: Bus) => S) {
    const bus = new Bus();
    const stores = [make(bus), make(bus)] as const;
    const heard: [ElicitationEvent[], ElicitationEvent[]] = [[], []];
    for (const [i, store] of stores.entries()) {
      const ref = await compileElicitation({ store, encryptionKey: Buffer.alloc(32, 7), ttlMs: 60_000 });
      refs.push(ref);
      ref.get(ElicitationEvents).subscribe((event) => heard[i].push(event));
    }
    return { storeA: stores[0], service: refs[0].get(ElicitationService), heard };
  }

  /** On A: a create, an extension and a completion, then a create its sweep expires; the events they make. */
  async function moves(service: ElicitationService): Promise<Array<[ElicitationEvent['type'], string]>> {
    const first = await service.createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'alice' });
    const extended = await service.extend(first.elicitationId);
    expect(extended).toEqual({ ok: true, record: expect.objectContaining({ id: first.elicitationId }) });
    const completed = await service.complete(first.elicitationId, { apiKey: 'k' });
    // The store's report stays in the lifecycle: the service's result is as the public API describes it.
    expect(completed).toEqual({ ok: true, record: expect.objectContaining({ id: first.elicitationId, status: 'completed' }) });
    const second = await service.createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'bob' });
    expect(await service.sweep(second.expiresAt.getTime() + 1)).toBe(1);
    return [
      ['created', first.elicitationId],
      ['extended', first.elicitationId],
      ['completed', first.elicitationId],
      ['created', second.elicitationId],
      ['expired', second.elicitationId],
    ];
  }

  const summary = (events: ElicitationEvent[]) => events.map((e) => [e.type, e.elicitationId]);

  it("publishes each move's event on the channel of a store that says nothing of events (a user's own store)", async () => {
    const { storeA, service, heard } = await instances((bus) => new QuietStore(bus));
    const expected = await moves(service);
    expect(summary(storeA.published)).toEqual(expected);
    expect(summary(heard[0])).toEqual(expected);
    expect(summary(heard[1])).toEqual(expected);
  });

  it('publishes nothing more of a move whose store says it sent the event itself, and still tells the listeners here once', async () => {
    const { storeA, service, heard } = await instances((bus) => new ReportingStore(bus));
    const expected = await moves(service);
    expect(storeA.published).toEqual([]);
    expect(summary(heard[0])).toEqual(expected);
    expect(summary(heard[1])).toEqual(expected);
    // The same events either way: the store sent what the module would have published.
    expect(heard[1]).toEqual(heard[0]);
  });
});
