import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { ElicitationKeyError } from '../../src/errors/elicitation-key.error.js';
import { ElicitationQuotaError } from '../../src/errors/elicitation-quota.error.js';
import { AnnouncedKeyIds } from '../../src/security/announced-key-ids.js';
import { CsrfTokens } from '../../src/security/csrf.js';
import { keyIdOf } from '../../src/security/key-ids.js';
import fc from 'fast-check';
import { isCanonicalSealed, SecretBox } from '../../src/security/secret-box.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { compileElicitation } from '../support/testing-module.js';
import { errorOf } from '../support/error-of.js';

/** A memory store that says it keeps its records elsewhere (as a Redis or SQL store does): answers get sealed. */
class OutOfProcessStore extends MemoryElicitationStore {
  override readonly inProcess: boolean = false;
}

const SECRET = 'sk-live-PLANTED-0123456789';

describe('SecretBox (AES-256-GCM with a key ring)', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  it('round-trips and never contains the plaintext', () => {
    const box = new SecretBox([k1]);
    const sealed = box.seal(SECRET, 'id-1');
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(SECRET);
    expect(box.open(sealed, 'id-1')).toBe(SECRET);
    expect(box.seal(SECRET, 'id-1')).not.toBe(sealed); // fresh IV every time
  });

  it('refuses another context, a tampered value and an unknown key', () => {
    const box = new SecretBox([k1]);
    const sealed = box.seal(SECRET, 'id-1');
    expect(() => box.open(sealed, 'id-2')).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'id-1')).toThrow();
    const unknown = errorOf(() => new SecretBox([k2]).open(sealed, 'id-1'));
    expect(unknown).toBeInstanceOf(ElicitationKeyError);
    expect(unknown).toMatchObject({ keyId: keyIdOf(k1), ringKeyIds: [keyIdOf(k2)] });
    expect(unknown.message).toContain('encryptionKey');
  });

  it('rotates: a new first key encrypts, old keys still decrypt', () => {
    const before = new SecretBox([k1]).seal(SECRET, 'id');
    const rotated = new SecretBox([k2, k1]);
    expect(rotated.open(before, 'id')).toBe(SECRET);
    const after = rotated.seal(SECRET, 'id');
    expect(() => new SecretBox([k1]).open(after, 'id')).toThrow();
  });
});

/** The definition of canonical: every part decodes to the right length and encodes back to the same text. */
function canonicalByRoundTrip(sealed: string): boolean {
  const parts = sealed.split('.');
  if (parts.length !== 5 || parts[0] !== 'v1' || !/^[0-9a-f]{8}$/.test(parts[1])) return false;
  const [iv, ciphertext, tag] = parts.slice(2).map((p) => Buffer.from(p, 'base64url'));
  return (
    iv.length === 12 &&
    tag.length === 16 &&
    iv.toString('base64url') === parts[2] &&
    ciphertext.toString('base64url') === parts[3] &&
    tag.toString('base64url') === parts[4]
  );
}

describe('isCanonicalSealed (checked on the text, without decoding)', () => {
  const box = new SecretBox([randomBytes(32)]);
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=.+/ \n';

  it('agrees with decoding and re-encoding every part, on sealed values and on mutations of them', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2 }), fc.constantFrom(...ALPHABET)), { maxLength: 3 }),
        (plaintext, edits) => {
          let sealed = box.seal(plaintext, 'ctx');
          expect(isCanonicalSealed(sealed)).toBe(true);
          for (const [at, op, ch] of edits) {
            const i = at % (sealed.length + 1);
            sealed =
              op === 0
                ? sealed.slice(0, i) + ch + sealed.slice(i + 1)
                : op === 1
                  ? sealed.slice(0, i) + ch + sealed.slice(i)
                  : sealed.slice(0, i) + sealed.slice(i + 1);
          }
          expect(isCanonicalSealed(sealed)).toBe(canonicalByRoundTrip(sealed));
        },
      ),
      { seed: 20261123, numRuns: 3000 },
    );
  });

  it('refuses a value whose last character carries bits the decoder would drop', () => {
    const sealed = box.seal('abcd', 'ctx');
    const swapped = `${sealed.slice(0, -1)}${sealed.endsWith('A') ? 'B' : String.fromCharCode(sealed.charCodeAt(sealed.length - 1) + 1)}`;
    expect(Buffer.from(swapped.split('.')[4], 'base64url')).toEqual(Buffer.from(sealed.split('.')[4], 'base64url'));
    expect(isCanonicalSealed(swapped)).toBe(false);
    expect(() => box.open(swapped, 'ctx')).toThrow('Cannot open this sealed value');
    expect(box.open(sealed, 'ctx')).toBe('abcd');
  });
});

describe('CsrfTokens', () => {
  const csrf = new CsrfTokens(randomBytes(32));

  it('accepts the token for its own elicitation and nonce only', () => {
    const { nonce, token } = csrf.issue('e1');
    expect(csrf.verify('e1', nonce, token)).toBe(true);
    expect(csrf.verify('e2', nonce, token)).toBe(false);
    expect(csrf.verify('e1', csrf.issue('e1').nonce, token)).toBe(false);
    expect(csrf.verify('e1', nonce, `${token}x`)).toBe(false);
    expect(csrf.verify('e1', undefined, token)).toBe(false);
    expect(csrf.verify('e1', nonce, undefined)).toBe(false);
    expect(csrf.verify('e1', nonce, ['a'])).toBe(false);
  });

  it('is shared by instances with the same key and refused by others', () => {
    const key = randomBytes(32);
    const { nonce, token } = new CsrfTokens(key).issue('e1');
    expect(new CsrfTokens(key).verify('e1', nonce, token)).toBe(true);
    // Another key: a forged post, unless a live instance announced the token's key id: then not a forged post but
    // instances that disagree on encryptionKey, named by key id.
    const other = randomBytes(32);
    expect(new CsrfTokens(other).verify('e1', nonce, token)).toBe(false);
    const announced = new AnnouncedKeyIds();
    announced.update([{ keyIds: [keyIdOf(key)] }]);
    const refused = errorOf(() => new CsrfTokens(other, announced).verify('e1', nonce, token));
    expect(refused).toBeInstanceOf(ElicitationKeyError);
    expect(refused).toMatchObject({ keyId: keyIdOf(key), ringKeyIds: [keyIdOf(other)] });
  });
});

describe('security options', () => {
  const base = { baseUrl: 'https://mcp.example.com', resolvePageUser: () => 'u' };
  type RawOptions = Parameters<typeof resolveElicitationOptions>[0];
  const env = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = env;
  });

  it('in production, requires resolvePageUser unless allowUnverifiedPages, explaining the phishing risk', () => {
    process.env.NODE_ENV = 'production';
    const key = randomBytes(32);
    expect(() => resolveElicitationOptions({ baseUrl: 'https://x.example', encryptionKey: key }, 'elicit', process.env)).toThrow(
      /resolvePageUser" is required in production.*phishing.*allowUnverifiedPages/,
    );
    expect(() =>
      resolveElicitationOptions({ baseUrl: 'https://x.example', encryptionKey: key, allowUnverifiedPages: true }, 'elicit', process.env),
    ).not.toThrow();
  });

  it('in production, requires encryptionKey', () => {
    process.env.NODE_ENV = 'production';
    expect(() => resolveElicitationOptions(base, 'elicit', process.env)).toThrow(/encryptionKey" is required in production/);
  });

  it('reads keys as Buffer, hex or base64, and refuses other lengths', () => {
    const key = randomBytes(32);
    const read = (encryptionKey: unknown) =>
      resolveElicitationOptions({ ...base, encryptionKey } as RawOptions, 'elicit', process.env).options.encryptionKeys;
    expect(read(key)[0].equals(key)).toBe(true);
    expect(read(key.toString('hex'))[0].equals(key)).toBe(true);
    expect(read(key.toString('base64'))[0].equals(key)).toBe(true);
    expect(read([key, randomBytes(32)])).toHaveLength(2);
    expect(() => read(randomBytes(16))).toThrow(ElicitationConfigError);
    expect(() => read('short')).toThrow(/exactly 32 bytes/);
    expect(() => read([key, 'nope'])).toThrow(/encryptionKey\[1\]/);
  });

  it.each([
    [{ limits: { createPerMinute: 0 } }, /limits.createPerMinute/],
    [{ limits: { maxBodyBytes: 1.5 } }, /limits.maxBodyBytes/],
    [{ throttle: { limit: -1 } }, /throttle.limit/],
    [{ throttle: 'on' }, /throttle/],
    [{ loginUrl: 'javascript:alert(1)' }, /loginUrl/],
    [{ loginUrl: '//evil.example/login' }, /loginUrl/],
  ])('refuses %j', (patch, message) => {
    expect(() =>
      resolveElicitationOptions({ ...base, encryptionKey: randomBytes(32), ...(patch as object) }, 'elicit', process.env),
    ).toThrow(message);
  });

  it('defaults the limits and the throttle', () => {
    const { options } = resolveElicitationOptions({ ...base, encryptionKey: randomBytes(32) }, 'elicit', process.env);
    expect(options.limits).toEqual({
      createPerMinute: 10,
      maxPendingPerUser: 20,
      maxPending: 100_000,
      maxBodyBytes: 16_384,
      maxMetadataBytes: 4_096,
      maxResultBytes: 1_048_576,
      maxFormAttempts: 3,
      maxUploadBytes: 5_242_880,
      uploadBufferBytes: 67_108_864,
      maxCallsInFlightPerSession: 16,
      maxCallsInFlightPerUser: 64,
      maxStepResultBytes: 8_192,
    });
    expect(options.throttle).toEqual({ limit: 300, ttlMs: 60_000 });
    expect(
      resolveElicitationOptions({ ...base, encryptionKey: randomBytes(32), throttle: false }, 'elicit', process.env).options.throttle,
    ).toBe(false);
  });
});

describe('secrets at rest and read-once delivery', () => {
  let ref: TestingModule | undefined;
  afterEach(async () => {
    await ref?.close();
    ref = undefined;
  });

  it('seals answers in a store that keeps them outside the process, and reveals them only through getResult / findByUserAndType', async () => {
    const key = randomBytes(32);
    ref = await compileElicitation({ encryptionKey: key, store: new OutOfProcessStore() });
    const service = ref.get(ElicitationService);
    const store = ref.get(ElicitationStore);
    const { elicitationId } = await service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice', type: 't' });
    const result = await service.complete(elicitationId, { apiKey: SECRET });
    expect(result).toMatchObject({ ok: true, record: { data: { apiKey: SECRET } } });
    const raw = await store.get(elicitationId, Date.now());
    expect(JSON.stringify(raw)).not.toContain(SECRET);
    expect(raw!.data).toEqual({ $sealed: expect.stringMatching(/^v1\./) });
    expect(new SecretBox([key]).open((raw!.data as { $sealed: string }).$sealed, elicitationId)).toBe(JSON.stringify({ apiKey: SECRET }));
    expect(await service.getResult(elicitationId)).toEqual({ status: 'completed', data: { apiKey: SECRET } });
    expect(await service.findByUserAndType('alice', 't')).toMatchObject({ data: { apiKey: SECRET } });
    const again = await service.complete(elicitationId, { apiKey: 'second' });
    expect(again).toMatchObject({ ok: false, reason: 'already-finished', record: { data: { apiKey: SECRET } } });
  });

  it('seals every answer in such a store, confirm answers and fields marked secret included', async () => {
    ref = await compileElicitation({ store: new OutOfProcessStore() });
    const service = ref.get(ElicitationService);
    const store = ref.get(ElicitationStore);
    const marked = await service.createUrlElicitation({
      kind: 'confirm',
      message: 'ok?',
      userId: 'alice',
      metadata: { secretFields: ['pin'] },
    });
    await service.complete(marked.elicitationId, { pin: '4242' });
    expect(JSON.stringify(await store.get(marked.elicitationId, Date.now()))).not.toContain('4242');
    const plain = await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'alice' });
    await service.complete(plain.elicitationId, { confirmed: true });
    expect((await store.get(plain.elicitationId, Date.now()))!.data).toEqual({ $sealed: expect.stringMatching(/^v1\./) });
    expect(await service.getResult(plain.elicitationId)).toEqual({ status: 'completed', data: { confirmed: true } });
  });

  it('keeps answers unsealed in the memory store (in process), as JSON text: each reader gets a copy of its own', async () => {
    ref = await compileElicitation();
    const service = ref.get(ElicitationService);
    const store = ref.get(ElicitationStore);
    expect(store.inProcess).toBe(true);
    const { elicitationId } = await service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice', type: 't' });
    const answer = { apiKey: SECRET, scopes: ['repo'] };
    await service.complete(elicitationId, answer);
    answer.scopes.push('changed by the caller');
    expect((await store.get(elicitationId, Date.now()))!.data).toEqual({ $json: JSON.stringify({ apiKey: SECRET, scopes: ['repo'] }) });
    const first = await service.getResult<{ apiKey: string; scopes: string[] }>(elicitationId);
    if (first?.status !== 'completed') throw new Error('expected a completed result');
    first.data.scopes.push('changed by a reader');
    expect(await service.getResult(elicitationId)).toEqual({ status: 'completed', data: { apiKey: SECRET, scopes: ['repo'] } });
    // Every other protection stays: the status route and events never carry it (tested with the pages), and it
    // is still read once with consume.
    expect(await service.findByUserAndType('alice', 't', { consume: true })).toMatchObject({ data: { apiKey: SECRET } });
    expect((await store.get(elicitationId, Date.now()))!.data).toBeUndefined();
  });

  it('delivers a secret once with consume, then it is gone from the store', async () => {
    ref = await compileElicitation();
    const service = ref.get(ElicitationService);
    const store = ref.get(ElicitationStore);
    const a = await service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice', type: 'once' });
    await service.complete(a.elicitationId, { apiKey: SECRET });
    expect(await service.findByUserAndType('alice', 'once', { consume: true })).toMatchObject({ data: { apiKey: SECRET } });
    expect(await service.findByUserAndType('alice', 'once', { consume: true })).toBeUndefined();
    expect(await service.getResult(a.elicitationId)).toBeUndefined();
    expect((await store.get(a.elicitationId, Date.now()))!.data).toBeUndefined();
    const b = await service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice', type: 'once' });
    await service.complete(b.elicitationId, { apiKey: 'k2' });
    const reads = await Promise.all([
      service.getResult(b.elicitationId, { consume: true }),
      service.getResult(b.elicitationId, { consume: true }),
    ]);
    expect(reads.filter((r) => r?.status === 'completed')).toHaveLength(1);
  });

  it('refuses creation past the per-user rate and pending caps with ElicitationQuotaError, storing nothing', async () => {
    ref = await compileElicitation({ limits: { createPerMinute: 3, maxPendingPerUser: 100 } });
    const service = ref.get(ElicitationService);
    const store = ref.get<ElicitationStore, MemoryElicitationStore>(ElicitationStore);
    for (let i = 0; i < 3; i++) await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'bob' });
    const error = await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'bob' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ElicitationQuotaError);
    expect((error as ElicitationQuotaError).reason).toBe('rate-limited');
    expect(store.size).toBe(3);
    await expect(service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'carol' })).resolves.toBeDefined();
  });

  it('caps pending elicitations per user', async () => {
    ref = await compileElicitation({ limits: { createPerMinute: 100, maxPendingPerUser: 2 } });
    const service = ref.get(ElicitationService);
    await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'dan' });
    const second = await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'dan' });
    await expect(service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'dan' })).rejects.toMatchObject({
      reason: 'user-pending-limit',
    });
    await service.decline(second.elicitationId);
    await expect(service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'dan' })).resolves.toBeDefined();
  });

  it('refuses oversized metadata and results', async () => {
    ref = await compileElicitation({
      limits: { createPerMinute: 100, maxPendingPerUser: 100, maxMetadataBytes: 100, maxResultBytes: 100 },
    });
    const service = ref.get(ElicitationService);
    await expect(
      service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'u', metadata: { blob: 'x'.repeat(200) } }),
    ).rejects.toThrow(/maxMetadataBytes/);
    const { elicitationId } = await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'u' });
    await expect(service.complete(elicitationId, { blob: 'x'.repeat(200) })).rejects.toThrow(/maxResultBytes/);
    expect((await service.getStatus(elicitationId))!.status).toBe('pending');
  });

  it('checks external URLs against the policy and keeps the target for the redirect', async () => {
    ref = await compileElicitation({ externalUrlPolicy: { resolveHost: () => Promise.resolve(['93.184.216.34']) } });
    const service = ref.get(ElicitationService);
    const ok = await service.createUrlElicitation({
      kind: 'external',
      url: 'https://accounts.example.com/consent?client_id=abc&state=xyz',
      message: 'Connect',
      userId: 'u',
    });
    expect(ok.url).toMatch(/\/elicit\/[0-9a-f-]{36}\/external$/);
    await expect(
      service.createUrlElicitation({ kind: 'external', url: 'http://169.254.169.254/latest', message: 'x', userId: 'u' }),
    ).rejects.toMatchObject({ name: 'UnsafeUrlError' });
    await expect(service.createUrlElicitation({ kind: 'external', message: 'x', userId: 'u' })).rejects.toThrow(/url" is required/);
    await expect(service.createUrlElicitation({ kind: 'confirm', url: 'https://a.example', message: 'x', userId: 'u' })).rejects.toThrow(
      /only for kind "external"/,
    );
  });
});
