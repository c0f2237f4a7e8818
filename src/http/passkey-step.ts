import { HttpStatus, Injectable } from '@nestjs/common';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import { ElicitationPasskeys, type PasskeyRefusal } from '../lifecycle/elicitation-passkeys.js';
import { passkeyActionOf } from '../lifecycle/passkey-action.js';
import { pagePath, passkeysPath } from '../lifecycle/page-urls.js';
import type { PageMessages } from '../messages/page-messages.js';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import type { PasskeyReceipt } from '../proofs/decision-proof.js';
import { observeRefusal } from './elicitation-route-observer.js';
import type { FormBody } from './page-access.js';
import type { PageRequest } from './page-http.js';
import type { ConfirmPasskeyView } from './page-contexts.js';

/** A passkey step's outcome: signed (the receipt), not asked for (`none`), or refused (the page's status and sentence). */
export type PasskeyStepResult = { signed: PasskeyReceipt } | 'none' | { refused: { status: number; text: string } };

/**
 * The passkey step of a confirm page that asks for one (`presence: 'passkey'`): what the page gives the browser to sign
 * its decision with (or, for a user without a passkey, the link to add one and come back), and the check of the
 * signature posted with the confirmation. Refusals are the page's own (it is shown again, nothing stored).
 */
@Injectable()
export class PasskeyStep {
  constructor(
    private readonly passkeys: ElicitationPasskeys,
    @InjectPageOptions() private readonly options: ElicitationPageOptions,
  ) {}

  /** The confirm page's passkey view, or `null` on a page that asks for none. */
  async view(record: ElicitationRecord, messages: PageMessages): Promise<ConfirmPasskeyView | null> {
    if (!passkeyActionOf(record)) return null;
    const options = await this.passkeys.decisionOptions(record);
    const back = pagePath(this.options, record.id, 'confirm');
    return {
      options: options ? JSON.stringify(options) : null,
      register: options ? null : `${passkeysPath(this.options)}?returnTo=${encodeURIComponent(back)}`,
      texts: messages.passkeys,
    };
  }

  /** Checks the signature posted with a confirmation (`passkey`, the browser's JSON), on a page that asks for one. */
  async verify(record: ElicitationRecord, body: FormBody, req: PageRequest, messages: PageMessages): Promise<PasskeyStepResult> {
    if (!passkeyActionOf(record)) return 'none';
    const verdict = await this.passkeys.verifyDecision(record, body?.passkey);
    if (verdict.ok) return { signed: verdict.value };
    observeRefusal(req, 'passkey');
    return { refused: { status: refusalStatus(verdict.reason), text: messages.passkeys.refused[verdict.reason] } };
  }
}

/** A post without a usable signature is 400; a signature that is not this user's, for this decision, now, is 403. */
function refusalStatus(reason: PasskeyRefusal): number {
  return reason === 'malformed' ? HttpStatus.BAD_REQUEST : HttpStatus.FORBIDDEN;
}
