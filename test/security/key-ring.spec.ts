/**
 * Instances that share a store never silently disagree on `encryptionKey` (issue #15, part 1), the parts that need
 * no Redis: key ids (fingerprints), the ring comparison and its texts, the start-up refusal of a shared store
 * without a key, key ids in sealed values and CSRF tokens, and the announcer's life (on a store stub, fake timers).
 * On a real Redis: test/redis/redis.key-ring.spec.ts and e2e/stores/key-ring.e2e-spec.ts.
 */
import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { ElicitationKeyRingAnnouncer } from '../../src/module/elicitation-key-ring.announcer.js';
import { KEY_RING_REFRESH_MS, KEY_RING_TTL_MS } from '../../src/options/elicitation.constants.js';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { ElicitationKeyError } from '../../src/errors/elicitation-key.error.js';
import { ElicitationStoreUnavailableError } from '../../src/errors/elicitation-store-unavailable.error.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { AnnouncedKeyIds } from '../../src/security/announced-key-ids.js';
import { CsrfTokens } from '../../src/security/csrf.js';
import { keyIdOf } from '../../src/security/key-ids.js';
import { compareKeyRings, refusalText, warningTexts } from '../../src/security/key-ring-check.js';
import { SecretBox } from '../../src/security/secret-box.js';
import { StoreKeyRing } from '../../src/security/store-key-ring.js';
import type { ElicitationEventChannel, ElicitationStore, KeyRingEntry } from '../../src/stores/elicitation-store.js';
import { isSharedStore } from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { errorOf } from '../support/error-of.js';

const [K1, K2, K3] = [randomBytes(32), randomBytes(32), randomBytes(32)];
const [ID1, ID2, ID3] = [K1, K2, K3].map(keyIdOf);

/** Every spelling of a key a message could leak: base64, base64url, hex (whole and the first 8 bytes). */
function spellings(key: Buffer): string[] {
  return [key.toString('base64'), key.toString('base64url'), key.toString('hex'), key.subarray(0, 8).toString('hex')];
}

describe('key ids: fingerprints derived for that purpose alone', () => {
  it('are 8 hex characters, the same for the same key, different for another', () => {
    expect(ID1).toMatch(/^[0-9a-f]{8}$/);
    expect(keyIdOf(Buffer.from(K1))).toBe(ID1);
    expect(new Set([ID1, ID2, ID3]).size).toBe(3);
  });

  it('are neither a part of the key nor of its plain hash', () => {
    for (const key of [K1, K2, K3]) {
      const id = keyIdOf(key);
      expect(key.toString('hex')).not.toContain(id);
      expect(createHash('sha256').update(key).digest('hex').slice(0, 8)).not.toBe(id);
    }
  });

  it('name the encryptionKey in every sealed value, whatever the purpose of the derived key', () => {
    const answer = new SecretBox([K1]).seal('x', 'ctx');
    const record = new StoreKeyRing([K1, K2]).seal('x', 'ctx');
    const derived = new SecretBox([K1], 'some purpose').seal('x', 'ctx');
    expect([answer, record, derived].map((s) => s.split('.')[1])).toEqual([ID1, ID1, ID1]);
  });
});

describe('SecretBox: a value it cannot open names its key', () => {
  it('throws ElicitationKeyError with the key id it was sealed under and the ring it has, never a key', () => {
    const sealed = new SecretBox([K1]).seal('secret', 'ctx');
    const error = errorOf(() => new SecretBox([K2, K3]).open(sealed, 'ctx'));
    expect(error).toBeInstanceOf(ElicitationKeyError);
    expect(error).toMatchObject({ name: 'ElicitationKeyError', keyId: ID1, ringKeyIds: [ID2, ID3] });
    expect(error.message).toContain(ID1);
    expect(error.message).toContain(`${ID2}, ${ID3}`);
    expect(error.message).toContain('encryptionKey');
    for (const key of [K1, K2, K3]) for (const spelling of spellings(key)) expect(error.message).not.toContain(spelling);
  });

  it('checks the key id without decrypting (assertKnownKey), and still says "unknown format" for a malformed value', () => {
    const box = new SecretBox([K1]);
    expect(() => box.assertKnownKey(box.seal('x', 'ctx'))).not.toThrow();
    expect(() => box.assertKnownKey(new SecretBox([K2]).seal('x', 'ctx'))).toThrow(ElicitationKeyError);
    expect(() => box.open('v1.nothing', 'ctx')).toThrow('unknown format');
    expect(errorOf(() => box.open('v1.nothing', 'ctx'))).not.toBeInstanceOf(ElicitationKeyError);
  });

  it('still opens what was sealed before key ids were fingerprints (the box key’s SHA-256 as id)', () => {
    for (const purpose of [undefined, 'nestjs-mcp-elicitation store records']) {
      const box = new SecretBox([K2, K1], purpose);
      const sealed = new SecretBox([K1], purpose).seal('before', 'ctx').split('.');
      // The earlier id: the SHA-256 of the key the box encrypts with (derived with HKDF for a purpose).
      const boxKey = purpose === undefined ? K1 : Buffer.from(hkdfSync('sha256', K1, Buffer.alloc(0), purpose, 32));
      sealed[1] = createHash('sha256').update(boxKey).digest('hex').slice(0, 8);
      expect(box.open(sealed.join('.'), 'ctx')).toBe('before');
      expect(() => new SecretBox([K2], purpose).open(sealed.join('.'), 'ctx')).toThrow(ElicitationKeyError);
    }
  });
});

describe('CsrfTokens: the token names its key', () => {
  it('is `<key id>.<HMAC>` and verifies on every instance holding that key, first or not (a rotation)', () => {
    const { nonce, token } = new CsrfTokens([K1]).issue('e1');
    expect(token).toMatch(new RegExp(`^${ID1}\\.[A-Za-z0-9_-]{43}$`));
    expect(new CsrfTokens([K2, K1]).verify('e1', nonce, token)).toBe(true);
    expect(new CsrfTokens([K1, K2]).verify('e1', nonce, token)).toBe(true);
    expect(new CsrfTokens([K2, K1]).verify('e2', nonce, token)).toBe(false);
  });

  it('refuses a token of a key the ring lacks as forged (false), or with ElicitationKeyError when a live instance announced the key id', () => {
    const { nonce, token } = new CsrfTokens([K1]).issue('e1');
    expect(new CsrfTokens([K2]).verify('e1', nonce, token)).toBe(false);
    const announced = new AnnouncedKeyIds();
    announced.update([{ keyIds: [ID2, ID1] }]);
    const error = errorOf(() => new CsrfTokens([K2], announced).verify('e1', nonce, token));
    expect(error).toMatchObject({ name: 'ElicitationKeyError', keyId: ID1, ringKeyIds: [ID2] });
    expect(error.message).toContain('CSRF token');
    expect(new CsrfTokens([K2], announced).verify('e1', nonce, token.slice(9))).toBe(false);
    expect(new CsrfTokens([K2], announced).verify('e1', nonce, `XXXXXXXX${token.slice(8)}`)).toBe(false);
    // Rings read again without it: a forged post again.
    announced.update([]);
    expect(new CsrfTokens([K2], announced).verify('e1', nonce, token)).toBe(false);
  });
});

describe('compareKeyRings', () => {
  const entry = (instanceId: string, ...keyIds: string[]) => ({ instanceId, keyIds });

  it('finds nothing when every ring holds the sealing keys of the others', () => {
    expect(compareKeyRings([ID1], [entry('a', ID1), entry('b', ID1)])).toEqual({
      disjoint: [],
      theirSealingKeyMissing: [],
      mySealingKeyMissing: [],
    });
  });

  it("finds nothing at any step of the README's rotation in two deploys", () => {
    const steps = [[ID1], [ID1, ID2], [ID2, ID1], [ID2]];
    for (let i = 0; i + 1 < steps.length; i++) {
      // Mid-deploy, instances of step i and step i + 1 run side by side: neither sees a finding.
      const none = { disjoint: [], theirSealingKeyMissing: [], mySealingKeyMissing: [] };
      expect(compareKeyRings(steps[i + 1], [entry('old', ...steps[i])])).toEqual(none);
      expect(compareKeyRings(steps[i], [entry('new', ...steps[i + 1])])).toEqual(none);
    }
  });

  it('groups the rings sharing no key, counting their instances', () => {
    const found = compareKeyRings([ID1], [entry('a', ID2), entry('b', ID2), entry('c', ID3, ID2), entry('d', ID1)]);
    expect(found.disjoint).toEqual([
      { keyIds: [ID2], instances: 2 },
      { keyIds: [ID3, ID2], instances: 1 },
    ]);
  });

  it('finds an older key only (their sealing key missing here) and a one-deploy rotation (mine missing there)', () => {
    expect(compareKeyRings([ID1], [entry('a', ID2, ID1)])).toEqual({
      disjoint: [],
      theirSealingKeyMissing: [{ keyIds: [ID2, ID1], instances: 1 }],
      mySealingKeyMissing: [],
    });
    expect(compareKeyRings([ID2, ID1], [entry('a', ID1)])).toEqual({
      disjoint: [],
      theirSealingKeyMissing: [],
      mySealingKeyMissing: [{ keyIds: [ID1], instances: 1 }],
    });
  });

  it('words the refusal and the warnings with key ids and encryptionKey, never a key', () => {
    const refusal = refusalText([ID1], [{ keyIds: [ID2], instances: 2 }], 60);
    expect(refusal).toContain(`[${ID1}]`);
    expect(refusal).toContain(`2 live instances with [${ID2}]`);
    expect(refusal).toContain('same encryptionKey');
    expect(refusal).toContain('60 s');
    const warnings = warningTexts([ID1], {
      disjoint: [],
      theirSealingKeyMissing: [{ keyIds: [ID2, ID1], instances: 1 }],
      mySealingKeyMissing: [{ keyIds: [ID3, ID2], instances: 3 }],
    });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('only an older key');
    expect(warnings[0]).toContain(`[${ID2}, ${ID1}]`);
    expect(warnings[1]).toContain(`seals under key id ${ID1}`);
    for (const text of [refusal, ...warnings]) {
      for (const key of [K1, K2, K3]) for (const spelling of spellings(key)) expect(text).not.toContain(spelling);
    }
  });
});

describe('a store shared between processes requires encryptionKey, in every environment', () => {
  const base = { baseUrl: 'https://mcp.example.com', resolvePageUser: () => 'u' };
  const client = new Redis({ lazyConnect: true });

  /** A memory store that says it is shared. */
  class SharedStore extends MemoryElicitationStore {
    override readonly shared = true;
  }
  /** A store carrying events between instances, saying nothing of sharing. */
  class ChannelStore extends MemoryElicitationStore {
    declare readonly shared: boolean;
    constructor() {
      super();
      Object.defineProperty(this, 'shared', { value: undefined });
    }
    override openEventChannel(): Promise<ElicitationEventChannel> {
      return Promise.resolve({ publish: () => Promise.resolve(), close: () => Promise.resolve() });
    }
  }

  it('tells which stores are shared: Redis yes, memory no, unset by openEventChannel', () => {
    expect(new RedisElicitationStore(client).shared).toBe(true);
    expect(new MemoryElicitationStore().shared).toBe(false);
    expect(isSharedStore(new SharedStore())).toBe(true);
    expect(isSharedStore(new ChannelStore())).toBe(true);
    const channels = new ChannelStore();
    expect(isSharedStore({ shared: false, openEventChannel: () => channels.openEventChannel() })).toBe(false);
    expect(isSharedStore({})).toBe(false);
  });

  for (const NODE_ENV of ['development', 'test', 'production', undefined]) {
    it(`refuses to start without encryptionKey on a shared store (NODE_ENV=${String(NODE_ENV)})`, () => {
      for (const store of [new RedisElicitationStore(client), new SharedStore(), new ChannelStore()] as ElicitationStore[]) {
        const error = errorOf(() => resolveElicitationOptions({ ...base, store }, 'elicit', { NODE_ENV }));
        expect(error).toBeInstanceOf(ElicitationConfigError);
        expect((error as ElicitationConfigError).option).toBe('encryptionKey');
        expect(error.message).toContain('shared between processes');
        expect(error.message).toContain('every instance the same encryptionKey');
        expect(error.message).toContain('openssl rand -base64 32');
      }
    });
  }

  it('starts on a shared store with a key, and on the memory store without one outside production (warning)', () => {
    const key = randomBytes(32);
    const shared = resolveElicitationOptions({ ...base, encryptionKey: key, store: new SharedStore() }, 'elicit', {});
    expect(shared.options.encryptionKeys).toEqual([key]);
    const memory = resolveElicitationOptions({ ...base, store: new MemoryElicitationStore() }, 'elicit', {});
    expect(memory.options.encryptionKeys).toHaveLength(1);
    expect(memory.warnings.join('\n')).toMatch(/encryptionKey is not set/);
    expect(resolveElicitationOptions(base, 'elicit', {}).options.encryptionKeys).toHaveLength(1);
  });
});

describe('ElicitationKeyRingAnnouncer (a store stub, fake timers)', () => {
  /** A store offering announceKeyRing over an in-memory map, recording every call. */
  function stubStore(others: KeyRingEntry[] = []) {
    const entries = new Map<string, { entry: KeyRingEntry; until: number }>(
      others.map((e) => [e.instanceId, { entry: e, until: Infinity }]),
    );
    const calls: Array<{ entry: KeyRingEntry; ttlMs: number }> = [];
    let down = false;
    const store = {
      calls,
      setDown: (value: boolean) => (down = value),
      announceKeyRing(entry: KeyRingEntry, now: number, ttlMs: number): Promise<KeyRingEntry[]> {
        calls.push({ entry, ttlMs });
        if (down) return Promise.reject(new ElicitationStoreUnavailableError('announceKeyRing', new Error('down')));
        if (ttlMs > 0) entries.set(entry.instanceId, { entry, until: now + ttlMs });
        else entries.delete(entry.instanceId);
        return Promise.resolve([...entries.values()].filter((e) => e.until > now).map((e) => e.entry));
      },
    };
    return store;
  }
  const options = (keys: Buffer[]) => ({ encryptionKeys: keys }) as ResolvedElicitationOptions;
  let warn: jest.SpiedFunction<Logger['warn']>;
  let error: jest.SpiedFunction<Logger['error']>;

  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it(`announces at start-up, every ${KEY_RING_REFRESH_MS / 1000} s with a TTL of ${KEY_RING_TTL_MS / 1000} s, and withdraws on shutdown`, async () => {
    const store = stubStore([{ instanceId: 'other', keyIds: [ID1] }]);
    const announcer = new ElicitationKeyRingAnnouncer(options([K1]), store);
    await announcer.start();
    expect(store.calls).toEqual([{ entry: { instanceId: expect.any(String), keyIds: [ID1] }, ttlMs: KEY_RING_TTL_MS }]);
    await jest.advanceTimersByTimeAsync(KEY_RING_REFRESH_MS * 3);
    expect(store.calls.map((c) => c.ttlMs)).toEqual([KEY_RING_TTL_MS, KEY_RING_TTL_MS, KEY_RING_TTL_MS, KEY_RING_TTL_MS]);
    await announcer.onModuleDestroy();
    expect(store.calls.at(-1)).toMatchObject({ ttlMs: 0 });
    await jest.advanceTimersByTimeAsync(KEY_RING_REFRESH_MS * 3);
    expect(store.calls).toHaveLength(5);
    expect(warn).not.toHaveBeenCalled();
  });

  it('refuses to start when a live ring shares no key, and withdraws its own entry first', async () => {
    const store = stubStore([{ instanceId: 'other', keyIds: [ID2] }]);
    const announcer = new ElicitationKeyRingAnnouncer(options([K1]), store);
    const refusal = await announcer.start().then(
      () => undefined,
      (e: unknown) => e as ElicitationConfigError,
    );
    expect(refusal).toBeInstanceOf(ElicitationConfigError);
    expect(refusal?.option).toBe('encryptionKey');
    expect(refusal?.message).toContain(ID1);
    expect(refusal?.message).toContain(ID2);
    expect(store.calls.map((c) => c.ttlMs)).toEqual([KEY_RING_TTL_MS, 0]);
    // No timer was left behind.
    await jest.advanceTimersByTimeAsync(KEY_RING_REFRESH_MS * 2);
    expect(store.calls).toHaveLength(2);
  });

  it('warns once about a ring holding a newer sealing key, at start-up and not again on refresh', async () => {
    const store = stubStore([{ instanceId: 'newer', keyIds: [ID2, ID1] }]);
    const announcer = new ElicitationKeyRingAnnouncer(options([K1]), store);
    await announcer.start();
    await jest.advanceTimersByTimeAsync(KEY_RING_REFRESH_MS * 2);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain('only an older key');
    await announcer.onModuleDestroy();
  });

  it('starts when the store is unreachable, and compares (reporting, not refusing) once it is back', async () => {
    const store = stubStore([{ instanceId: 'other', keyIds: [ID2] }]);
    store.setDown(true);
    const announcer = new ElicitationKeyRingAnnouncer(options([K1]), store);
    await announcer.start();
    expect(String(warn.mock.calls[0][0])).toContain(
      'start-up goes on without it, and if the app runs, the rings are compared once the store answers',
    );
    store.setDown(false);
    await jest.advanceTimersByTimeAsync(KEY_RING_REFRESH_MS);
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0][0])).toContain('shares no key');
    await jest.advanceTimersByTimeAsync(KEY_RING_REFRESH_MS);
    expect(error).toHaveBeenCalledTimes(1);
    await announcer.onModuleDestroy();
  });

  it('withdraws after an announcement in flight at shutdown, so that it does not record the ring again', async () => {
    const calls: number[] = [];
    let release: () => void = () => undefined;
    const store = {
      announceKeyRing: (_entry: KeyRingEntry, _now: number, ttlMs: number): Promise<KeyRingEntry[]> => {
        calls.push(ttlMs);
        // The first refresh hangs until released; the start-up announcement and the withdrawal answer at once.
        if (calls.length === 2) return new Promise((resolve) => (release = () => resolve([])));
        return Promise.resolve([]);
      },
    };
    const announcer = new ElicitationKeyRingAnnouncer(options([K1]), store);
    await announcer.start();
    await jest.advanceTimersByTimeAsync(KEY_RING_REFRESH_MS);
    expect(calls).toEqual([KEY_RING_TTL_MS, KEY_RING_TTL_MS]);
    const destroyed = announcer.onModuleDestroy();
    await Promise.resolve();
    expect(calls).toEqual([KEY_RING_TTL_MS, KEY_RING_TTL_MS]);
    release();
    await destroyed;
    expect(calls).toEqual([KEY_RING_TTL_MS, KEY_RING_TTL_MS, 0]);
    await announcer.refresh();
    expect(calls).toHaveLength(3);
  });

  it('does nothing on a store without announceKeyRing', async () => {
    const announcer = new ElicitationKeyRingAnnouncer(options([K1]), new MemoryElicitationStore());
    await expect(announcer.start()).resolves.toBeUndefined();
    await expect(announcer.onModuleDestroy()).resolves.toBeUndefined();
  });
});

describe('docker-compose.yml: the two demo instances share one key', () => {
  it('gives both the same 32-byte development key (one definition, merged into each)', () => {
    const compose = readFileSync(fileURLToPath(new URL('../../docker-compose.yml', import.meta.url)), 'utf8');
    const keys = [...compose.matchAll(/ELICITATION_ENCRYPTION_KEY: \$\{ELICITATION_ENCRYPTION_KEY:-([A-Za-z0-9+/=]+)\}/g)];
    expect(keys).toHaveLength(1);
    expect(Buffer.from(keys[0][1], 'base64')).toHaveLength(32);
    expect(compose).toMatch(/^x-demo-env: &demo-env$/m);
    for (const service of ['demo-a', 'demo-b']) {
      const block = new RegExp(`^  ${service}:\\n(?: {4}.*\\n)*? {4}environment:\\n {6}<<: \\*demo-env$`, 'm');
      expect(compose).toMatch(block);
    }
  });
});
