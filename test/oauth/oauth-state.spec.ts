/**
 * The sealed OAuth `state` (OAuthStateCodec): it round-trips, and every value that is not one this ring sealed
 * for this purpose, unchanged and unexpired, is refused as 'malformed' (or 'expired'), never thrown.
 */
import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { RequestStateError } from '../../src/errors/request-state.error.js';
import { RequestStateCodec } from '../../src/mcp/input-required/request-state.codec.js';
import { OAUTH_STATE_TTL_MS, OAuthStateCodec, type OAuthState } from '../../src/oauth/oauth-state.js';
import { SecretBox } from '../../src/security/secret-box.js';

/** The purpose (HKDF info and seal context) the codec uses: restated here to build look-alike values. */
const PURPOSE = 'nestjs-mcp-elicitation oauth-state v1';
const NOW = 1_750_000_000_000;

const keyA = randomBytes(32);
const keyB = randomBytes(32);

function state(patch: Partial<OAuthState> = {}): OAuthState {
  return {
    id: OAuthStateCodec.newId(),
    elicitationId: '3f1e1a52-6c4b-4c3e-9a57-0e1f2d3c4b5a',
    user: 'alice',
    issuedAt: NOW,
    expiresAt: NOW + OAUTH_STATE_TTL_MS,
    verifier: randomBytes(32).toString('base64url'),
    nonce: randomBytes(16).toString('base64url'),
    ...patch,
  };
}

/** The wire form inside the seal, as the codec writes it. */
function wire(s: OAuthState): string {
  return JSON.stringify({ i: s.id, e: s.elicitationId, u: s.user, t: s.issuedAt, x: s.expiresAt, v: s.verifier, n: s.nonce });
}

/** A different base64url/hex character at `index`. */
function changeAt(value: string, index: number): string {
  const c = value[index];
  const other = c === 'A' ? 'B' : c === '0' ? '1' : c === '.' ? '_' : 'A';
  return value.slice(0, index) + other + value.slice(index + 1);
}

describe('OAuthStateCodec', () => {
  const codec = new OAuthStateCodec([keyA]);

  it('round-trips a state, with and without a nonce', () => {
    const s = state();
    const sealed = codec.seal(s);
    expect(codec.open(sealed, NOW)).toEqual(s);
    const plain = state({ nonce: undefined, user: '' });
    const opened = codec.open(codec.seal(plain), NOW);
    expect(opened).toEqual(plain);
    expect((opened as OAuthState).nonce).toBeUndefined();
  });

  it('carries nothing readable: neither the verifier, the nonce, the user nor the elicitation id', () => {
    const s = state({ user: 'alice@example.com' });
    const sealed = codec.seal(s);
    for (const value of [s.verifier, s.nonce!, s.user, s.elicitationId, s.id]) expect(sealed).not.toContain(value);
    expect(Buffer.from(sealed.split('.')[3], 'base64url').toString('latin1')).not.toContain('alice');
    // Random IVs: the same state seals differently each time, and both open.
    const again = codec.seal(s);
    expect(again).not.toBe(sealed);
    expect(codec.open(again, NOW)).toEqual(s);
  });

  it('opens on another instance sharing the ring, and after a rotation (new key first, old key kept)', () => {
    const s = state();
    const sealed = codec.seal(s);
    expect(new OAuthStateCodec([keyA]).open(sealed, NOW)).toEqual(s);
    expect(new OAuthStateCodec([keyB, keyA]).open(sealed, NOW)).toEqual(s);
  });

  it('is URL-safe and well under the accepted length for a real state', () => {
    const sealed = codec.seal(state());
    expect(sealed).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(sealed.length).toBeLessThan(512);
  });

  it('refuses every one-character change as malformed', () => {
    const s = state();
    const sealed = codec.seal(s);
    expect(codec.open(sealed, NOW)).toEqual(s);
    const accepted: number[] = [];
    for (let i = 0; i < sealed.length; i++) {
      const changed = changeAt(sealed, i);
      expect(changed).not.toBe(sealed);
      if (codec.open(changed, NOW) !== 'malformed') accepted.push(i);
    }
    expect(accepted).toEqual([]);
  });

  it('refuses a truncated or extended value', () => {
    const sealed = codec.seal(state());
    expect(codec.open(sealed.slice(0, -1), NOW)).toBe('malformed');
    expect(codec.open(`${sealed}A`, NOW)).toBe('malformed');
    expect(codec.open(`${sealed}.`, NOW)).toBe('malformed');
    expect(codec.open(` ${sealed}`, NOW)).toBe('malformed');
  });

  it('refuses a state sealed under another key ring as malformed', () => {
    const foreign = new OAuthStateCodec([keyB]).seal(state());
    expect(codec.open(foreign, NOW)).toBe('malformed');
    // A rotated-out key: the ring no longer holds the key it was sealed under.
    expect(new OAuthStateCodec([keyB]).open(codec.seal(state()), NOW)).toBe('malformed');
  });

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['an object', { state: 'x' }],
    ['an array', ['v1']],
    ['a Buffer', Buffer.from('v1.abc')],
    ['empty', ''],
    ['not sealed at all', 'xyz'],
    ['too long', 'A'.repeat(2049)],
  ])('refuses a value that is %s as malformed', (_case, value) => {
    expect(codec.open(value, NOW)).toBe('malformed');
  });

  it('opens an authentic state of up to 2048 characters and refuses one just longer, as malformed', () => {
    // The longest verifier whose state seals to at most 2048 characters (each 3 bytes more add 4 characters).
    let length = 1000;
    while (codec.seal(state({ verifier: 'v'.repeat(length + 1) })).length <= 2048) length += 1;
    const s = state({ verifier: 'v'.repeat(length) });
    const fits = codec.seal(s);
    expect(fits.length).toBeGreaterThan(2044);
    expect(fits.length).toBeLessThanOrEqual(2048);
    expect(codec.open(fits, NOW)).toEqual(s);
    const long = codec.seal(state({ verifier: 'v'.repeat(length + 3) }));
    expect(long.length).toBeGreaterThan(2048);
    expect(new SecretBox([keyA], PURPOSE).open(long, PURPOSE)).toContain('"v":"vvv'); // authentic, only too long
    expect(codec.open(long, NOW)).toBe('malformed');
  });

  it('refuses a state at or past its expiry as expired, and opens it until then', () => {
    const s = state({ expiresAt: NOW + 1_000 });
    const sealed = codec.seal(s);
    expect(codec.open(sealed, NOW + 999)).toEqual(s);
    expect(codec.open(sealed, NOW + 1_000)).toBe('expired');
    expect(codec.open(sealed, NOW + 60 * 60_000)).toBe('expired');
  });

  it('reports a tampered expired state as malformed, not expired (nothing is read before the seal is checked)', () => {
    const sealed = codec.seal(state({ expiresAt: NOW - 1 }));
    expect(codec.open(sealed, NOW)).toBe('expired');
    const i = sealed.lastIndexOf('.') - 3;
    expect(codec.open(changeAt(sealed, i), NOW)).toBe('malformed');
  });

  it('refuses a requestState sealed under the same ring, and the requestState codec refuses an OAuth state', () => {
    const requestStates = new RequestStateCodec([keyA]);
    const requestState = requestStates.seal({
      id: RequestStateCodec.newId(),
      user: 'alice',
      method: 'tools/call',
      name: 'connect',
      argsDigest: 'd',
      expiresAt: NOW + 60_000,
      answered: [],
    });
    expect(codec.open(requestState, NOW)).toBe('malformed');
    let refused: unknown;
    try {
      requestStates.open(codec.seal(state()), { user: 'alice', method: 'tools/call', now: NOW });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RequestStateError);
  });

  it('opens the wire form sealed by a SecretBox of its own purpose (the control for the next test)', () => {
    const s = state();
    expect(codec.open(new SecretBox([keyA], PURPOSE).seal(wire(s), PURPOSE), NOW)).toEqual(s);
  });

  it.each<[string, () => SecretBox, string]>([
    ['another purpose', () => new SecretBox([keyA], 'nestjs-mcp-elicitation answer v1'), PURPOSE],
    ['no purpose (the ring key itself)', () => new SecretBox([keyA]), PURPOSE],
    ['its purpose but another context', () => new SecretBox([keyA], PURPOSE), 'elicitation 3f1e1a52'],
  ])('refuses the same wire form sealed by a SecretBox with %s', (_case, box, context) => {
    expect(codec.open(box().seal(wire(state()), context), NOW)).toBe('malformed');
  });

  it.each<[string, string]>([
    ['not JSON', 'not json'],
    ['a JSON string', '"v1"'],
    ['a JSON array', '[1,2]'],
    ['an empty object', '{}'],
    ['a numeric id', JSON.stringify({ i: 1, e: 'e', u: '', t: NOW, x: NOW + 1, v: 'v' })],
    ['an expiry as a string', JSON.stringify({ i: 'i', e: 'e', u: '', t: NOW, x: String(NOW + 1), v: 'v' })],
    ['no verifier', JSON.stringify({ i: 'i', e: 'e', u: '', t: NOW, x: NOW + 1 })],
    ['a numeric nonce', JSON.stringify({ i: 'i', e: 'e', u: '', t: NOW, x: NOW + 1, v: 'v', n: 5 })],
  ])('refuses an authentic seal of the wrong shape (%s) as malformed', (_case, plaintext) => {
    expect(codec.open(new SecretBox([keyA], PURPOSE).seal(plaintext, PURPOSE), NOW)).toBe('malformed');
  });

  // Only someone holding the encryptionKey can seal one; still a refusal, never a TypeError.
  it('refuses an authentic seal of JSON null as malformed', () => {
    expect(codec.open(new SecretBox([keyA], PURPOSE).seal('null', PURPOSE), NOW)).toBe('malformed');
  });

  it('newId is 128 random bits in base64url', () => {
    const ids = new Set(Array.from({ length: 200 }, () => OAuthStateCodec.newId()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
