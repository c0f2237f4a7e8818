/**
 * `RequestStateCodec`, the sealed `requestState` of 2026-07-28: its one wire format, every tampering refused, the
 * expiry, the user and the method it is bound to, the call it was minted for, the key ring. Single use (the
 * redemption counter in the store): request-states.spec.ts.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { RequestStateError, type RequestStateRejection } from '../../src/errors/request-state.error.js';
import { RequestStateCodec, type RequestState } from '../../src/mcp/input-required/request-state.codec.js';
import { digestOf } from '../../src/core/json-digest.js';
import { SecretBox } from '../../src/security/secret-box.js';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const NOW = Date.UTC(2030, 0, 1);
const EXPECT = { user: 'alice', method: 'tools/call', now: NOW };
/** Planted in the payload: it must never be readable in the sealed string. */
const MARKER = 'PLANTED-MARKER-7f3a9c';

function payload(overrides: Partial<RequestState> = {}): RequestState {
  return {
    id: RequestStateCodec.newId(),
    user: 'alice',
    method: 'tools/call',
    name: 'delete-file',
    argsDigest: digestOf({ path: '/tmp/report.txt', options: { force: true, depth: 2 } }),
    issuedAt: NOW - 1_000,
    expiresAt: NOW + 60_000,
    answered: [
      { key: 'elicitation-1', question: digestOf('first question'), response: { action: 'accept', content: { name: 'Alice Example' } } },
    ],
    pending: { key: 'elicitation-2', question: digestOf('second question') },
    ...overrides,
  };
}

const PURPOSE = 'nestjs-mcp-elicitation request-state v1';
/** The wire form of `payload()`: one-letter keys, as `RequestStateCodec` writes them inside the seal. */
function wire(state: RequestState = payload()) {
  return {
    v: 1,
    j: state.id,
    u: state.user,
    m: state.method,
    n: state.name,
    a: state.argsDigest,
    e: state.expiresAt,
    i: state.issuedAt,
    d: state.answered.map((q) => ({ k: q.key, q: q.question, r: q.response })),
    p: { k: state.pending!.key, q: state.pending!.question },
  };
}
/** A box under the key the codec derives from `key` (so a test can seal or read the raw wire JSON). */
function derivedBox(key: Buffer): SecretBox {
  return new SecretBox([key], PURPOSE);
}

/** The reason a call refused the state with (fails the test when it did not throw RequestStateError). */
function reasonOf(fn: () => unknown): RequestStateRejection | 'opened' {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RequestStateError);
    return (error as RequestStateError).reason;
  }
  return 'opened';
}

/** Every variant of `part` with one character replaced: each bit of its 6-bit value flipped, and a non-alphabet character. */
function oneCharVariants(part: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < part.length; i++) {
    const index = BASE64URL.indexOf(part[i]);
    const replacements = index < 0 ? ['A', 'x', '0'] : [1, 2, 4, 8, 16, 32].map((bit) => BASE64URL[index ^ bit]);
    for (const r of [...replacements, '.', '=', '+', '/', ' ']) {
      if (r !== part[i]) out.push(part.slice(0, i) + r + part.slice(i + 1));
    }
  }
  return out;
}

/** Whether `text` contains `needle` in clear, or its base64 / base64url encoding at any byte alignment. */
function containsEncoded(text: string, needle: string): boolean {
  if (text.includes(needle)) return true;
  for (const pad of ['', 'x', 'xy']) {
    for (const encoding of ['base64', 'base64url'] as const) {
      const encoded = Buffer.from(pad + needle)
        .toString(encoding)
        .replace(/=+$/, '');
      // Drop the characters that mix in the padding bytes or the bytes that follow.
      const stable = encoded.slice(Math.ceil((pad.length * 4) / 3) + 1, -2);
      if (stable.length >= 8 && text.includes(stable)) return true;
    }
  }
  return false;
}

describe('RequestStateCodec', () => {
  const key1 = randomBytes(32);
  const key2 = randomBytes(32);
  const codec = new RequestStateCodec([key1]);

  it('writes the one wire format inside the seal: one-letter keys, named fields only in code', () => {
    const state = payload();
    const opened: unknown = JSON.parse(derivedBox(key1).open(codec.seal(state), PURPOSE));
    expect(opened).toEqual(wire(state));
    expect(Object.keys(opened as object)).toEqual(['v', 'j', 'u', 'm', 'n', 'a', 'e', 'i', 'd', 'p']);
  });

  it('round-trips a payload, and seals the same payload differently every time (random IV)', () => {
    const original = payload();
    const a = codec.seal(original);
    const b = codec.seal(original);
    expect(a).not.toBe(b);
    expect(codec.open(a, EXPECT)).toEqual(original);
    expect(codec.open(b, EXPECT)).toEqual(original);
  });

  it('has the format v1.<key id>.<iv>.<ciphertext>.<tag>', () => {
    const parts = codec.seal(payload()).split('.');
    expect(parts).toHaveLength(5);
    expect(parts[0]).toBe('v1');
    expect(parts[1]).toMatch(/^[0-9a-f]{8}$/);
    expect(Buffer.from(parts[2], 'base64url')).toHaveLength(12);
    expect(Buffer.from(parts[4], 'base64url')).toHaveLength(16);
    expect(parts[3].length).toBeGreaterThan(0);
  });

  describe.each([
    [0, 'version'],
    [1, 'key id'],
    [2, 'iv'],
    [3, 'ciphertext'],
    [4, 'tag'],
  ])('part %i (%s)', (index) => {
    it('refuses every single-character change', () => {
      const sealed = codec.seal(payload());
      expect(codec.open(sealed, EXPECT).user).toBe('alice');
      const parts = sealed.split('.');
      const variants = oneCharVariants(parts[index]);
      expect(variants.length).toBeGreaterThan(parts[index].length);
      const opened: string[] = [];
      for (const variant of variants) {
        const tampered = [...parts.slice(0, index), variant, ...parts.slice(index + 1)].join('.');
        const reason = reasonOf(() => codec.open(tampered, EXPECT));
        if (reason === 'opened') opened.push(tampered);
        else expect(['tampered', 'malformed', 'key']).toContain(reason);
      }
      expect(opened).toEqual([]);
    });

    it('refuses every single-byte change of the decoded part', () => {
      const sealed = codec.seal(payload());
      const parts = sealed.split('.');
      const bytes = index >= 2 ? Buffer.from(parts[index], 'base64url') : Buffer.from(parts[index], 'latin1');
      for (let i = 0; i < bytes.length; i++) {
        const changed = Buffer.from(bytes);
        changed[i] ^= 0x01;
        const part = index >= 2 ? changed.toString('base64url') : changed.toString('latin1');
        const tampered = [...parts.slice(0, index), part, ...parts.slice(index + 1)].join('.');
        expect(['tampered', 'malformed', 'key']).toContain(reasonOf(() => codec.open(tampered, EXPECT)));
      }
    });
  });

  it('refuses a state with parts added, dropped, reordered, padded or wrapped in whitespace', () => {
    const sealed = codec.seal(payload());
    const parts = sealed.split('.');
    const variants = [
      `${sealed}.extra`,
      `${sealed}.`,
      `.${sealed}`,
      `${sealed}=`,
      `${sealed}==`,
      `${sealed}-TAMPERED`,
      ` ${sealed}`,
      `${sealed}\n`,
      sealed.replace(/\./g, '..'),
      parts.slice(0, 4).join('.'),
      [parts[0], parts[1], parts[2], parts[4], parts[3]].join('.'),
      [parts[0], parts[1], parts[2], '', parts[4]].join('.'),
      sealed.toUpperCase(),
    ];
    for (const variant of variants) {
      expect(['tampered', 'malformed']).toContain(reasonOf(() => codec.open(variant, EXPECT)));
    }
  });

  it('refuses a tag truncated to 4, 8 or 12 bytes (GCM would verify the shortened tag)', () => {
    const sealed = codec.seal(payload());
    const parts = sealed.split('.');
    const tag = Buffer.from(parts[4], 'base64url');
    for (const length of [4, 8, 12, 15]) {
      const truncated = [...parts.slice(0, 4), tag.subarray(0, length).toString('base64url')].join('.');
      expect(['tampered', 'malformed']).toContain(reasonOf(() => codec.open(truncated, EXPECT)));
    }
    expect(codec.open(sealed, EXPECT).user).toBe('alice');
  });

  it('refuses non-strings, the empty string and oversized input', () => {
    for (const value of [undefined, null, 0, 42, true, {}, [], { state: codec.seal(payload()) }, [codec.seal(payload())]]) {
      expect(reasonOf(() => codec.open(value, EXPECT))).toBe('malformed');
    }
    expect(reasonOf(() => codec.open('', EXPECT))).toBe('malformed');
    expect(reasonOf(() => codec.open('x'.repeat(64 * 1024 + 1), EXPECT))).toBe('malformed');
    // Just under the cap it is read (and refused for being no seal), so the cap is what refused the long one.
    expect(reasonOf(() => codec.open('x'.repeat(64 * 1024), EXPECT))).not.toBe('opened');
  });

  it('refuses a genuine seal whose content is not a state payload', () => {
    const box = (p: unknown) => derivedBox(key1).seal(JSON.stringify(p), PURPOSE);
    expect(codec.open(box(wire()), EXPECT).user).toBe('alice');
    expect(reasonOf(() => codec.open(box({ ...wire(), v: 2 }), EXPECT))).toBe('malformed');
    expect(reasonOf(() => codec.open(box({ ...wire(), j: 7 }), EXPECT))).toBe('malformed');
    expect(reasonOf(() => codec.open(box({ ...wire(), d: 'none' }), EXPECT))).toBe('malformed');
    expect(reasonOf(() => codec.open(box(null), EXPECT))).toBe('malformed');
    expect(reasonOf(() => codec.open(box('a string'), EXPECT))).toBe('malformed');
  });

  it('refuses an expired state (the expiry instant itself included)', () => {
    const sealed = codec.seal(payload({ expiresAt: NOW + 1_000 }));
    expect(codec.open(sealed, { ...EXPECT, now: NOW + 999 }).expiresAt).toBe(NOW + 1_000);
    expect(reasonOf(() => codec.open(sealed, { ...EXPECT, now: NOW + 1_000 }))).toBe('expired');
    expect(reasonOf(() => codec.open(sealed, { ...EXPECT, now: NOW + 3_600_000 }))).toBe('expired');
  });

  it("refuses another user's state, and a user-less state for a user (and the reverse)", () => {
    const sealed = codec.seal(payload());
    expect(reasonOf(() => codec.open(sealed, { ...EXPECT, user: 'bob' }))).toBe('user');
    expect(reasonOf(() => codec.open(sealed, { ...EXPECT, user: '' }))).toBe('user');
    expect(reasonOf(() => codec.open(sealed, { ...EXPECT, user: 'Alice' }))).toBe('user');
    const anonymous = codec.seal(payload({ user: '' }));
    expect(reasonOf(() => codec.open(anonymous, EXPECT))).toBe('user');
    expect(codec.open(anonymous, { ...EXPECT, user: '' }).user).toBe('');
  });

  it('refuses a state minted for another method', () => {
    const sealed = codec.seal(payload());
    expect(reasonOf(() => codec.open(sealed, { ...EXPECT, method: 'prompts/get' }))).toBe('method');
    expect(reasonOf(() => codec.open(sealed, { ...EXPECT, method: 'resources/read' }))).toBe('method');
  });

  describe('checkCall', () => {
    const args = { path: '/tmp/report.txt', options: { force: true, depth: 2 } };
    const opened = codec.open(codec.seal(payload()), EXPECT);

    it('accepts the same tool and arguments, whatever the key order (nested too)', () => {
      expect(() => RequestStateCodec.checkCall(opened, 'delete-file', args)).not.toThrow();
      expect(() =>
        RequestStateCodec.checkCall(opened, 'delete-file', { options: { depth: 2, force: true }, path: '/tmp/report.txt' }),
      ).not.toThrow();
    });

    it('refuses another tool', () => {
      expect(reasonOf(() => RequestStateCodec.checkCall(opened, 'approve-deploy', args))).toBe('tool');
      expect(reasonOf(() => RequestStateCodec.checkCall(opened, 'Delete-File', args))).toBe('tool');
    });

    it('refuses changed arguments: a value, a nested value, a type, an added or a missing key', () => {
      const changed: unknown[] = [
        { ...args, path: '/tmp/report.txt ' },
        { ...args, path: '/etc/passwd' },
        { ...args, options: { force: false, depth: 2 } },
        { ...args, options: { force: true, depth: '2' } },
        { ...args, extra: 1 },
        { path: args.path },
        {},
        undefined,
        [args],
      ];
      for (const value of changed) expect(reasonOf(() => RequestStateCodec.checkCall(opened, 'delete-file', value))).toBe('arguments');
    });

    it('treats absent arguments as {} (a tool without an input schema)', () => {
      const none = codec.open(codec.seal(payload({ argsDigest: digestOf({}) })), EXPECT);
      expect(() => RequestStateCodec.checkCall(none, 'delete-file', undefined)).not.toThrow();
      expect(() => RequestStateCodec.checkCall(none, 'delete-file', {})).not.toThrow();
      expect(reasonOf(() => RequestStateCodec.checkCall(none, 'delete-file', { a: 1 }))).toBe('arguments');
    });
  });

  describe('key ring', () => {
    it('opens a state sealed under the second key of a ring, and refuses it once that key is rotated out', () => {
      const old = new RequestStateCodec([key1]);
      const rotating = new RequestStateCodec([key2, key1]);
      const rotated = new RequestStateCodec([key2]);
      const sealedOld = old.seal(payload());
      expect(rotating.open(sealedOld, EXPECT).user).toBe('alice');
      // Sealed under a key the ring no longer holds: refused for that reason (the cause names the key id).
      expect(reasonOf(() => rotated.open(sealedOld, EXPECT))).toBe('key');
      // New states are sealed under the first key: every instance on the new ring opens them.
      const sealedNew = rotating.seal(payload());
      expect(sealedNew.split('.')[1]).not.toBe(sealedOld.split('.')[1]);
      expect(rotated.open(sealedNew, EXPECT).user).toBe('alice');
      expect(reasonOf(() => old.open(sealedNew, EXPECT))).toBe('key');
    });

    it('refuses a state sealed with an unrelated key even when its key id is forged to match', () => {
      const other = new RequestStateCodec([randomBytes(32)]);
      const mine = codec.seal(payload()).split('.');
      const theirs = other.seal(payload()).split('.');
      expect(reasonOf(() => codec.open([theirs[0], mine[1], ...theirs.slice(2)].join('.'), EXPECT))).toBe('tampered');
    });

    it('derives its own key: a value sealed with the raw encryptionKey (secrets at rest) does not open as a state', () => {
      const raw = new SecretBox([key1]);
      const forged = raw.seal(JSON.stringify(wire()), PURPOSE);
      expect(reasonOf(() => codec.open(forged, EXPECT))).toBe('tampered');
      // Both name the same encryptionKey (key ids are the ring's, whatever the purpose); the key used differs.
      expect(forged.split('.')[1]).toBe(codec.seal(payload()).split('.')[1]);
    });
  });

  it('keeps the payload unreadable: no planted value appears in the state, in clear or base64', () => {
    const planted = payload({
      user: `user-${MARKER}`,
      name: `tool-${MARKER}`,
      answered: [{ key: `key-${MARKER}`, question: 'q', response: { action: 'accept', content: { secret: `answer-${MARKER}` } } }],
    });
    const sealed = codec.seal(planted);
    // The check itself finds the marker when it is there, in clear or encoded.
    expect(containsEncoded(`x${Buffer.from(JSON.stringify(planted)).toString('base64url')}`, MARKER)).toBe(true);
    expect(containsEncoded(Buffer.from(`ab${JSON.stringify(planted)}`).toString('base64'), MARKER)).toBe(true);
    expect(containsEncoded(sealed, MARKER)).toBe(false);
    for (const word of ['alice', 'delete-file', 'accept', 'answer', 'elicitation-1'])
      expect(containsEncoded(codec.seal(payload()), word)).toBe(false);
    for (const part of sealed.split('.')) {
      const decoded = Buffer.from(part, 'base64url');
      expect(decoded.includes(MARKER)).toBe(false);
      expect(decoded.includes('answer')).toBe(false);
      expect(decoded.toString('latin1')).not.toContain('"u"');
    }
  });
});
