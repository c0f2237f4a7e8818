import { createHash, randomUUID } from 'node:crypto';
import { SecretBox } from '../../security/secret-box.js';
import type { ElicitationCallStateStore } from '../../stores/call-state-store.js';
import { digestOf } from '../../core/json-digest.js';
import type { AskingCall } from '../questions/linked-questions.js';
import type { StepLog } from '../questions/run-steps.js';

/** What a 2025-11-25 call that ended before its tool ran leaves for its continuation: its id and its steps' results. */
interface CallStepState {
  callId: string;
  steps: Record<string, string>;
}

/** The seal's additional data: a state opens as this purpose's, under this key, and nothing else. */
const PURPOSE = 'nestjs-mcp-elicitation call-state v1';

/**
 * The steps of 2025-11-25 calls across a continuation. Such a call waits for its answers, so its body runs once; but
 * a call that ends before its tool ran (-32042 for `requireAnswer`, or a link) is continued by the next call of the
 * same tool by the same user with the same arguments, which runs the body from the top. What the first ran in steps is
 * kept in the store (`keepCallState`, sealed under the module's keys, until the question's lifetime ends) and taken by
 * the continuation, with the call's id, so its steps are not run again and their idempotency keys stay the same. A
 * store without call states (a custom one) runs them again, with new keys.
 */
export class PushStepStates {
  private readonly box: SecretBox;

  constructor(
    encryptionKeys: Buffer[],
    private readonly store: Partial<ElicitationCallStateStore>,
    /** How long a state waits for its continuation: a question's lifetime (`ttlMs`). */
    private readonly ttlMs: number,
  ) {
    this.box = new SecretBox(encryptionKeys, PURPOSE);
  }

  /** The step log of one call of `user` (none: nothing is kept across calls). */
  log(user: () => string | undefined, call: AskingCall | undefined): PushStepLog {
    return new PushStepLog(this, () => {
      const who = user();
      return who && call ? this.key(who, call) : undefined;
    });
  }

  /** The state a call left under `key`, taken (one continuation gets it), or `undefined`. */
  async take(key: string): Promise<CallStepState | undefined> {
    const sealed = await this.store.takeCallState?.(key, Date.now());
    if (!sealed) return undefined;
    try {
      return JSON.parse(this.box.open(sealed, `${PURPOSE}\0${key}`)) as CallStepState;
    } catch {
      return undefined; // sealed under a key this ring lacks: the steps run again
    }
  }

  /** Keeps `state` under `key` for the continuation. */
  async keep(key: string, state: CallStepState): Promise<void> {
    if (!this.store.keepCallState) return;
    await this.store.keepCallState(key, this.box.seal(JSON.stringify(state), `${PURPOSE}\0${key}`), Date.now() + this.ttlMs);
  }

  /** The key of a call's state: a digest of its user, its tool and its arguments (it carries no argument value). */
  private key(user: string, call: AskingCall): string {
    return createHash('sha256')
      .update(JSON.stringify([user, call.name, digestOf(call.args ?? {}), 'steps']))
      .digest('base64url');
  }
}

/**
 * The step log of one 2025-11-25 call: in the call (it waits), loaded from what the call it continues left, and left
 * for its own continuation when it ends before the tool ran (`handOver`).
 */
export class PushStepLog implements StepLog {
  scope: string = randomUUID();
  private steps: Record<string, string> = {};
  private loaded?: Promise<void>;

  constructor(
    private readonly states: PushStepStates,
    private readonly keyOf: () => string | undefined,
  ) {}

  load(): Promise<void> {
    return (this.loaded ??= this.takeEarlier());
  }

  recorded(name: string): string | undefined {
    return Object.hasOwn(this.steps, name) ? this.steps[name] : undefined;
  }

  keep(name: string, json: string): Promise<void> {
    this.steps[name] = json;
    return Promise.resolve();
  }

  /** The call ends before its tool ran: what its steps did waits for the continuation. */
  async handOver(): Promise<void> {
    const key = this.keyOf();
    if (!key || Object.keys(this.steps).length === 0) return;
    await this.states.keep(key, { callId: this.scope, steps: this.steps });
  }

  private async takeEarlier(): Promise<void> {
    const key = this.keyOf();
    const earlier = key ? await this.states.take(key) : undefined;
    if (!earlier) return;
    this.scope = earlier.callId;
    this.steps = { ...earlier.steps, ...this.steps };
  }
}
