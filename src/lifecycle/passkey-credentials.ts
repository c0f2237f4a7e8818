import { createHash } from 'node:crypto';

// What the browser sends of a passkey ceremony, as the module reads it before the WebAuthn library checks it: the
// credential's JSON, the challenge it signed, and the values a registration carries (the user handle, the name).

/** The largest credential the browser may post, as JSON text. */
const MAX_RESPONSE_LENGTH = 64 * 1024;
/** The longest name a user may give a passkey. */
const MAX_NAME_LENGTH = 64;

/** The call state a registration's challenge is kept under, for its one use. */
export function registrationKey(challenge: string): string {
  return `passkey-registration:${challenge}`;
}

/** The user handle the authenticator keeps: a digest of the user id, never the id itself. */
export function userHandle(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(`nestjs-mcp-elicitation/user\0${userId}`).digest());
}

/** A credential the browser posted (JSON text of a `PublicKeyCredential`), or `undefined`. */
export function parseCredential(posted: unknown): Record<string, unknown> | undefined {
  if (typeof posted !== 'string' || posted.length === 0 || posted.length > MAX_RESPONSE_LENGTH) return undefined;
  try {
    const value: unknown = JSON.parse(posted);
    const response = (value as { response?: unknown } | null)?.response;
    return value && typeof value === 'object' && response && typeof response === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The challenge in a credential's `clientDataJSON`, or `undefined`. */
export function challengeOf(credential: Record<string, unknown>): string | undefined {
  const text = (credential.response as { clientDataJSON?: unknown }).clientDataJSON;
  if (typeof text !== 'string') return undefined;
  try {
    const client = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof client.challenge === 'string' ? client.challenge : undefined;
  } catch {
    return undefined;
  }
}

/** The name a user gave, trimmed and cut, or one made from the kind of passkey and the day. */
export function passkeyName(name: unknown, deviceType: string, now: number): string {
  const given = typeof name === 'string' ? name.replace(/\s+/g, ' ').trim().slice(0, MAX_NAME_LENGTH) : '';
  if (given !== '') return given;
  const day = new Date(now).toISOString().slice(0, 10);
  return `${deviceType === 'multiDevice' ? 'Synced passkey' : 'Passkey'} added ${day}`;
}
