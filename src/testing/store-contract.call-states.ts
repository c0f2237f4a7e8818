import type { ElicitationRecordStore } from '../stores/elicitation-store.js';
import { T0, type ContractGroupApi } from './contract-test-api.js';

/** The call-state group of the record contract: run when `offers` lists `keepCallState` and `takeCallState`. */
export function callStateTests({ itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  const of = (s: ElicitationRecordStore) => {
    if (!s.keepCallState || !s.takeCallState)
      throw new Error('the store lacks keepCallState or takeCallState, but options.offers lists them');
    return { keep: s.keepCallState.bind(s), take: s.takeCallState.bind(s) };
  };
  /** A key of the test's own (the store may be shared between tests). */
  const keyOf = (name: string) => `contract-${name}-${Math.random().toString(36).slice(2)}`;

  itIfOffered(
    'takeCallState',
    'keeps a value until it is taken: once, the second take finds none; a later keep replaces it',
    async (store) => {
      const { keep, take } = of(store);
      const key = keyOf('once');
      await expect(take(key, T0)).resolves.toBeUndefined();
      await keep(key, 'first', Date.now() + 60_000);
      await keep(key, 'second', Date.now() + 60_000);
      await expect(take(key, Date.now())).resolves.toBe('second');
      await expect(take(key, Date.now())).resolves.toBeUndefined();
      // Other keys are other values.
      const other = keyOf('other');
      await keep(other, 'theirs', Date.now() + 60_000);
      await expect(take(keyOf('none'), Date.now())).resolves.toBeUndefined();
      await expect(take(other, Date.now())).resolves.toBe('theirs');
    },
  );

  itIfOffered('takeCallState', 'gives one of two takers at once the value, the other none', async (store) => {
    const { keep, take } = of(store);
    const key = keyOf('race');
    await keep(key, 'only', Date.now() + 60_000);
    const results = await Promise.all([take(key, Date.now()), take(key, Date.now())]);
    expect(results.filter((r) => r === 'only')).toHaveLength(1);
    expect(results.filter((r) => r === undefined)).toHaveLength(1);
  });

  itIfOffered('takeCallState', 'gives no value from its expiresAt on', async (store) => {
    const { keep, take } = of(store);
    const key = keyOf('expired');
    const expiresAt = Date.now() + 150;
    await keep(key, 'late', expiresAt);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await expect(take(key, expiresAt + 100)).resolves.toBeUndefined();
  });
}
