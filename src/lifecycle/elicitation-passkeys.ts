import { Inject, Injectable } from '@nestjs/common';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import { InjectPasskeyOptions, type ResolvedPasskeyOptions } from '../options/passkey-options.js';
import { decisionChallenge, type DecisionInputs, type PasskeyReceipt, type ReceiptCheck } from '../proofs/decision-proof.js';
import { loadWebAuthn } from '../proofs/webauthn.loader.js';
import { randomPool } from '../security/random-pool.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';
import type { ElicitationCallStateStore } from '../stores/call-state-store.js';
import type { ElicitationPasskeyStore, StoredPasskey } from '../stores/passkey-store.js';
import { passkeyActionOf } from './passkey-action.js';
import { challengeOf, parseCredential, passkeyName, registrationKey, userHandle } from './passkey-credentials.js';

/** How long a registration's challenge lasts, in milliseconds: the page's ceremony, with time to find the key. */
const REGISTRATION_TTL_MS = 10 * 60_000;
/** How long the browser's ceremony may take, in milliseconds (the `timeout` it is given). */
const CEREMONY_TIMEOUT_MS = 5 * 60_000;

/** Why a passkey was not taken; each has its own sentence on the page (`messages.passkeys.refused`). */
export type PasskeyRefusal =
  | 'malformed'
  | 'no-passkey'
  | 'unknown-credential'
  | 'other-user'
  | 'removed'
  | 'other-action'
  | 'replayed'
  | 'not-verified'
  | 'expired'
  | 'exists'
  | 'limit';

/** A passkey refused, with the library's words for a failed verification (for the log, never for the page). */
export type PasskeyVerdict<T> = { ok: true; value: T } | { ok: false; reason: PasskeyRefusal; detail?: string };

/** What a page gives the browser to sign a decision with (`navigator.credentials.get`), as JSON. */
export interface DecisionRequestOptions {
  challenge: string;
  rpId: string;
  allowCredentials: Array<{ id: string; type: 'public-key'; transports?: string[] }>;
  userVerification: 'required';
  timeout: number;
}

/** A user's passkey as their page lists it. */
export type PasskeyListing = Pick<StoredPasskey, 'id' | 'name' | 'createdAt' | 'lastUsedAt'>;

/**
 * Passkeys: registration (`registrationOptions`, then `register`), a user's list and removal, and the step-up of a
 * page that asks for one (`decisionOptions`, then `verifyDecision`, whose receipt `verifyReceipt` checks again later).
 * The signed challenge is the decision's (`decisionChallenge`: the page's id, the action's hash, the decision), so a
 * signature counts for that decision only; the counter's compare-and-set in the store takes each signature once.
 * WebAuthn itself is `@simplewebauthn/server`'s, loaded at first use.
 */
@Injectable()
export class ElicitationPasskeys {
  constructor(
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationStore,
    @InjectPasskeyOptions() private readonly options: ResolvedPasskeyOptions,
  ) {}

  /** Throws, naming `presence`, when a page cannot ask for a passkey here: no page user, or a store without passkeys. */
  assertUsable(): void {
    if (!this.options.identified) {
      throw new ElicitationInputError('presence', '"passkey" needs the resolvePageUser option: a passkey is a known user\'s');
    }
    if (!this.group) {
      throw new ElicitationInputError('presence', '"passkey" needs a store with passkeys (addPasskey…: every built-in store has them)');
    }
  }

  /** Whether the pages can use passkeys at all (the passkey page answers 404 otherwise). */
  get usable(): boolean {
    return this.options.identified && this.group !== undefined;
  }

  /** The user's passkeys, oldest first, as their page lists them. */
  async list(userId: string): Promise<PasskeyListing[]> {
    return (await this.passkeys.listPasskeys(userId)).map(({ id, name, createdAt, lastUsedAt }) => ({ id, name, createdAt, lastUsedAt }));
  }

  /** Removes the user's passkey `id` (its public key stays, for the receipts it signed); false when they have none such. */
  remove(userId: string, id: string): Promise<boolean> {
    return this.passkeys.removePasskey(userId, id, Date.now());
  }

  /** A new registration's options for the browser (`navigator.credentials.create`); its challenge is kept for one use. */
  async registrationOptions(userId: string): Promise<Record<string, unknown>> {
    const [{ generateRegistrationOptions }, existing] = await Promise.all([loadWebAuthn(), this.passkeys.listPasskeys(userId)]);
    const random = randomPool.take(32);
    // Given as bytes: the library sends their base64url, which is what the browser signs and posts back.
    const challenge = random.toString('base64url');
    await this.passkeys.keepCallState(registrationKey(challenge), userId, Date.now() + REGISTRATION_TTL_MS);
    const options = await generateRegistrationOptions({
      rpName: this.options.rpName,
      rpID: this.options.rpId,
      userName: userId,
      userID: userHandle(userId),
      challenge: new Uint8Array(random),
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.id, ...(p.transports && { transports: p.transports }) })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
    return options as unknown as Record<string, unknown>;
  }

  /** Verifies a registration the browser made from `registrationOptions` and keeps the passkey as `userId`'s. */
  async register(userId: string, posted: unknown, name: unknown): Promise<PasskeyVerdict<StoredPasskey>> {
    const response = parseCredential(posted);
    const challenge = response && challengeOf(response);
    // A challenge of ours is 43 characters (32 bytes, base64url): anything else is no ceremony of ours.
    if (!response || challenge === undefined || !/^[\w-]{43}$/.test(challenge)) return { ok: false, reason: 'malformed' };
    // One use, and only by the user it was made for: a ceremony taken, expired or another user's is refused.
    if ((await this.passkeys.takeCallState(registrationKey(challenge), Date.now())) !== userId) return { ok: false, reason: 'expired' };
    const { verifyRegistrationResponse } = await loadWebAuthn();
    let info;
    try {
      const verified = await verifyRegistrationResponse({
        response: response as never,
        expectedChallenge: challenge,
        expectedOrigin: [...this.options.origins],
        expectedRPID: this.options.rpId,
        requireUserVerification: true,
      });
      if (!verified.verified) return { ok: false, reason: 'not-verified' };
      info = verified.registrationInfo;
    } catch (error) {
      return { ok: false, reason: 'not-verified', detail: error instanceof Error ? error.message : String(error) };
    }
    const now = Date.now();
    const passkey: StoredPasskey = {
      id: info.credential.id,
      userId,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      ...(info.credential.transports && { transports: [...info.credential.transports] }),
      name: passkeyName(name, info.credentialDeviceType, now),
      createdAt: now,
    };
    const added = await this.passkeys.addPasskey(passkey, this.options.maxPerUser);
    return added === 'added' ? { ok: true, value: passkey } : { ok: false, reason: added };
  }

  /** What the browser signs the page's decision with, or `undefined` when the user has no passkey yet. */
  async decisionOptions(record: ElicitationRecord): Promise<DecisionRequestOptions | undefined> {
    const inputs = passkeyInputsOf(record);
    const passkeys = await this.passkeys.listPasskeys(record.userId);
    if (!inputs || passkeys.length === 0) return undefined;
    return {
      challenge: decisionChallenge(inputs),
      rpId: this.options.rpId,
      allowCredentials: passkeys.map((p) => ({ id: p.id, type: 'public-key', ...(p.transports && { transports: p.transports }) })),
      userVerification: 'required',
      timeout: CEREMONY_TIMEOUT_MS,
    };
  }

  /**
   * Verifies the signature a page's user posted for the page's decision: their own passkey, not removed, over this
   * decision's challenge, by the user in person (user verification), its counter moved on in the store (a signature
   * counts once). Resolves the receipt to keep with the decision.
   */
  async verifyDecision(record: ElicitationRecord, posted: unknown): Promise<PasskeyVerdict<PasskeyReceipt>> {
    const inputs = passkeyInputsOf(record);
    const response = parseCredential(posted);
    if (!inputs) return { ok: false, reason: 'malformed' };
    if (!response || typeof response.id !== 'string') {
      // Nothing signed: a user without a passkey is told to add one.
      const none = (await this.passkeys.listPasskeys(record.userId)).length === 0;
      return { ok: false, reason: none ? 'no-passkey' : 'malformed' };
    }
    const passkey = await this.passkeys.getPasskey(response.id);
    if (!passkey || passkey.userId !== record.userId) {
      // A user without a passkey of their own is told to add one, whatever credential came.
      if ((await this.passkeys.listPasskeys(record.userId)).length === 0) return { ok: false, reason: 'no-passkey' };
      return { ok: false, reason: passkey ? 'other-user' : 'unknown-credential' };
    }
    if (passkey.removedAt !== undefined) return { ok: false, reason: 'removed' };
    if (challengeOf(response) !== decisionChallenge(inputs)) return { ok: false, reason: 'other-action' };
    const checked = await this.verifySignature(response, inputs, passkey, passkey.counter);
    if (!checked.ok) return checked;
    const { counter, origin } = checked.value;
    const now = Date.now();
    if (!(await this.passkeys.usePasskey(passkey.id, passkey.counter, counter, now))) return { ok: false, reason: 'replayed' };
    const { authenticatorData, clientDataJSON, signature } = response.response as Record<string, string>;
    return {
      ok: true,
      value: {
        version: 1,
        ...inputs,
        userId: record.userId,
        credentialId: passkey.id,
        rpId: this.options.rpId,
        origin,
        authenticatorData,
        clientDataJSON,
        signature,
        counter,
        signedAt: new Date(now).toISOString(),
      },
    };
  }

  /**
   * Checks a receipt again, against the public key kept for its passkey (removed ones too): the signature over its
   * authenticator data and client data, whose challenge must be the one its inputs give, on an allowed origin, for the
   * relying party, by the user the passkey was registered by. Trusts no record's status: only the key and the maths.
   */
  async verifyReceipt(receipt: unknown): Promise<ReceiptCheck> {
    const r = receipt as Partial<PasskeyReceipt> | null;
    if (!r || typeof r !== 'object' || r.version !== 1 || r.decision !== 'confirm')
      return { valid: false, reason: 'not a receipt (version 1)' };
    const fields = ['elicitationId', 'actionHash', 'userId', 'credentialId', 'authenticatorData', 'clientDataJSON', 'signature'] as const;
    const missing = fields.find((f) => typeof r[f] !== 'string' || r[f] === '');
    if (missing !== undefined) return { valid: false, reason: `its ${missing} is missing` };
    const { elicitationId, actionHash, decision, userId, credentialId } = r as PasskeyReceipt;
    const passkey = await this.passkeys.getPasskey(credentialId);
    if (!passkey) return { valid: false, reason: 'its passkey is not known to this store' };
    if (passkey.userId !== userId) return { valid: false, reason: `its passkey is not ${userId}'s` };
    const response = {
      id: credentialId,
      rawId: credentialId,
      type: 'public-key',
      clientExtensionResults: {},
      response: { authenticatorData: r.authenticatorData, clientDataJSON: r.clientDataJSON, signature: r.signature },
    };
    if (challengeOf(response) !== decisionChallenge({ elicitationId, actionHash, decision })) {
      return { valid: false, reason: 'its signed challenge is not the one its question, action and decision give' };
    }
    const checked = await this.verifySignature(response, { elicitationId, actionHash, decision }, passkey, 0);
    if (!checked.ok) return { valid: false, reason: `its signature does not verify${checked.detail ? ` (${checked.detail})` : ''}` };
    if (checked.value.counter !== r.counter) return { valid: false, reason: 'its counter is not the one its authenticator data holds' };
    return { valid: true, userId, credentialId, elicitationId, actionHash, decision };
  }

  /** The WebAuthn check of an assertion over `inputs`' challenge with `passkey`'s public key (`counter`: the last known). */
  private async verifySignature(
    response: Record<string, unknown>,
    inputs: DecisionInputs,
    passkey: StoredPasskey,
    counter: number,
  ): Promise<PasskeyVerdict<{ counter: number; origin: string }>> {
    const { verifyAuthenticationResponse } = await loadWebAuthn();
    try {
      const { verified, authenticationInfo } = await verifyAuthenticationResponse({
        response: response as never,
        expectedChallenge: decisionChallenge(inputs),
        expectedOrigin: [...this.options.origins],
        expectedRPID: this.options.rpId,
        credential: { id: passkey.id, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter },
        requireUserVerification: true,
      });
      if (!verified) return { ok: false, reason: 'not-verified' };
      return { ok: true, value: { counter: authenticationInfo.newCounter, origin: authenticationInfo.origin } };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return { ok: false, reason: /counter/i.test(detail) ? 'replayed' : 'not-verified', detail };
    }
  }

  /** The store's passkeys and call states (a registration's challenge is one), or `undefined` when it lacks either group. */
  private get group(): PasskeyParts | undefined {
    const s = this.store;
    const has = PASSKEY_METHODS.every((method) => typeof s[method] === 'function');
    return has ? (s as ElicitationStore & PasskeyParts) : undefined;
  }

  private get passkeys(): PasskeyParts {
    const group = this.group;
    if (!group) this.assertUsable();
    return group!;
  }
}

/** What passkeys need of the store. */
type PasskeyParts = ElicitationPasskeyStore & ElicitationCallStateStore;
const PASSKEY_METHODS = [
  'addPasskey',
  'getPasskey',
  'listPasskeys',
  'removePasskey',
  'usePasskey',
  'keepCallState',
  'takeCallState',
] as const;

/** What a page's passkey signs: its id, its action's hash, the decision that lets the tool run; none on a page without. */
export function passkeyInputsOf(record: ElicitationRecord): DecisionInputs | undefined {
  const action = passkeyActionOf(record);
  return action && { elicitationId: record.id, actionHash: action.actionHash, decision: 'confirm' };
}
