import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/json-digest.js';

/** What a person decided on a page that asks for a passkey: the only decision signed is the one that lets a tool run. */
export type SignedDecision = 'confirm';

/** What a passkey signs: which question, the action it is for (its hash) and the decision. */
export interface DecisionInputs {
  /** The page's elicitation id (an approver's page, or a confirm page). */
  elicitationId: string;
  /** The action's hash, hex: SHA-256 of the canonical JSON of `{ server, tool, args }` (or of what the page showed). */
  actionHash: string;
  decision: SignedDecision;
}

/**
 * The WebAuthn challenge of a decision, base64url: SHA-256 of the canonical JSON of its inputs under this library's
 * purpose. The same inputs always give the same challenge, so a signature over it proves that the holder of the passkey
 * decided this, on this question, for this action; any other question, action or decision asks for another signature.
 */
export function decisionChallenge(inputs: DecisionInputs): string {
  const signed = {
    purpose: 'nestjs-mcp-elicitation/decision/v1',
    elicitationId: inputs.elicitationId,
    actionHash: inputs.actionHash,
    decision: inputs.decision,
  };
  return createHash('sha256').update(canonicalJson(signed)).digest('base64url');
}

/**
 * A passkey decision's receipt: the signed challenge's inputs and what the authenticator returned, enough for anyone
 * holding the passkey's public key to check the signature again (`ElicitationService.verifyReceipt`), without trusting
 * the record that says the question was answered. Nothing in it is secret.
 */
export interface PasskeyReceipt extends DecisionInputs {
  /** The receipt's format. */
  version: 1;
  /** Who signed: the page's user, whose passkey it is. */
  userId: string;
  /** The passkey's credential id, base64url. */
  credentialId: string;
  /** The relying party's id the signature is scoped to (the `passkeys.rpId` option). */
  rpId: string;
  /** The origin the browser signed on. */
  origin: string;
  /** What the authenticator signed, base64url: `authenticatorData`, then the `clientDataJSON` it signed a hash of. */
  authenticatorData: string;
  clientDataJSON: string;
  /** The signature, base64url. */
  signature: string;
  /** The authenticator's counter after this signature (0 for one that keeps none). */
  counter: number;
  /** When the module verified it, ISO 8601. */
  signedAt: string;
}

/** The receipt in a signed confirm page's answer (`{ confirmed: true, receipt }`), if it holds one of this format. */
export function receiptIn(answer: unknown): PasskeyReceipt | undefined {
  const receipt = (answer as { receipt?: unknown } | null | undefined)?.receipt as Partial<PasskeyReceipt> | null | undefined;
  return receipt && typeof receipt === 'object' && receipt.version === 1 ? (receipt as PasskeyReceipt) : undefined;
}

/** What `verifyReceipt` found: valid, or the first thing that does not hold. */
export type ReceiptCheck =
  | { valid: true; userId: string; credentialId: string; elicitationId: string; actionHash: string; decision: SignedDecision }
  | { valid: false; reason: string };
