import { randomUUID } from 'node:crypto';
import type { ElicitationEvent } from '../core/elicitation.types.js';
import type { ElicitationRecordStore } from '../stores/elicitation-store.js';
import { T0, TTL, type ContractGroupApi } from './contract-test-api.js';

/** The events group of the record contract: run when `offers` lists `openEventChannel`. */
export function eventTests({ itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  itIfOffered('openEventChannel', 'carries an extended event with its new expiresAt', async (store) => {
    if (!store.openEventChannel) throw new Error('the store offers no openEventChannel, but options.offers lists it');
    const seen: ElicitationEvent[] = [];
    const sender = await store.openEventChannel(() => undefined);
    const other = await store.openEventChannel((e) => seen.push(e));
    try {
      const event: ElicitationEvent = {
        type: 'extended',
        elicitationId: randomUUID(),
        userId: 'u1',
        kind: 'confirm',
        elicitationType: 'deploy',
        at: T0,
        expiresAt: T0 + 2 * TTL,
      };
      await sender.publish(event);
      const deadline = Date.now() + 2_000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(seen).toEqual([event]);
    } finally {
      await sender.close();
      await other.close();
    }
  });

  itIfOffered(
    'openEventChannel',
    'carries events between channels (their session and task too), never back to the sender',
    async (store) => {
      if (!store.openEventChannel) throw new Error('the store offers no openEventChannel, but options.offers lists it');
      const seenBySender: ElicitationEvent[] = [];
      const seenByOther: ElicitationEvent[] = [];
      const sender = await store.openEventChannel((e) => seenBySender.push(e));
      const other = await store.openEventChannel((e) => seenByOther.push(e));
      try {
        const event: ElicitationEvent = {
          type: 'created',
          elicitationId: randomUUID(),
          userId: 'u1',
          kind: 'api-key',
          elicitationType: 'api-key',
          sessionId: 'session-1',
          taskId: 'task-1',
          at: T0,
        };
        await sender.publish(event);
        const deadline = Date.now() + 2_000;
        while (seenByOther.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => setTimeout(r, 50)); // room for a duplicate, or an echo to the sender
        expect(seenByOther).toEqual([event]);
        expect(seenBySender).toEqual([]);
      } finally {
        await sender.close();
        await other.close();
      }
    },
  );
}
