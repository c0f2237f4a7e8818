/**
 * Instances sharing one real Redis never silently disagree on `encryptionKey` (issue #15, part 1): module instances
 * with different key rings on one key prefix. Each announces its ring's key ids (never a key) under the prefix with
 * a TTL; one whose ring shares no key with a live instance refuses to start, naming the key ids; one holding only an
 * older key of theirs warns; the README's rotation in two deploys passes silently. What one instance sealed under a
 * key another lacks is reported as an `ElicitationKeyError` naming the key id: by the service (a read-once read then
 * leaves the answer where it is), as a readable tool error through the MCP binding, and as a refused `requestState`.
 * Pages and the status route over HTTP, with demo processes: e2e/stores/key-ring.e2e-spec.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { KEY_RING_TTL_MS } from '../../src/options/elicitation.constants.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { ElicitationKeyError } from '../../src/errors/elicitation-key.error.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { RequestStateError } from '../../src/errors/request-state.error.js';
import type { SdkV2Context } from '../../src/mcp/sdk/sdk.types.js';
import { keySpace } from '../../src/redis/redis.key-space.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { keyIdOf } from '../../src/security/key-ids.js';
import { linked } from '../support/linked-mcp.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../support/redis.js';
import { compileElicitation } from '../support/testing-module.js';

const RUN = `test-keyring-${randomUUID().slice(0, 8)}`;
const [K1, K2, K3] = [randomBytes(32), randomBytes(32), randomBytes(32)];
const [ID1, ID2, ID3] = [K1, K2, K3].map(keyIdOf);

/** What `promise` rejects with (fails the test when it resolves). */
async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** An SDK 2.x handler context as the binding reads it, for `user`. */
function contextFor(user: string): SdkV2Context {
  return {
    mcpReq: { id: 1, method: 'tools/call', requestState: () => undefined },
    http: { authInfo: { token: user, clientId: user, scopes: [], extra: { userId: user } }, req: { headers: new Headers() } },
  };
}

describeRedis('key rings of instances sharing one Redis', () => {
  let client: Redis;
  let prefix: string;
  let n = 0;
  const open: TestingModule[] = [];
  let warn: jest.SpiedFunction<Logger['warn']>;

  /** A module instance on this test's prefix with `keys` (closed after the test). */
  const start = async (...keys: Buffer[]) => {
    const ref = await compileElicitation({ encryptionKey: keys, store: new RedisElicitationStore(client, { keyPrefix: prefix }) });
    open.push(ref);
    return ref;
  };
  const stop = async (ref: TestingModule) => {
    open.splice(open.indexOf(ref), 1);
    await ref.close();
  };
  const ringsInRedis = () => client.zrange(keySpace(prefix).keyRings, '0', '-1');
  const warnings = () => warn.mock.calls.map((call) => String(call[0]));

  beforeAll(() => {
    client = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await deletePrefix(client, RUN);
    await client.quit();
  });
  beforeEach(() => {
    prefix = `${RUN}-${++n}`;
    warn = jest.spyOn(Logger.prototype, 'warn');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all(open.splice(0).map((ref) => ref.close()));
  });

  it('records each ring as key ids only, under the prefix, live for the TTL; shutdown withdraws it', async () => {
    const a = await start(K1);
    const b = await start(K1);
    const members = await ringsInRedis();
    expect(members).toHaveLength(2);
    for (const member of members) expect(member).toMatch(new RegExp(`^[0-9a-f-]{36}:${ID1}$`));
    const content = JSON.stringify(await client.zrange(keySpace(prefix).keyRings, '0', '-1', 'WITHSCORES'));
    for (const spelling of [K1.toString('base64'), K1.toString('base64url'), K1.toString('hex')]) expect(content).not.toContain(spelling);
    const ttl = await client.pttl(keySpace(prefix).keyRings);
    expect(ttl).toBeGreaterThan(KEY_RING_TTL_MS - 10_000);
    expect(ttl).toBeLessThanOrEqual(KEY_RING_TTL_MS);
    await stop(a);
    expect(await ringsInRedis()).toHaveLength(1);
    await stop(b);
    expect(await client.exists(keySpace(prefix).keyRings)).toBe(0);
  });

  it('refuses to start an instance whose ring shares no key with a live one, naming key ids, never keys', async () => {
    await start(K1);
    const refused = await rejectionOf(start(K2, K3));
    expect(refused).toBeInstanceOf(ElicitationConfigError);
    expect((refused as ElicitationConfigError).option).toBe('encryptionKey');
    expect(refused.message).toContain(`[${ID2}, ${ID3}]`);
    expect(refused.message).toContain(`1 live instance with [${ID1}]`);
    for (const key of [K1, K2, K3])
      for (const spelling of [key.toString('base64'), key.toString('hex')]) expect(refused.message).not.toContain(spelling);
    // The refused instance left no entry behind, so it blocks nobody.
    expect(await ringsInRedis()).toEqual([expect.stringContaining(`:${ID1}`)]);
  });

  it('starts the refused ring once the instances it disagreed with are gone', async () => {
    const a = await start(K1);
    await rejectionOf(start(K2));
    await stop(a);
    await start(K2);
    expect(await ringsInRedis()).toEqual([expect.stringContaining(`:${ID2}`)]);
  });

  it('warns an instance that holds only an older key of the live ones, and starts it', async () => {
    await start(K2, K1);
    await start(K1);
    expect(warnings().filter((w) => w.includes('only an older key'))).toEqual([expect.stringContaining(`[${ID2}, ${ID1}]`)]);
  });

  it("passes the README's rotation in two deploys without a refusal or a warning", async () => {
    const old = [await start(K1), await start(K1)];
    // Deploy 1: the new key last, one instance at a time.
    const added = [await start(K1, K2)];
    await stop(old[0]);
    added.push(await start(K1, K2));
    await stop(old[1]);
    // Deploy 2: the new key first.
    const moved = [await start(K2, K1)];
    await stop(added[0]);
    moved.push(await start(K2, K1));
    await stop(added[1]);
    // Dropping the old key later.
    await start(K2);
    expect(warnings().filter((w) => w.includes('encryptionKey'))).toEqual([]);
  });

  it('warns when a rotation skips the first deploy: the others cannot open what the new instance seals', async () => {
    await start(K1);
    await start(K2, K1);
    expect(warnings().filter((w) => w.includes(`seals under key id ${ID2}`))).toHaveLength(1);
  });

  describe('what another instance sealed under a key this one lacks', () => {
    /** A on [K1]; B on [K2, K1] (it starts with a warning): B opens what A seals, A not what B seals. */
    const pair = async () => {
      const a = await start(K1);
      const b = await start(K2, K1);
      return { a, b, onA: a.get(ElicitationService), onB: b.get(ElicitationService) };
    };

    it('is an ElicitationKeyError naming the key id, from getResult and findByUserAndType, and a read-once read leaves the answer', async () => {
      const { onA, onB } = await pair();
      // Created on A (the record sealed under K1), answered on B (the answer sealed under K2).
      const { elicitationId } = await onA.createUrlElicitation({
        kind: 'api-key',
        message: 'Key?',
        userId: 'alice',
        type: 'api-key-github',
      });
      expect(await onB.complete(elicitationId, { apiKey: 'sk-from-b' })).toMatchObject({ ok: true });
      for (const read of [
        () => onA.getResult(elicitationId),
        () => onA.getResult(elicitationId, { consume: true }),
        () => onA.findByUserAndType('alice', 'api-key-github', { consume: true }),
      ]) {
        const error = await rejectionOf(read());
        expect(error).toBeInstanceOf(ElicitationKeyError);
        expect(error).toMatchObject({ keyId: ID2, ringKeyIds: [ID1] });
        expect(error.message).toContain('encryptionKey');
      }
      // Nothing was taken out of the store: B still reads the answer, once.
      expect(await onB.findByUserAndType('alice', 'api-key-github', { consume: true })).toMatchObject({ data: { apiKey: 'sk-from-b' } });
      expect(await onB.getResult(elicitationId)).toBeUndefined();
    });

    it('is an ElicitationKeyError for a record B created (sealed under K2) read on A', async () => {
      const { onA, onB } = await pair();
      const { elicitationId } = await onB.createUrlElicitation({ kind: 'confirm', message: 'Deploy?', userId: 'alice' });
      const error = await rejectionOf(onA.getStatus(elicitationId));
      expect(error).toMatchObject({ name: 'ElicitationKeyError', keyId: ID2 });
      expect(await onB.getStatus(elicitationId)).toMatchObject({ status: 'pending' });
    });

    it('reaches a tool as a readable tool error (MCP SDK, the binding), not an uncaught error', async () => {
      const { a, onA, onB } = await pair();
      const { elicitationId } = await onA.createUrlElicitation({
        kind: 'api-key',
        message: 'Key?',
        userId: 'alice',
        type: 'api-key-github',
      });
      await onB.complete(elicitationId, { apiKey: 'sk-from-b' });
      const { client, call } = await linked(a.get(McpElicitation), { url: {} });
      try {
        const { result } = await call((el) => el.requireAnswer({ kind: 'api-key', message: 'Key?', type: 'api-key-github' }));
        expect(result.isError).toBe(true);
        const text = (result.content as Array<{ text: string }>)[0].text;
        expect(text).toContain(`key id ${ID2}`);
        expect(text).toContain('encryptionKey');
        expect(text).not.toContain('sk-from-b');
      } finally {
        await client.close();
      }
    });

    it('refuses a requestState B sealed (reason "key", the cause naming the key id), and A\'s opens on B', async () => {
      const { a, b } = await pair();
      const alice = contextFor('alice');
      const fromB = b.get(McpElicitation).sealRequestState(alice, 'delete-file', { path: '/x' });
      const refused = await rejectionOf(a.get(McpElicitation).verifyRequestState(fromB, alice));
      expect(refused).toBeInstanceOf(RequestStateError);
      expect(refused).toMatchObject({ reason: 'key', message: 'Invalid or expired requestState' });
      expect(refused.cause).toMatchObject({ name: 'ElicitationKeyError', keyId: ID2 });
      expect(warnings().some((w) => w.includes('requestState refused') && w.includes(ID2))).toBe(true);
      const fromA = a.get(McpElicitation).sealRequestState(alice, 'delete-file', { path: '/x' });
      await expect(b.get(McpElicitation).verifyRequestState(fromA, alice)).resolves.toMatchObject({ user: 'alice' });
    });
  });
});
