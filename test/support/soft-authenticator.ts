/**
 * A passkey authenticator in software, for the tests that check the module's WebAuthn verification without a browser
 * (the browser's own ceremonies are e2e/approvals/passkeys.e2e-spec.ts's, with Chromium's virtual authenticator): an
 * ES256 key pair, registration responses with `none` attestation, and assertions with user presence and verification,
 * each moving its signature counter on. CBOR by `@simplewebauthn/server`'s own helper.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest();

export class SoftAuthenticator {
  readonly credentialId = b64url(randomBytes(16));
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  private counter = 0;

  constructor(
    private readonly rpId: string,
    private readonly origin: string,
  ) {}

  /** The registration response (`navigator.credentials.create`'s, as JSON) for `challenge`. */
  register(challenge: string): string {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const id = Buffer.from(this.credentialId, 'base64url');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    // Flags: user present (0x01), user verified (0x04), attested credential data (0x40).
    const authData = Buffer.concat([this.rpIdHash(), Buffer.from([0x45]), this.count(0), Buffer.alloc(16), length, id, Buffer.from(cose)]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge, origin: this.origin, crossOrigin: false });
    return JSON.stringify({
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(Buffer.from(clientDataJSON)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
    });
  }

  /** An assertion (`navigator.credentials.get`'s, as JSON) over `challenge`; `counter` overrides the next count. */
  sign(challenge: string, { counter = ++this.counter, origin = this.origin }: { counter?: number; origin?: string } = {}): string {
    const authData = Buffer.concat([this.rpIdHash(), Buffer.from([0x05]), this.count(counter)]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin, crossOrigin: false }));
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey);
    return JSON.stringify({
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      clientExtensionResults: {},
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature) },
    });
  }

  private rpIdHash(): Buffer {
    return sha256(this.rpId);
  }

  private count(value: number): Buffer {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(value);
    return bytes;
  }
}
