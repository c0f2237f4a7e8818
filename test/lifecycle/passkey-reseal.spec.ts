/**
 * Passkeys outlive a rotation of `encryptionKey` (a real Redis and a real PostgreSQL): passkeys added, and a decision
 * signed, by an instance of the rotation's first deploy (`[K1, K2]`, sealing under K1) are moved under K2 once every
 * live instance seals with K2, and not before; after that K1 can leave the ring: the passkeys are listed and sign again,
 * a removed one is still read, and the receipt verifies on an instance holding K2 alone. An instance whose ring lacks
 * the key they are sealed under counts them as unreadable and changes nothing.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ElicitationPasskeys } from '../../src/lifecycle/elicitation-passkeys.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { PasskeyReseal } from '../../src/lifecycle/passkey-reseal.js';
import { ElicitationKeyRingAnnouncer } from '../../src/module/elicitation-key-ring.announcer.js';
import { PostgresElicitationStore } from '../../src/postgres/postgres.store.js';
import { actionHash } from '../../src/lifecycle/approval-plan.js';
import { decisionChallenge, type PasskeyReceipt } from '../../src/proofs/decision-proof.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { DATABASE_URL, describePostgres, dropSchema } from '../support/postgres.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../support/redis.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { keyed } from '../support/store-keys.js';
import { compileElicitation } from '../support/testing-module.js';

const ORIGIN = 'https://mcp.example.com';
const ACTION = { tool: 'transfer-funds', args: { to: 'acme', amount: 100 } };
const [K1, K2, K3] = [randomBytes(32), randomBytes(32), randomBytes(32)];

/** A store of one kind on this test's own prefix or schema: a new object per module, as each instance has its own. */
interface StoreKind {
  name: string;
  describe: typeof describe;
  setUp(): void;
  make(space: string): ElicitationStore;
  prepare(store: ElicitationStore): Promise<void> | void;
  tearDown(spaces: string[]): Promise<void>;
}

let redis: Redis;
let pool: pg.Pool;
const SCHEMA = `reseal_${randomUUID().slice(0, 8)}`;

const KINDS: StoreKind[] = [
  {
    name: 'Redis',
    describe: describeRedis,
    setUp: () => void (redis = new Redis(REDIS_URL)),
    make: (space) => new RedisElicitationStore(redis, { keyPrefix: space }),
    prepare: () => undefined,
    tearDown: async (spaces) => {
      for (const space of spaces) await deletePrefix(redis, space);
      await redis.quit();
    },
  },
  {
    name: 'PostgreSQL',
    describe: describePostgres,
    setUp: () => void (pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 })),
    make: (space) => new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: space }),
    prepare: async (store) => (store as PostgresElicitationStore).createSchema(),
    tearDown: async () => {
      await dropSchema(pool, SCHEMA);
      await pool.end();
    },
  },
];

describe.each(KINDS)('passkeys across a rotation of encryptionKey ($name)', (kind) => {
  kind.describe(`on ${kind.name}`, () => {
    const spaces: string[] = [];
    const refs: TestingModule[] = [];
    beforeAll(() => kind.setUp());
    afterEach(async () => {
      await Promise.all(refs.splice(0).map((ref) => ref.close()));
    });
    afterAll(() => kind.tearDown(spaces));

    /** An instance on `space` with the ring `keys`; its store a new object, as another process's would be. */
    async function instance(space: string, keys: Buffer[]) {
      const store = kind.make(space);
      const ref = await compileElicitation({ encryptionKey: keys, store });
      refs.push(ref);
      return {
        ref,
        passkeys: ref.get(ElicitationPasskeys),
        service: ref.get(ElicitationService),
        reseal: ref.get(PasskeyReseal),
        store: ref.get(ElicitationStore),
      };
    }

    /** A new space, its schema or tables made with the first deploy's ring. */
    async function space(): Promise<string> {
      const name = `t${randomUUID().slice(0, 8)}`;
      spaces.push(name);
      await kind.prepare(keyed(kind.make(name), [K1, K2]));
      return name;
    }

    /** On `at`: bob's passkey, alice's removed one, and bob's signed decision on a confirm page bound to ACTION. */
    async function firstDeploy(at: Awaited<ReturnType<typeof instance>>) {
      const register = async (user: string) => {
        const authenticator = new SoftAuthenticator('mcp.example.com', ORIGIN);
        const options = await at.passkeys.registrationOptions(user);
        expect(await at.passkeys.register(user, authenticator.register(String(options.challenge)), `${user}'s key`)).toMatchObject({
          ok: true,
        });
        return authenticator;
      };
      const bob = await register('bob');
      const alice = await register('alice');
      expect(await at.service.removePasskey('alice', alice.credentialId)).toBe(true);
      const receipt = await signed(at, bob);
      return { bob, alice, receipt };
    }

    /** A confirm page of bob's bound to ACTION, signed with `bob`: the receipt. */
    async function signed(at: Awaited<ReturnType<typeof instance>>, bob: SoftAuthenticator): Promise<PasskeyReceipt> {
      const { elicitationId } = await at.service.createUrlElicitation({
        kind: 'confirm',
        presence: 'passkey',
        action: ACTION,
        userId: 'bob',
        message: 'Transfer?',
      });
      const record = (await at.store.get(elicitationId, Date.now()))!;
      const challenge = decisionChallenge({ elicitationId, actionHash: actionHash(ACTION), decision: 'confirm' });
      const verdict = await at.passkeys.verifyDecision(record, bob.sign(challenge));
      expect(verdict).toMatchObject({ ok: true });
      return (verdict as { value: PasskeyReceipt }).value;
    }

    it('moves them under the new first key once every live instance seals with it; the old key can then go', async () => {
      const name = await space();
      const first = await instance(name, [K1, K2]);
      const { bob, alice, receipt } = await firstDeploy(first);
      // The first deploy is still live: the second's instance seals with K2, it with K1. Nothing is moved yet.
      const second = await instance(name, [K2, K1]);
      expect(second.reseal.done).toBeUndefined();
      await first.ref.close();
      // Its next announcement finds every live ring sealing with K2.
      await second.ref.get(ElicitationKeyRingAnnouncer).refresh();
      expect(await second.reseal.done).toEqual({ moved: 2, unreadable: 0 });

      // K1 leaves the ring.
      const third = await instance(name, [K2]);
      expect(await third.reseal.done).toEqual({ moved: 0, unreadable: 0 });
      expect((await third.passkeys.list('bob')).map((p) => p.id)).toEqual([bob.credentialId]);
      expect(await third.passkeys.list('alice')).toEqual([]);
      expect(await third.store.getPasskey!(alice.credentialId)).toMatchObject({ userId: 'alice', removedAt: expect.any(Number) });
      expect(await third.service.verifyReceipt(receipt)).toMatchObject({ valid: true, userId: 'bob', credentialId: bob.credentialId });
      // Bob signs again with the passkey moved (its counter went on from the first signature).
      expect((await signed(third, bob)).counter).toBe(receipt.counter + 1);
    });

    it('moves a step at a time from its cursor; a second pass finds nothing to move', async () => {
      const name = await space();
      const before = keyed(kind.make(name), [K1, K2]);
      const ids = Array.from({ length: 5 }, (_, i) => `cred-${i}-${randomUUID()}`);
      for (const [i, id] of ids.entries()) {
        const passkey = { id, userId: `user-${i % 2}`, publicKey: `pk-${i}`, counter: 0, name: 'Key', createdAt: 1_000 + i };
        expect(await before.addPasskey!(passkey, 10)).toBe('added');
      }
      const after = keyed(kind.make(name), [K2, K1]);
      const pass = async () => {
        let cursor: string | undefined;
        let moved = 0;
        let steps = 0;
        do {
          const step = await after.resealPasskeys!(cursor, 2);
          expect(step.unreadable).toBe(0);
          moved += step.moved;
          cursor = step.next;
        } while (cursor !== undefined && ++steps < 20);
        return moved;
      };
      expect(await pass()).toBe(5);
      expect(await pass()).toBe(0);
      // Read, and listed by user, with K2 alone.
      const only = keyed(kind.make(name), [K2]);
      expect((await only.listPasskeys!('user-0')).map((p) => p.id)).toEqual([ids[0], ids[2], ids[4]]);
      expect((await only.listPasskeys!('user-1')).map((p) => p.id)).toEqual([ids[1], ids[3]]);
    });

    it('leaves passkeys sealed under a key the ring lacks as they are, counted as unreadable', async () => {
      const name = await space();
      const first = await instance(name, [K1, K2]);
      const { bob, receipt } = await firstDeploy(first);
      await first.ref.close();
      const stranger = await instance(name, [K3]);
      expect(await stranger.reseal.done).toEqual({ moved: 0, unreadable: 2 });
      await stranger.ref.close();
      // Nothing was changed: K1 still opens them.
      const back = await instance(name, [K1]);
      expect(await back.reseal.done).toEqual({ moved: 0, unreadable: 0 });
      expect((await back.passkeys.list('bob')).map((p) => p.id)).toEqual([bob.credentialId]);
      expect(await back.service.verifyReceipt(receipt)).toMatchObject({ valid: true });
    });
  });
});
