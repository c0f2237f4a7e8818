import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { CsrfTokens } from '../../src/security/csrf.js';

const NONCE = /^[A-Za-z0-9_-]{22}$/;
const nonce = () => randomBytes(16).toString('base64url');

describe('CsrfTokens: a nonce per browser, not per render', () => {
  const csrf = new CsrfTokens(randomBytes(32));

  it('mints a fresh nonce for a browser that holds none, and keeps the one a browser holds', () => {
    const first = csrf.issue('e1');
    expect(first.nonce).toMatch(NONCE);
    expect(csrf.issue('e1').nonce).not.toBe(first.nonce);
    const again = csrf.issue('e1', [first.nonce]);
    expect(again).toEqual(first);
    // Both renders' tokens verify against the one cookie the browser keeps.
    expect(csrf.verify('e1', [again.nonce], first.token)).toBe(true);
  });

  it('keeps the first well-formed nonce held and never one of another shape', () => {
    const held = nonce();
    expect(csrf.issue('e1', ['abc', `${held}=`, held, nonce()]).nonce).toBe(held);
    for (const bad of ['', 'abc', 'A'.repeat(21), 'A'.repeat(23), `${'A'.repeat(21)}\n`, `${'A'.repeat(20)}%0`]) {
      const issued = csrf.issue('e1', [bad]);
      expect(issued.nonce).toMatch(NONCE);
      expect(issued.nonce).not.toBe(bad);
    }
  });

  it('binds the token to its elicitation: the same nonce gives another token elsewhere', () => {
    const shared = nonce();
    const one = csrf.issue('e1', [shared]);
    const two = csrf.issue('e2', [shared]);
    expect(one.token).not.toBe(two.token);
    expect(csrf.verify('e2', [shared], one.token)).toBe(false);
    expect(csrf.verify('e1', [shared], two.token)).toBe(false);
  });

  it('accepts a token paired with any of the first four cookie values, and nothing else', () => {
    const { nonce: mine, token } = csrf.issue('e1');
    expect(csrf.verify('e1', [nonce(), mine], token)).toBe(true);
    expect(csrf.verify('e1', [nonce(), nonce(), nonce(), mine], token)).toBe(true);
    expect(csrf.verify('e1', [nonce(), nonce(), nonce(), nonce(), mine], token)).toBe(false);
    expect(csrf.verify('e1', mine, token)).toBe(true);
    expect(csrf.verify('e1', [], token)).toBe(false);
    expect(csrf.verify('e1', undefined, token)).toBe(false);
    expect(csrf.verify('e1', [mine, nonce()], `${token}x`)).toBe(false);
    expect(csrf.verify('e1', [mine], [token])).toBe(false);
    expect(csrf.verify('e1', [mine], mine)).toBe(false);
    expect(csrf.verify('e1', [`${mine}=`], token)).toBe(false);
  });

  it('gives a nonce chosen by someone else a token only this key can compute', () => {
    const chosen = nonce();
    const { token } = csrf.issue('e1', [chosen]);
    expect(new CsrfTokens(randomBytes(32)).issue('e1', [chosen]).token).not.toBe(token);
    expect(csrf.verify('e1', [chosen], token)).toBe(true);
  });
});
