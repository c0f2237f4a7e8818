import { SecretBox } from './secret-box.js';

/**
 * The box answers are sealed in at rest: AES-256-GCM under the `encryptionKey` ring (no purpose: the ring's own
 * keys), each answer bound to its record's id. The lifecycle's answers (`ElicitationAnswers`) and the OAuth vault's
 * grants are sealed in it. The module builds it from the key ring and provides it, so that no class of the
 * lifecycle or of `oauth/` holds the ring itself.
 */
export class AnswerBox extends SecretBox {
  /** @param encryptionKeys the `encryptionKey` ring, 32 bytes each, the sealing key first. */
  constructor(encryptionKeys: readonly Buffer[]) {
    super(encryptionKeys);
  }
}
