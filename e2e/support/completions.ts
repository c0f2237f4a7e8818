/**
 * Records `notifications/elicitation/complete` as a client receives them and lets a test wait for one
 * (shared by the SDK 1.x and SDK 2.x client helpers).
 */
export interface CompletionLog {
  /** Elicitation ids notified so far, in order. */
  completed: string[];
  /** Call from the client's notification handler. */
  record(elicitationId: string): void;
  /** Resolves once `id` was notified (at once if it already was); rejects after `ms`. Needs no `this`. */
  completion: (id: string, ms?: number) => Promise<void>;
}

export function completionLog(): CompletionLog {
  const completed: string[] = [];
  const waiters = new Map<string, () => void>();
  return {
    completed,
    record(id) {
      completed.push(id);
      waiters.get(id)?.();
    },
    completion: (id, ms = 5_000) =>
      completed.includes(id)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no completion notification for ${id} within ${ms} ms`)), ms);
            waiters.set(id, () => {
              clearTimeout(timer);
              resolve();
            });
          }),
  };
}
