import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ElicitationCleanupScheduler } from '../../src/module/elicitation-cleanup.scheduler.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationEvents } from '../../src/events/elicitation-events.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { compileElicitation } from '../support/testing-module.js';

describe('ElicitationCleanupScheduler', () => {
  it("starts on bootstrap with an unref'd timer and stops on shutdown", async () => {
    const ref = await compileElicitation({ cleanupIntervalMs: 50 });
    const scheduler = ref.get(ElicitationCleanupScheduler);
    expect(scheduler.isRunning).toBe(true);
    expect(scheduler['timer']?.hasRef()).toBe(false);
    await ref.close();
    expect(scheduler.isRunning).toBe(false);
  });

  it('does not start with cleanupIntervalMs: 0', async () => {
    const ref = await compileElicitation({ cleanupIntervalMs: 0 });
    expect(ref.get(ElicitationCleanupScheduler).isRunning).toBe(false);
    await ref.close();
  });

  it('expires records on its own schedule and publishes expired', async () => {
    const ref = await compileElicitation({ cleanupIntervalMs: 20 });
    const service = ref.get(ElicitationService);
    const expired: string[] = [];
    ref.get(ElicitationEvents).subscribe((e) => e.type === 'expired' && expired.push(e.elicitationId));
    const { elicitationId } = await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'u', ttlMs: 10 });
    const deadline = Date.now() + 2_000;
    while (expired.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(expired).toEqual([elicitationId]);
    await ref.close();
  });

  it('sweep(now) lets tests drive it, and a failing sweep is logged, never thrown', async () => {
    const ref = await compileElicitation();
    const scheduler = ref.get(ElicitationCleanupScheduler);
    const service = ref.get(ElicitationService);
    await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'u' });
    expect(await scheduler.sweep(Date.now() + 11 * 60_000)).toBe(1);

    const store = ref.get(ElicitationStore);
    store.sweep = () => Promise.reject(new Error('backend down'));
    const errors: unknown[] = [];
    const logError = jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => {
      errors.push(message);
    });
    try {
      await expect(scheduler.sweep()).resolves.toBe(0);
    } finally {
      logError.mockRestore();
    }
    expect(errors).toEqual(['Elicitation expiry sweep failed']);
    await ref.close();
  });
});
