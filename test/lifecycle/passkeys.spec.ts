/**
 * Passkeys with the module's real parts and a software authenticator (`test/support/soft-authenticator.ts`): a
 * registration taken once and only for its user; a page's signature taken only from its user's own passkey, over this
 * decision's challenge, once (the counter's compare-and-set); receipts that verify against the stored key and fail when
 * any field changes, after the passkey's removal too; the creation checks of `presence`; the decisions chained.
 * The browser's side is e2e/approvals/passkeys.e2e-spec.ts (Chromium's virtual authenticator).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import type { ElicitationRecord } from '../../src/core/elicitation.types.js';
import { ElicitationInputError } from '../../src/errors/elicitation-input.error.js';
import { actionHash } from '../../src/lifecycle/approval-plan.js';
import { ElicitationPasskeys } from '../../src/lifecycle/elicitation-passkeys.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { decisionChallenge, type PasskeyReceipt } from '../../src/proofs/decision-proof.js';
import { verifyAuditChain } from '../../src/proofs/audit-chain-lines.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { compileElicitation } from '../support/testing-module.js';

const ORIGIN = 'https://mcp.example.com';
const ACTION = { tool: 'transfer-funds', args: { to: 'acme', amount: 100 } };

const refs: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(refs.splice(0).map((r) => r.close()));
});

async function module(options: Parameters<typeof compileElicitation>[0] = {}) {
  const ref = await compileElicitation(options);
  refs.push(ref);
  return { passkeys: ref.get(ElicitationPasskeys), service: ref.get(ElicitationService), store: ref.get(ElicitationStore) };
}

/** `user`'s authenticator, registered through the module. */
async function registered(passkeys: ElicitationPasskeys, user: string): Promise<SoftAuthenticator> {
  const authenticator = new SoftAuthenticator('mcp.example.com', ORIGIN);
  const options = await passkeys.registrationOptions(user);
  const added = await passkeys.register(user, authenticator.register(String(options.challenge)), `${user}'s key`);
  expect(added).toMatchObject({ ok: true, value: { userId: user, id: authenticator.credentialId, name: `${user}'s key` } });
  return authenticator;
}

/** A confirm page of `user` that asks for a passkey, bound to ACTION. */
async function page(service: ElicitationService, store: ElicitationStore, user = 'bob', action = ACTION): Promise<ElicitationRecord> {
  const { elicitationId } = await service.createUrlElicitation({
    kind: 'confirm',
    presence: 'passkey',
    action,
    userId: user,
    message: 'Transfer?',
  });
  return (await store.get(elicitationId, Date.now()))!;
}

const challengeOf = (record: ElicitationRecord, hash = actionHash(ACTION)) =>
  decisionChallenge({ elicitationId: record.id, actionHash: hash, decision: 'confirm' });

describe('passkey registration', () => {
  it('keeps the passkey of the user the ceremony was made for, once', async () => {
    const { passkeys } = await module();
    const authenticator = new SoftAuthenticator('mcp.example.com', ORIGIN);
    const options = await passkeys.registrationOptions('bob');
    expect(options).toMatchObject({ rp: { id: 'mcp.example.com' }, authenticatorSelection: { userVerification: 'required' } });
    // The user handle is a digest of the user id, never the id itself.
    expect(JSON.stringify(options.user)).not.toContain('"id":"bob"');
    const response = authenticator.register(String(options.challenge));
    expect(await passkeys.register('mallory', response, 'x')).toEqual({ ok: false, reason: 'expired' });
    // The ceremony was taken by mallory's try: bob has to start again.
    expect(await passkeys.register('bob', response, 'x')).toEqual({ ok: false, reason: 'expired' });
    await registered(passkeys, 'bob');
    expect((await passkeys.list('bob')).map((p) => p.name)).toEqual(["bob's key"]);
    expect(await passkeys.register('bob', 'not json', 'x')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses a registration made on another origin', async () => {
    const { passkeys } = await module();
    const options = await passkeys.registrationOptions('bob');
    const forged = new SoftAuthenticator('mcp.example.com', 'https://evil.example.net').register(String(options.challenge));
    expect(await passkeys.register('bob', forged, 'x')).toMatchObject({ ok: false, reason: 'not-verified' });
    expect(await passkeys.list('bob')).toEqual([]);
  });
});

describe('a decision signed with a passkey', () => {
  it("is taken from the page user's own passkey over this decision, once; its receipt verifies", async () => {
    const { passkeys, service, store } = await module();
    const bob = await registered(passkeys, 'bob');
    const record = await page(service, store);
    const options = await passkeys.decisionOptions(record);
    expect(options).toMatchObject({
      challenge: challengeOf(record),
      rpId: 'mcp.example.com',
      allowCredentials: [{ id: bob.credentialId }],
    });

    const assertion = bob.sign(challengeOf(record));
    const signed = await passkeys.verifyDecision(record, assertion);
    expect(signed).toMatchObject({
      ok: true,
      value: { userId: 'bob', credentialId: bob.credentialId, counter: 1, actionHash: actionHash(ACTION) },
    });
    // The same signature again: its counter did not move on.
    expect(await passkeys.verifyDecision(record, assertion)).toMatchObject({ ok: false, reason: 'replayed' });

    const receipt = (signed as { value: PasskeyReceipt }).value;
    expect(await service.verifyReceipt(receipt)).toEqual({
      valid: true,
      userId: 'bob',
      credentialId: bob.credentialId,
      elicitationId: record.id,
      actionHash: actionHash(ACTION),
      decision: 'confirm',
    });
    const changed: Array<Partial<PasskeyReceipt>> = [
      { actionHash: actionHash({ ...ACTION, args: { to: 'acme', amount: 1 } }) },
      { userId: 'carol' },
      { elicitationId: '00000000-0000-4000-8000-000000000000' },
      { counter: 7 },
      { signature: bob.sign('another challenge').match(/"signature":"([^"]+)"/)![1] },
      { credentialId: 'unknown' },
    ];
    for (const change of changed) expect(await service.verifyReceipt({ ...receipt, ...change })).toMatchObject({ valid: false });
    expect(await service.verifyReceipt({ version: 2 })).toMatchObject({ valid: false, reason: 'not a receipt (version 1)' });
    // Removed, the passkey signs nothing more, and its receipts still verify.
    expect(await service.removePasskey('bob', bob.credentialId)).toBe(true);
    expect(await passkeys.verifyDecision(record, bob.sign(challengeOf(record)))).toMatchObject({ ok: false, reason: 'removed' });
    expect(await service.verifyReceipt(receipt)).toMatchObject({ valid: true });
  });

  it("refuses another user's passkey, a signature over other arguments, and a user without one", async () => {
    const { passkeys, service, store } = await module();
    await registered(passkeys, 'bob');
    const carol = await registered(passkeys, 'carol');
    const record = await page(service, store);
    expect(await passkeys.verifyDecision(record, carol.sign(challengeOf(record)))).toMatchObject({ ok: false, reason: 'other-user' });
    const bob2 = new SoftAuthenticator('mcp.example.com', ORIGIN);
    expect(await passkeys.verifyDecision(record, bob2.sign(challengeOf(record)))).toMatchObject({
      ok: false,
      reason: 'unknown-credential',
    });
    const dave = await page(service, store, 'dave');
    expect(await passkeys.decisionOptions(dave)).toBeUndefined();
    expect(await passkeys.verifyDecision(dave, carol.sign(challengeOf(dave)))).toMatchObject({ ok: false, reason: 'no-passkey' });
    expect(await passkeys.verifyDecision(record, undefined)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('refuses a signature over another challenge: other arguments, or another question', async () => {
    const { passkeys, service, store } = await module();
    const bob = await registered(passkeys, 'bob');
    const record = await page(service, store);
    const other = await page(service, store);
    const otherArgs = challengeOf(record, actionHash({ ...ACTION, args: { to: 'acme', amount: 1 } }));
    expect(await passkeys.verifyDecision(record, bob.sign(otherArgs))).toMatchObject({ ok: false, reason: 'other-action' });
    expect(await passkeys.verifyDecision(record, bob.sign(challengeOf(other)))).toMatchObject({ ok: false, reason: 'other-action' });
    expect(await passkeys.verifyDecision(record, bob.sign(challengeOf(record), { origin: 'https://evil.example.net' }))).toMatchObject({
      ok: false,
      reason: 'not-verified',
    });
  });

  it('takes one of two posts of one signature made at once', async () => {
    const { passkeys, service, store } = await module();
    const bob = await registered(passkeys, 'bob');
    const record = await page(service, store);
    const assertion = bob.sign(challengeOf(record));
    const results = await Promise.all([passkeys.verifyDecision(record, assertion), passkeys.verifyDecision(record, assertion)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([{ ok: false, reason: 'replayed' }]);
  });
});

describe('presence at creation', () => {
  const refused = async (run: () => Promise<unknown>) => {
    const error = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ElicitationInputError);
    return error as ElicitationInputError;
  };

  it('names the field and the value it got', async () => {
    const { service } = await module();
    const base = { userId: 'bob', message: 'Sure?' };
    expect((await refused(() => service.createUrlElicitation({ ...base, kind: 'api-key', presence: 'passkey' }))).field).toBe('presence');
    const odd = await refused(() => service.createUrlElicitation({ ...base, kind: 'confirm', presence: 'maybe' as never }));
    expect(odd.message).toContain('"maybe"');
    expect((await refused(() => service.createUrlElicitation({ ...base, kind: 'confirm', action: ACTION }))).field).toBe('action');
    const byHand = await refused(() =>
      service.createUrlElicitation({ ...base, kind: 'confirm', metadata: { passkey: { actionHash: 'x' } } }),
    );
    expect(byHand.field).toBe('metadata.passkey');
    const stranger = await refused(() =>
      service.createUrlElicitation({
        ...base,
        kind: 'approval',
        approval: { approvers: ['carol', 'dave'], presence: { carl: 'passkey' } },
      }),
    );
    expect([stranger.field, stranger.message]).toEqual(['approval.presence', expect.stringContaining('"carl"')]);
  });

  it("needs a page user: a passkey is a known user's", async () => {
    const { service } = await module({ resolvePageUser: undefined, allowUnverifiedPages: true });
    const error = await refused(() =>
      service.createUrlElicitation({ kind: 'confirm', presence: 'passkey', userId: 'bob', message: 'Sure?' }),
    );
    expect([error.field, error.message]).toEqual(['presence', expect.stringContaining('resolvePageUser')]);
  });
});

describe('the decisions chained', () => {
  it('an approval signed by one approver and clicked by another: each decision and the end, one chain', async () => {
    const { passkeys, service, store } = await module();
    const bob = await registered(passkeys, 'bob');
    const approval = await service.createUrlElicitation({
      kind: 'approval',
      userId: 'alice',
      message: 'Transfer?',
      approval: { approvers: ['bob', 'carol'], quorum: 2, presence: { bob: 'passkey' }, action: ACTION },
    });
    const pages = (await Promise.all(['bob', 'carol'].map((u) => store.listByUser(u, Date.now())))).map((list) =>
      list.find((r) => r.type === `approval:${approval.elicitationId}`)!,
    );
    expect(pages.map((p) => p.metadata.passkey)).toEqual([{ actionHash: actionHash(ACTION) }, undefined]);
    const signed = await passkeys.verifyDecision(pages[0], bob.sign(challengeOf(pages[0])));
    expect(signed.ok).toBe(true);
    await service.complete(pages[0].id, { confirmed: true, receipt: { ...(signed as { value: PasskeyReceipt }).value } });
    await service.complete(pages[1].id, { confirmed: true });
    let jsonl = '';
    for (let i = 0; i < 100 && jsonl.trim().split('\n').length < 3; i++) {
      await new Promise((r) => setTimeout(r, 20));
      jsonl = await service.exportAudit();
    }
    const lines = jsonl
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; event: Record<string, unknown> });
    expect(lines.map((l) => [l.seq, l.event.event, l.event.userId, l.event.presence])).toEqual([
      [1, 'approval.decided', 'bob', 'passkey'],
      [2, 'approval.decided', 'carol', 'click'],
      [3, 'approval.settled', 'alice', undefined],
    ]);
    expect(lines[0].event.receipt).toMatchObject({ userId: 'bob', credentialId: bob.credentialId });
    expect(lines[2].event).toMatchObject({ decision: 'approved', approvedBy: ['bob', 'carol'] });
    expect(verifyAuditChain(jsonl)).toMatchObject({ valid: true, lines: 3 });
    expect(await service.verifyReceipt(lines[0].event.receipt)).toMatchObject({ valid: true });
    // The approval lists both decisions: bob's signed, with the receipt the chain holds; carol's a click, with none.
    const { decisions } = (await service.getApproval(approval.elicitationId))!;
    expect(decisions.map((d) => [d.userId, d.decision, d.presence, d.receipt?.credentialId])).toEqual([
      ['bob', 'approved', 'passkey', bob.credentialId],
      ['carol', 'approved', 'click', undefined],
    ]);
    expect(decisions[0].receipt).toEqual(lines[0].event.receipt);
    expect(await service.verifyReceipt(decisions[0].receipt)).toMatchObject({ valid: true, userId: 'bob' });
  });
});
