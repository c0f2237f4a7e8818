/** A decision's WebAuthn challenge: the same inputs, the same challenge; any other input, another. */
import { describe, expect, it } from '@jest/globals';
import { decisionChallenge } from '../../src/proofs/decision-proof.js';

describe('decisionChallenge', () => {
  const inputs = { elicitationId: '8f2b0c9e-0d7a-4f3e-9c1b-2a6d5e4f3a21', actionHash: 'a'.repeat(64), decision: 'confirm' as const };

  it('is derived, the same every time: 32 bytes of SHA-256, base64url', () => {
    expect(decisionChallenge(inputs)).toBe(decisionChallenge({ ...inputs }));
    expect(Buffer.from(decisionChallenge(inputs), 'base64url')).toHaveLength(32);
  });

  it('changes with the question and with the action', () => {
    const seen = new Set([
      decisionChallenge(inputs),
      decisionChallenge({ ...inputs, elicitationId: '8f2b0c9e-0d7a-4f3e-9c1b-2a6d5e4f3a22' }),
      decisionChallenge({ ...inputs, actionHash: 'b'.repeat(64) }),
    ]);
    expect(seen.size).toBe(3);
  });
});
