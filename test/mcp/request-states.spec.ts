/**
 * `RequestStates`: a sealed `requestState` is redeemed once (a counter in the store, under the state's own lifetime),
 * on the memory store and on Redis, across instances sharing the store; through `McpElicitation.verifyRequestState`.
 * The seal itself: request-state.codec.spec.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { RequestStates } from '../../src/mcp/input-required/request-states.js';
import type { SdkV2Context } from '../../src/mcp/sdk/sdk.types.js';
import { RequestStateError, type RequestStateRejection } from '../../src/errors/request-state.error.js';
import { digestOf } from '../../src/core/json-digest.js';
import { RedisElicitationStore } from '../../src/redis/index.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { deletePrefix, describeRedis, REDIS_URL, scanKeys } from '../support/redis.js';
import { compileElicitation } from '../support/testing-module.js';

async function rejectionOf(promise: Promise<unknown>): Promise<RequestStateRejection | 'opened'> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RequestStateError);
    return (error as RequestStateError).reason;
  }
  return 'opened';
}

/** An SDK 2.x handler context as the binding reads it, for `user` (or no user). */
function contextFor(user: string | undefined, method = 'tools/call', mcpName?: string): SdkV2Context {
  const headers = new Headers(mcpName === undefined ? {} : { 'Mcp-Name': mcpName });
  return {
    mcpReq: { id: 1, method, requestState: () => undefined },
    http: {
      ...(user && { authInfo: { token: user, clientId: user, scopes: [], extra: { userId: user } } }),
      req: { headers },
    },
  };
}

/** Single use, checked at several later instants of the state's life (Date.now moved, no waiting). */
function describeSingleUse(makeModule: () => Promise<TestingModule>, cleanup: () => Promise<void> = () => Promise.resolve()) {
  let ref: TestingModule;
  let binding: McpElicitation;
  let states: RequestStates;
  const TTL = 10 * 60_000;

  beforeEach(async () => {
    ref = await makeModule();
    binding = ref.get(McpElicitation);
    states = ref.get(RequestStates);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await ref.close();
    await cleanup();
  });

  const at = (time: number) => jest.spyOn(Date, 'now').mockReturnValue(time);
  /** Verifies a state, then uses it up for the call it was minted for (as the tool wrapper does). */
  const use = async (state: string, ctx: SdkV2Context, args: unknown) => {
    const payload = await binding.verifyRequestState(state, ctx);
    await states.redeem(payload, payload.name, args);
    return payload;
  };

  it('redeems a state once; the second redemption is refused as replayed', async () => {
    const alice = contextFor('alice');
    const state = binding.sealRequestState(alice, 'delete-file', { path: '/tmp/x' });
    const first = await use(state, alice, { path: '/tmp/x' });
    expect(first.name).toBe('delete-file');
    expect(first.argsDigest).toBe(digestOf({ path: '/tmp/x' }));
    expect(await rejectionOf(binding.verifyRequestState(state, alice))).toBe('replayed');
    expect(await rejectionOf(binding.verifyRequestState(state, alice))).toBe('replayed');
  });

  it('refuses the replay whenever it comes during the state life (not only in the same millisecond)', async () => {
    const start = Date.now();
    at(start);
    const alice = contextFor('alice');
    const states = [1, 2, 3, 4].map(() => binding.sealRequestState(alice, 'delete-file', { path: '/tmp/x' }));
    for (const [i, later] of [1, 61_000, TTL / 2 + 7, TTL - 1].entries()) {
      at(start + (i % 2));
      expect((await use(states[i], alice, { path: '/tmp/x' })).user).toBe('alice');
      at(start + later);
      expect(await rejectionOf(binding.verifyRequestState(states[i], alice))).toBe('replayed');
    }
  });

  it('does not burn a state when someone else presents it: the owner still redeems it once', async () => {
    const alice = contextFor('alice');
    const state = binding.sealRequestState(alice, 'connect-service', { service: 'github' });
    expect(await rejectionOf(binding.verifyRequestState(state, contextFor('bob')))).toBe('user');
    expect(await rejectionOf(binding.verifyRequestState(state, contextFor(undefined)))).toBe('user');
    expect(await rejectionOf(binding.verifyRequestState(state, contextFor('alice', 'prompts/get')))).toBe('method');
    expect(await rejectionOf(binding.verifyRequestState(`${state.slice(0, -1)}${state.endsWith('A') ? 'Q' : 'A'}`, alice))).toMatch(
      /^(tampered|malformed)$/,
    );
    expect((await use(state, alice, { service: 'github' })).name).toBe('connect-service');
    expect(await rejectionOf(binding.verifyRequestState(state, alice))).toBe('replayed');
  });

  it('refuses a state presented for another tool (the validated Mcp-Name header) without burning it', async () => {
    const state = binding.sealRequestState(contextFor('alice'), 'delete-file', { path: '/x' });
    expect(await rejectionOf(binding.verifyRequestState(state, contextFor('alice', 'tools/call', 'approve-deploy')))).toBe('tool');
    const encoded = `=?base64?${Buffer.from('approve-deploy').toString('base64')}?=`;
    expect(await rejectionOf(binding.verifyRequestState(state, contextFor('alice', 'tools/call', encoded)))).toBe('tool');
    const sameName = `=?base64?${Buffer.from('delete-file').toString('base64')}?=`;
    expect((await use(state, contextFor('alice', 'tools/call', sameName), { path: '/x' })).name).toBe('delete-file');
    expect(await rejectionOf(binding.verifyRequestState(state, contextFor('alice', 'tools/call', 'delete-file')))).toBe('replayed');
  });

  it('leaves a state that matches the request but not the call (other arguments, other tool) as it was', async () => {
    const alice = contextFor('alice');
    const state = binding.sealRequestState(alice, 'delete-file', { path: '/tmp/x' });
    const payload = await binding.verifyRequestState(state, alice);
    expect(await rejectionOf(states.redeem(payload, 'delete-file', { path: '/etc/passwd' }))).toBe('arguments');
    expect(await rejectionOf(states.redeem(payload, 'approve-deploy', { path: '/tmp/x' }))).toBe('tool');
    // Not opened by this binding (another hook's value): refused.
    expect(await rejectionOf(states.redeem({ ...payload }, 'delete-file', { path: '/tmp/x' }))).toBe('malformed');
    // Nothing was used up: the call it was minted for redeems it once.
    await states.redeem(payload, 'delete-file', { path: '/tmp/x' });
    expect(await rejectionOf(states.redeem(payload, 'delete-file', { path: '/tmp/x' }))).toBe('replayed');
    expect(await rejectionOf(binding.verifyRequestState(state, alice))).toBe('replayed');
  });

  it('refuses an expired state before redeeming it', async () => {
    const start = Date.now();
    at(start);
    const alice = contextFor('alice');
    const state = binding.sealRequestState(alice, 'delete-file', {});
    at(start + TTL);
    expect(await rejectionOf(binding.verifyRequestState(state, alice))).toBe('expired');
    at(start + TTL - 1);
    expect((await use(state, alice, {})).name).toBe('delete-file');
  });

  it('redeems different states independently', async () => {
    const alice = contextFor('alice');
    const a = binding.sealRequestState(alice, 'delete-file', { path: '/a' });
    const b = binding.sealRequestState(alice, 'delete-file', { path: '/a' });
    expect((await use(a, alice, { path: '/a' })).id).not.toBe((await use(b, alice, { path: '/a' })).id);
    expect(await rejectionOf(binding.verifyRequestState(a, alice))).toBe('replayed');
    expect(await rejectionOf(binding.verifyRequestState(b, alice))).toBe('replayed');
  });
}

describe('McpElicitation.verifyRequestState on the memory store', () => {
  describeSingleUse(() => compileElicitation({ requestStateTtlMs: 10 * 60_000 }));

  it("counts a state's redemptions under its own lifetime: instances with other requestStateTtlMs still refuse a replay", async () => {
    const store = new MemoryElicitationStore();
    const encryptionKey = randomBytes(32);
    const a = await compileElicitation({ encryptionKey, store, requestStateTtlMs: 60_000 });
    const b = await compileElicitation({ encryptionKey, store, requestStateTtlMs: 7 * 60_000 });
    try {
      const alice = contextFor('alice');
      const state = a.get(McpElicitation).sealRequestState(alice, 'delete-file', { path: '/x' });
      const opened = await a.get(McpElicitation).verifyRequestState(state, alice);
      await a.get(RequestStates).redeem(opened, 'delete-file', { path: '/x' });
      // B, configured otherwise, sees the same counter: the state is used up there too.
      expect(await rejectionOf(b.get(McpElicitation).verifyRequestState(state, alice))).toBe('replayed');
      // And the other way round: used up on B, refused on A.
      const second = a.get(McpElicitation).sealRequestState(alice, 'delete-file', { path: '/y' });
      await b.get(RequestStates).redeem(await b.get(McpElicitation).verifyRequestState(second, alice), 'delete-file', { path: '/y' });
      expect(await rejectionOf(a.get(McpElicitation).verifyRequestState(second, alice))).toBe('replayed');
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describeRedis('McpElicitation.verifyRequestState on Redis', () => {
  const RUN = `test-rs-${randomUUID().slice(0, 8)}`;
  let client: Redis;
  let n = 0;
  let prefix = '';

  beforeAll(() => {
    client = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await deletePrefix(client, RUN);
    await client.quit();
  });

  describe('single use', () =>
    describeSingleUse(
      () => {
        prefix = `${RUN}-${++n}`;
        return compileElicitation({
          requestStateTtlMs: 10 * 60_000,
          encryptionKey: randomBytes(32),
          store: new RedisElicitationStore(client, { keyPrefix: prefix }),
        });
      },
      async () => {
        // Every redemption left one bounded counter in this prefix, nothing without a TTL (the store's own marker of the
        // askKey index upgrade, kept a year on purpose, aside).
        const keys = (await scanKeys(client, `{${prefix}}*`)).filter((key) => !key.endsWith(':upgrade:a'));
        expect(keys.length).toBeGreaterThan(0);
        for (const key of keys) {
          expect(key).toContain('request-state:');
          const ttl = await client.pttl(key);
          expect(ttl).toBeGreaterThan(0);
          expect(ttl).toBeLessThanOrEqual(2 * 10 * 60_000);
        }
        await deletePrefix(client, prefix);
      },
    ));

  it('refuses a replay on another instance sharing the store', async () => {
    const shared = `${RUN}-shared`;
    const encryptionKey = randomBytes(32);
    const a = await compileElicitation({ encryptionKey, store: new RedisElicitationStore(client, { keyPrefix: shared }) });
    const b = await compileElicitation({ encryptionKey, store: new RedisElicitationStore(client, { keyPrefix: shared }) });
    try {
      const alice = contextFor('alice');
      const state = a.get(McpElicitation).sealRequestState(alice, 'delete-file', { path: '/x' });
      const opened = await b.get(McpElicitation).verifyRequestState(state, alice);
      await b.get(RequestStates).redeem(opened, 'delete-file', { path: '/x' });
      expect(await rejectionOf(a.get(McpElicitation).verifyRequestState(state, alice))).toBe('replayed');
    } finally {
      await a.close();
      await b.close();
      await deletePrefix(client, shared);
    }
  });
});
