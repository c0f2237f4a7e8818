/**
 * The chained audit (`ElicitationAuditChain`): lines appended at once by two module instances sharing a real Redis and
 * a real PostgreSQL (and by one on the memory store) form one chain, every line kept once, in order of `seq`; the
 * export reads it in batches and from a line on; a store without chains keeps none.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ElicitationAuditChain } from '../../src/observability/audit-chain.js';
import { verifyAuditChain } from '../../src/proofs/audit-chain-lines.js';
import { PostgresElicitationStore } from '../../src/postgres/postgres.store.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import type { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { DATABASE_URL, describePostgres, dropPrefix } from '../support/postgres.js';
import { describeRedis, REDIS_URL } from '../support/redis.js';
import { compileElicitation } from '../support/testing-module.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const refs: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(refs.splice(0).map((r) => r.close()));
});

async function chainOn(store: ElicitationStore): Promise<ElicitationAuditChain> {
  const ref = await compileElicitation({ store, encryptionKey: KEY });
  refs.push(ref);
  return ref.get(ElicitationAuditChain);
}

/** Two instances append `each` lines each, all at once, to one stream; the export is one valid chain of them all. */
function appendsAtOnce(makeStore: () => Promise<ElicitationStore>, instances: number, each: number): void {
  it(`${instances * each} lines from ${instances} instance(s) at once: one chain, each line once`, async () => {
    const chains = await Promise.all(Array.from({ length: instances }, async () => chainOn(await makeStore())));
    const stream = `s-${randomUUID().slice(0, 8)}`;
    await Promise.all(
      chains.flatMap((chain, i) => Array.from({ length: each }, (_, j) => chain.append(stream, { event: 'test', from: `${i}-${j}` }))),
    );
    const jsonl = await chains[0].export({ stream });
    expect(verifyAuditChain(jsonl)).toMatchObject({ valid: true, lines: instances * each });
    const lines = jsonl
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; event: { from: string } });
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
    expect(new Set(lines.map((l) => l.event.from)).size).toBe(instances * each);
    // From a line on, and a bounded number of lines.
    const tail = await chains[chains.length - 1].export({ stream, fromSeq: 5, limit: 3 });
    expect(
      tail
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { seq: number }).seq),
    ).toEqual([5, 6, 7]);
    expect(verifyAuditChain(tail, lines[3] && (JSON.parse(jsonl.split('\n')[3]) as { hash: string }).hash)).toMatchObject({ valid: true });
  }, 30_000);
}

describe('the chained audit on the memory store', () => {
  appendsAtOnce(() => Promise.resolve(new MemoryElicitationStore()), 1, 20);

  it('keeps nothing on a store without chains', async () => {
    class NoChains extends MemoryElicitationStore {}
    for (const m of ['lastAuditLink', 'appendAuditLink', 'readAuditLinks'] as const)
      Object.defineProperty(NoChains.prototype, m, { value: undefined });
    const chain = await chainOn(new NoChains());
    expect(chain.enabled).toBe(false);
    expect(await chain.append('approvals', { event: 'x' })).toBeUndefined();
    expect(await chain.export()).toBe('');
  });
});

describeRedis('the chained audit on a shared Redis', () => {
  const prefix = `chain-${randomUUID().slice(0, 8)}`;
  const clients: Redis[] = [];
  afterEach(() => clients.splice(0).forEach((c) => c.disconnect()));
  appendsAtOnce(
    () => {
      const client = new Redis(REDIS_URL);
      clients.push(client);
      return Promise.resolve(new RedisElicitationStore(client, { keyPrefix: prefix }));
    },
    2,
    15,
  );
});

describePostgres('the chained audit on a shared PostgreSQL', () => {
  const prefix = `ch${randomUUID().slice(0, 6).replace(/-/g, '')}_`;
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    const cleanup = new pg.Pool({ connectionString: DATABASE_URL });
    await dropPrefix(cleanup, prefix).catch(() => undefined);
    await cleanup.end();
    await Promise.all(pools.splice(0).map((p) => p.end().catch(() => undefined)));
  });
  appendsAtOnce(
    async () => {
      const pool = new pg.Pool({ connectionString: DATABASE_URL });
      pools.push(pool);
      const store = new PostgresElicitationStore(pool, { tablePrefix: prefix });
      await store.createSchema();
      return store;
    },
    2,
    15,
  );
});
