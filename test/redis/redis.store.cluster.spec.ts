/**
 * RedisElicitationStore on a real three-master Redis Cluster that this file starts and stops itself
 * (redis-server + redis-cli on free loopback ports, in a temporary directory).
 *
 * Without redis-server/redis-cli the suite is skipped with a visible message, unless REQUIRE_REDIS=1,
 * where it runs and fails.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Cluster, Redis } from 'ioredis';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import {
  describeWithRedisBinaries,
  HOST,
  sleep,
  startRedisServer,
  stopProcess,
  tryBind,
  within,
  type ServerProcess,
} from '../support/redis-server.js';
import { keyed } from '../support/store-keys.js';
import { describeElicitationStoreContract, pendingRecord, SHARED_STORE_OFFERS } from '../support/store-contract.js';

const RUN = `cluster-${randomUUID().slice(0, 8)}`;
const SETUP_TIMEOUT_MS = 60_000;
const TEARDOWN_TIMEOUT_MS = 30_000;

/**
 * `count` distinct free ports below 55000 whose cluster bus port (port + 10000) is free too. Asks the
 * kernel first (bind port 0) and falls back to random ports in 20000-54999 when it offers a high one.
 */
async function freeClusterPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let attempt = 0; ports.length < count && attempt < 500; attempt++) {
    let port = await tryBind(0);
    if (port === undefined || port >= 55_000) port = 20_000 + Math.floor(Math.random() * 35_000);
    if (ports.some((p) => Math.abs(p - port) < 2 || Math.abs(p + 10_000 - port) < 2 || Math.abs(p - 10_000 - port) < 2)) continue;
    if ((await tryBind(port)) === port && (await tryBind(port + 10_000)) === port + 10_000) ports.push(port);
  }
  if (ports.length < count) throw new Error(`Could not find ${count} free loopback ports for the cluster`);
  return ports;
}

function run(file: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** A plain connection to one node, failing fast rather than retrying. */
function nodeClient(port: number): Redis {
  const client = new Redis({
    host: HOST,
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  return client;
}

/** Waits (bounded) until every node reports a healthy cluster with all slots and all masters known. */
async function waitForClusterOk(ports: number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(
      ports.map(async (port) => {
        const client = nodeClient(port);
        try {
          await client.connect();
          return String(await client.call('CLUSTER', 'INFO'));
        } catch (error) {
          return `error: ${(error as Error).message}`;
        } finally {
          client.disconnect();
        }
      }),
    );
    const ok = states.every(
      (info) =>
        /cluster_state:ok/.test(info) &&
        /cluster_slots_ok:16384/.test(info) &&
        new RegExp(`cluster_known_nodes:${ports.length}\\b`).test(info),
    );
    if (ok) return;
    if (Date.now() > deadline) {
      throw new Error(`Cluster not ok after ${timeoutMs} ms:\n${states.map((s, i) => `--- ${ports[i]}\n${s}`).join('\n')}`);
    }
    await sleep(100);
  }
}

/** Connects an ioredis Cluster client and resolves once it is ready (bounded). */
async function connectCluster(port: number): Promise<Cluster> {
  const cluster = new Cluster([{ host: HOST, port }], {
    clusterRetryStrategy: (times) => (times > 10 ? null : 100 * times),
    slotsRefreshTimeout: 2_000,
    redisOptions: { connectTimeout: 2_000, commandTimeout: 5_000 },
  });
  cluster.on('error', () => undefined);
  try {
    await within(
      10_000,
      `cluster client on port ${port} ready`,
      new Promise<void>((resolve, reject) => {
        cluster.once('ready', () => resolve());
        cluster.once('end', () => reject(new Error('cluster client ended before ready')));
      }),
    );
  } catch (error) {
    cluster.disconnect();
    throw error;
  }
  return cluster;
}

async function closeCluster(cluster: Cluster | undefined): Promise<void> {
  if (!cluster) return;
  await within(5_000, 'cluster quit', cluster.quit()).catch(() => cluster.disconnect());
}

// ---------------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------------

describeWithRedisBinaries(['redis-server', 'redis-cli'])('RedisElicitationStore on a three-master Redis Cluster', () => {
  let dir: string | undefined;
  const servers: ServerProcess[] = [];
  const clients: Cluster[] = [];
  let ports: number[] = [];
  let cluster: Cluster;
  let n = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'elicitation-cluster-'));
    ports = await freeClusterPorts(3);
    for (const port of ports) {
      servers.push(
        await startRedisServer(port, [
          '--port',
          String(port),
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
          '--bind',
          HOST,
          '--daemonize',
          'no',
        ]),
      );
    }
    await run(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `${HOST}:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
      30_000,
    );
    await waitForClusterOk(ports, 20_000);
    cluster = await connectCluster(ports[0]);
    clients.push(cluster);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(clients.map((c) => closeCluster(c)));
    await Promise.all(servers.map((s) => stopProcess(s.child)));
    if (dir) await rm(dir, { recursive: true, force: true });
  }, TEARDOWN_TIMEOUT_MS);

  describeElicitationStoreContract(
    'RedisElicitationStore (Cluster client)',
    () => keyed(new RedisElicitationStore(cluster, { keyPrefix: `${RUN}-${++n}` })),
    {
      offers: [...SHARED_STORE_OFFERS, 'listOpen', 'addNotices', 'claimNotices', 'settleNotice', 'noticeStats'],
    },
  );

  describe('Cluster specifics', () => {
    /** The slot Redis computes for `key`. */
    const keyslot = async (key: string) => Number(await cluster.call('CLUSTER', 'KEYSLOT', key));

    /** The port of the master serving `slot`. */
    async function ownerOf(slot: number): Promise<number> {
      const ranges = (await cluster.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number, ...unknown[]]]>;
      const range = ranges.find(([start, end]) => slot >= start && slot <= end);
      if (!range) throw new Error(`No node serves slot ${slot}`);
      return Number(range[2][1]);
    }

    /** Every key matching `pattern` on every master, with the port of the node holding it. */
    async function scanAllMasters(pattern: string): Promise<Array<{ key: string; port: number }>> {
      const found: Array<{ key: string; port: number }> = [];
      for (const node of cluster.nodes('master')) {
        let cursor = '0';
        do {
          const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          cursor = next;
          for (const key of keys) found.push({ key, port: Number(node.options.port) });
        } while (cursor !== '0');
      }
      return found;
    }

    it('keeps all keys of one prefix in one slot, and puts two prefixes in different slots (here on different masters)', async () => {
      const prefixA = `${RUN}-slot-a`;
      const slotA = await keyslot(`{${prefixA}}`);
      const ownerA = await ownerOf(slotA);
      // A second prefix served by another master, so the Lua scripts run on two different nodes.
      let prefixB = '';
      for (let i = 0; i < 200 && !prefixB; i++) {
        const candidate = `${RUN}-slot-b${i}`;
        if ((await ownerOf(await keyslot(`{${candidate}}`))) !== ownerA) prefixB = candidate;
      }
      expect(prefixB).not.toBe('');

      const now = Date.now();
      for (const prefix of [prefixA, prefixB]) {
        const store = keyed(new RedisElicitationStore(cluster, { keyPrefix: prefix }));
        const done = pendingRecord({ createdAt: now, expiresAt: now + 60_000, purgeAt: now + 90_000, userId: 'slot-user', type: 't' });
        const pending = pendingRecord({ createdAt: now, expiresAt: now + 60_000, purgeAt: now + 90_000, userId: 'slot-user-2', type: 't' });
        await store.create(done);
        await store.create(pending);
        expect(
          await store.finish(done.id, { status: 'completed', data: { apiKey: prefix }, now: now + 1, purgeAt: now + 90_000 }),
        ).toMatchObject({ ok: true });
        // The multi-key scripts work on whichever node serves the prefix.
        expect(await store.findLatestCompleted('slot-user', 't', now + 2)).toMatchObject({ id: done.id, data: { apiKey: prefix } });
        expect((await store.listByUser('slot-user-2', now + 2)).map((r) => r.id)).toEqual([pending.id]);
        expect(await store.sweep(now + 3, 30_000)).toEqual([]);
      }

      const slots: Record<string, Set<number>> = {};
      for (const prefix of [prefixA, prefixB]) {
        const keys = await scanAllMasters(`{${prefix}}*`);
        // 2 records, 2 user indexes, 1 completed index, deadlines, and the pending set (holding the pending one)
        expect(keys).toHaveLength(7);
        slots[prefix] = new Set(await Promise.all(keys.map(({ key }) => keyslot(key))));
        expect(new Set(keys.map((k) => k.port)).size).toBe(1);
      }
      expect([...slots[prefixA]]).toEqual([slotA]);
      expect(slots[prefixB].size).toBe(1);
      expect([...slots[prefixB]][0]).not.toBe(slotA);
    });

    it("keeps the outbox's keys in the prefix's slot, and claims, settles and lists open records on the node serving it", async () => {
      const prefix = `${RUN}-outbox`;
      const slot = await keyslot(`{${prefix}}`);
      const store = keyed(new RedisElicitationStore(cluster, { keyPrefix: prefix }));
      const now = Date.now();
      const record = pendingRecord({ createdAt: now, expiresAt: now + 60_000, purgeAt: now + 90_000, userId: 'outbox-user' });
      await store.create(record);
      expect((await store.listOpen('outbox-user', now + 1, { limit: 5 })).records).toEqual([record]);
      const notices = [1, 2, 3].map((i) => ({ id: `c${i}`, elicitationId: record.id, dueAt: now + i, forgetAt: now + 60_000, body: '{}' }));
      expect(await store.addNotices(notices, now)).toBe(3);
      const claimed = await store.claimNotices('a', now + 10, 2, 1_000);
      expect(claimed.map((n) => n.id)).toEqual(['c1', 'c2']);
      expect(await store.settleNotice('c1', 'a', { kind: 'delivered' }, now + 11)).toBe(true);
      expect(await store.settleNotice('c2', 'a', { kind: 'failed', error: 'HTTP 410' }, now + 11)).toBe(true);
      expect(await store.noticeStats(now + 12)).toEqual({ pending: 1, failed: 1, delivered: 1, oldestDueAt: now + 3 });
      const keys = await scanAllMasters(`{${prefix}}*`);
      // The record, its user index, the deadlines, the pending set; notices c2 and c3, nd, nf, nc.
      expect(keys).toHaveLength(9);
      expect(new Set(await Promise.all(keys.map(({ key }) => keyslot(key))))).toEqual(new Set([slot]));
    });

    it('carries events between instances over the event stream on Redis Cluster, never back to the sender', async () => {
      const prefix = `${RUN}-bus`;
      // Two "app instances", each with its own cluster client entering through a different node.
      const clientA = await connectCluster(ports[1]);
      clients.push(clientA);
      const clientB = await connectCluster(ports[2]);
      clients.push(clientB);
      const a = keyed(new RedisElicitationStore(clientA, { keyPrefix: prefix }));
      const b = keyed(new RedisElicitationStore(clientB, { keyPrefix: prefix }));
      const other = keyed(new RedisElicitationStore(clientB, { keyPrefix: `${prefix}-other` }));
      const seenByA: ElicitationEvent[] = [];
      const seenByB: ElicitationEvent[] = [];
      const seenByOther: ElicitationEvent[] = [];
      const channelA = await a.openEventChannel((e) => seenByA.push(e));
      const channelB = await b.openEventChannel((e) => seenByB.push(e));
      const channelOther = await other.openEventChannel((e) => seenByOther.push(e));
      const waitFor = async (cond: () => boolean, what: string) => {
        const deadline = Date.now() + 3_000;
        while (!cond() && Date.now() < deadline) await sleep(5);
        if (!cond()) throw new Error(`Timed out waiting for ${what}`);
      };
      const event = (i: number): ElicitationEvent => ({
        type: 'completed',
        elicitationId: randomUUID(),
        userId: 'u',
        kind: 'api-key',
        elicitationType: 't',
        at: i,
      });
      try {
        // Several publishes: each is appended on the node serving the prefix, where every reader waits.
        const fromB = Array.from({ length: 6 }, (_, i) => event(i));
        for (const e of fromB) await channelB.publish(e);
        await waitFor(() => seenByA.length >= fromB.length, 'the events of B at A');
        expect([...seenByA].sort((x, y) => x.at - y.at)).toEqual(fromB);

        const fromA = event(100);
        await channelA.publish(fromA);
        await waitFor(() => seenByB.length >= 1, 'the event of A at B');
        expect(seenByB).toEqual([fromA]);

        // A create and a finish on A append their events from their scripts, on the node serving the prefix, and
        // say so (eventSent): nobody publishes them again.
        const record = pendingRecord({ sessionId: 'cluster-session' });
        expect(await a.create(record)).toEqual({ result: 'created', eventSent: true });
        const created: ElicitationEvent = {
          type: 'created',
          elicitationId: record.id,
          userId: record.userId,
          kind: record.kind,
          elicitationType: record.type,
          sessionId: 'cluster-session',
          at: record.createdAt,
        };
        const now = record.createdAt + 1;
        expect(await a.finish(record.id, { status: 'completed', data: { k: 1 }, now, purgeAt: now + 1_000 })).toMatchObject({
          ok: true,
          eventSent: true,
        });
        const finished: ElicitationEvent = {
          type: 'completed',
          elicitationId: record.id,
          userId: record.userId,
          kind: record.kind,
          elicitationType: record.type,
          sessionId: 'cluster-session',
          at: now,
        };
        await waitFor(() => seenByB.length >= 3, 'the create and finish events of A at B');
        expect(seenByB).toEqual([fromA, created, finished]);

        await sleep(100); // a late echo to the sender, a duplicate, or a leak to another prefix would show by now
        expect(seenByA).toHaveLength(fromB.length);
        expect(seenByB).toHaveLength(3);
        expect(seenByOther).toEqual([]);
      } finally {
        await channelA.close();
        await channelB.close();
        await channelOther.close();
      }
    }, 20_000);
  });
});
