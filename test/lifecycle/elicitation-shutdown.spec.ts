/**
 * Shutdown (Nest's `onModuleDestroy`, on `app.close()` or a signal with `enableShutdownHooks`): waits end with
 * `ElicitationShutdownError` and leave the elicitation pending, nothing new starts, the cleanup sweep stops at
 * module destroy (letting a sweep in progress finish before the store closes), and no rejection goes unhandled.
 * Over HTTP and through a real SIGTERM: e2e/operations/shutdown.e2e-spec.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { type BeforeApplicationShutdown, Injectable, Module, type OnModuleDestroy } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ElicitationCleanupScheduler } from '../../src/module/elicitation-cleanup.scheduler.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationTransitions } from '../../src/lifecycle/elicitation-transitions.js';
import type { ElicitationRecord } from '../../src/core/elicitation.types.js';
import { ElicitationShutdownError } from '../../src/errors/elicitation-shutdown.error.js';
import { ElicitationShutdownError as Exported } from '../../src/index.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { compileElicitation } from '../support/testing-module.js';

/** Every unhandled rejection while a test runs (Jest would otherwise only print some of them). */
function watchUnhandled(): { reasons: unknown[]; stop(): void } {
  const reasons: unknown[] = [];
  const listener = (reason: unknown) => reasons.push(reason);
  process.on('unhandledRejection', listener);
  return { reasons, stop: () => void process.off('unhandledRejection', listener) };
}

const settleTurns = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('ElicitationService on shutdown', () => {
  let unhandled: ReturnType<typeof watchUnhandled>;
  beforeEach(() => {
    unhandled = watchUnhandled();
  });
  afterEach(async () => {
    await settleTurns();
    unhandled.stop();
    expect(unhandled.reasons).toEqual([]);
  });

  it('rejects every wait in progress with ElicitationShutdownError naming its elicitation, and leaves it pending', async () => {
    const ref = await compileElicitation();
    const service = ref.get(ElicitationService);
    const store = ref.get(ElicitationStore);
    const a = await service.createUrlElicitation({ kind: 'confirm', message: 'Deploy?', userId: 'alice' });
    const b = await service.createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'bob' });
    const waits = [
      service.waitForCompletion(a.elicitationId),
      service.waitForCompletion(a.elicitationId, { timeoutMs: 60_000 }),
      service.waitForCompletion(b.elicitationId, { signal: new AbortController().signal }),
    ].map((wait) =>
      wait.then(
        () => 'resolved',
        (error: unknown) => error,
      ),
    );
    expect(service.isShuttingDown).toBe(false);

    await ref.close();

    expect(service.isShuttingDown).toBe(true);
    const errors = await Promise.all(waits);
    for (const error of errors) expect(error).toBeInstanceOf(ElicitationShutdownError);
    expect(errors.map((e) => (e as ElicitationShutdownError).elicitationId)).toEqual([a.elicitationId, a.elicitationId, b.elicitationId]);
    expect((errors[0] as Error).message).toBe(
      'The server is shutting down, so it stopped waiting for your answer. Call the tool again in a moment.',
    );
    expect(errors[0]).toBeInstanceOf(Exported);
    // Not a timeout, not cancelled: the question stays open for another instance or a later call.
    expect((await store.get(a.elicitationId, Date.now()))?.status).toBe('pending');
    expect((await store.get(b.elicitationId, Date.now()))?.status).toBe('pending');
    expect(ref.get(ElicitationTransitions)['waiters'].size).toBe(0);
  });

  it('refuses new waits and new elicitations once shutting down', async () => {
    const ref = await compileElicitation();
    const service = ref.get(ElicitationService);
    const { elicitationId } = await service.createUrlElicitation({ kind: 'confirm', message: 'Deploy?', userId: 'alice' });
    await ref.close();

    await expect(service.waitForCompletion(elicitationId, { timeoutMs: 10 })).rejects.toEqual(new ElicitationShutdownError(elicitationId));
    await expect(service.createUrlElicitation({ kind: 'confirm', message: 'Again?', userId: 'alice' })).rejects.toBeInstanceOf(
      ElicitationShutdownError,
    );
    expect(ref.get(ElicitationTransitions)['waiters'].size).toBe(0);
  });

  it('a wait whose record read fails after the shutdown rejected it leaves no unhandled rejection', async () => {
    let release!: () => void;
    const store = new MemoryElicitationStore();
    const ref = await compileElicitation({ store });
    const service = ref.get(ElicitationService);
    const { elicitationId } = await service.createUrlElicitation({ kind: 'confirm', message: 'Deploy?', userId: 'alice' });
    // The wait's first read hangs until released, then fails (a store closing under it).
    store.get = () =>
      new Promise<ElicitationRecord | undefined>((_, reject) => {
        release = () => reject(new Error('connection closed'));
      });
    const wait = service.waitForCompletion(elicitationId).catch((error: unknown) => error);
    await ref.close();
    release();
    // The read's error is what the caller gets; the shutdown rejection is handled, not leaked.
    expect(await wait).toEqual(new Error('connection closed'));
  });
});

describe('ElicitationCleanupScheduler on shutdown', () => {
  it('stops at module destroy, before beforeApplicationShutdown, and a sweep in progress ends before the store closes', async () => {
    const order: string[] = [];
    let finishSweep!: () => void;
    class SlowStore extends MemoryElicitationStore implements OnModuleDestroy {
      override async sweep(now: number, retentionMs: number) {
        order.push('sweep started');
        await new Promise<void>((resolve) => (finishSweep = resolve));
        order.push('sweep finished');
        return super.sweep(now, retentionMs);
      }
      onModuleDestroy() {
        order.push('store destroyed');
      }
    }
    @Injectable()
    class Probe implements BeforeApplicationShutdown {
      constructor(private readonly scheduler: ElicitationCleanupScheduler) {}
      beforeApplicationShutdown() {
        order.push(`before shutdown: running ${this.scheduler.isRunning}`);
      }
    }
    @Module({
      imports: [ElicitationModule.forRoot({ baseUrl: 'https://mcp.example.com', store: new SlowStore(), cleanupIntervalMs: 60_000 })],
      providers: [Probe],
    })
    class AppModule {}
    const ref = await Test.createTestingModule({ imports: [AppModule] }).compile();
    await ref.init();
    const scheduler = ref.get(ElicitationCleanupScheduler);
    expect(scheduler.isRunning).toBe(true);
    const sweeping = scheduler.sweep();
    await settleTurns();

    const closing = ref.close();
    await settleTurns();
    expect(scheduler.isRunning).toBe(false);
    // The store waits for the sweep that uses it.
    expect(order).toEqual(['sweep started']);
    finishSweep();
    await closing;
    await sweeping;
    expect(order.slice(0, 3)).toEqual(['sweep started', 'sweep finished', 'store destroyed']);
    expect(order.at(-1)).toBe('before shutdown: running false');
  });
});
