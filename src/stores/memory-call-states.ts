import type { ElicitationCallStateStore } from './call-state-store.js';

/**
 * The call states of `MemoryElicitationStore` (`ElicitationCallStateStore`): a map by key, each value with its
 * `expiresAt`; `sweep` forgets the expired ones. Few and short-lived (a call that ended before its tool ran, until its
 * continuation comes), so a scan at each sweep costs nothing worth an index.
 */
export class MemoryCallStates implements ElicitationCallStateStore {
  private readonly states = new Map<string, { value: string; expiresAt: number }>();

  keepCallState(key: string, value: string, expiresAt: number): Promise<void> {
    this.states.set(key, { value, expiresAt });
    return Promise.resolve();
  }

  takeCallState(key: string, now: number): Promise<string | undefined> {
    const state = this.states.get(key);
    this.states.delete(key);
    return Promise.resolve(state && state.expiresAt > now ? state.value : undefined);
  }

  /** Forgets the states expired at `now`. */
  sweep(now: number): void {
    for (const [key, state] of this.states) if (state.expiresAt <= now) this.states.delete(key);
  }

  /** Number of states kept (expired ones until a sweep forgets them). */
  get size(): number {
    return this.states.size;
  }
}
