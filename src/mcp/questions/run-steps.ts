import { createHash } from 'node:crypto';
import { ElicitationStepError } from '../../errors/elicitation-step.error.js';

/** What a step's function gets: the key to send with its outside effect, so the API it calls can drop a repeat. */
export interface StepContext {
  /**
   * Stable for this step of this task (or of this call and its retries): a step whose effect went out but whose
   * result was never recorded (the process died in between) runs again with the same key. 43 URL-safe characters.
   */
  idempotencyKey: string;
}

/** A step's work: called once, its JSON result recorded. */
export type StepFn<T> = (step: StepContext) => T | Promise<T>;

/** Where a run keeps its steps' results (JSON text by step name): the task's body, the sealed state, the call. */
export interface StepLog {
  /** What the idempotency keys of this run's steps are made from: the task's id, or the call's (kept across its retries). */
  readonly scope: string;
  /** Reads what the run continues from, before its first step (a 2025-11-25 call's earlier call, from the store). */
  load?(): Promise<void>;
  /** Step `name`'s result as an earlier run recorded it. */
  recorded(name: string): string | undefined;
  /** Records step `name`'s result before the body goes on (a task writes it to the store, fenced by its lease). */
  keep(name: string, json: string): Promise<void>;
}

/** Longest step name, in characters (it is kept with every result). */
const MAX_NAME_LENGTH = 200;

/**
 * The rule of steps, the same in every room: a step's function runs the first time its name is reached in the
 * task (or call); its JSON result is recorded before the body goes on, and every later run of the body gets the
 * recorded result without calling the function. A name is used once per run. The value returned is the JSON round
 * trip of the function's, on the first run as on later ones, so no run sees something the others do not.
 */
export class RunSteps {
  private readonly names = new Set<string>();

  constructor(
    private readonly log: StepLog,
    private readonly maxBytes: number,
  ) {}

  async run<T>(name: string, fn: StepFn<T>): Promise<T> {
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH) {
      const shown = typeof name === 'string' ? `a name of ${name.length} characters` : `a ${typeof name}`;
      throw new ElicitationStepError(
        String(name),
        'name',
        `elicitation.step needs a name of 1 to ${MAX_NAME_LENGTH} characters; it got ${shown}.`,
      );
    }
    if (this.names.has(name)) {
      throw new ElicitationStepError(
        name,
        'duplicate',
        `elicitation.step("${name}") was reached twice in one run of the tool: each step needs a name of its own (its result is recorded under it).`,
      );
    }
    this.names.add(name);
    await this.log.load?.();
    const recorded = this.log.recorded(name);
    if (recorded !== undefined) return valueOf<T>(recorded);
    const json = this.serialise(name, await fn({ idempotencyKey: stepKey(this.log.scope, name) }));
    await this.log.keep(name, json);
    return valueOf<T>(json);
  }

  private serialise(name: string, value: unknown): string {
    let json: string;
    try {
      json = JSON.stringify({ v: value });
    } catch (error) {
      throw new ElicitationStepError(
        name,
        'not-json',
        `elicitation.step("${name}") returned a value JSON cannot carry (${error instanceof Error ? error.message : String(error)}); ` +
          'its function ran, and a later run calls it again with the same idempotency key.',
      );
    }
    const bytes = Buffer.byteLength(json);
    if (bytes > this.maxBytes) {
      throw new ElicitationStepError(
        name,
        'too-large',
        `elicitation.step("${name}") returned ${bytes} bytes of JSON, over limits.maxStepResultBytes (${this.maxBytes}): ` +
          'return what identifies the effect (an id, a URL), not a document. Its function ran, and a later run calls it again with the same idempotency key.',
      );
    }
    return json;
  }
}

/** The idempotency key of step `name` in `scope`: a digest, so it reveals neither. */
export function stepKey(scope: string, name: string): string {
  return createHash('sha256').update(`nestjs-mcp-elicitation step\0${scope}\0${name}`).digest('base64url');
}

function valueOf<T>(json: string): T {
  return (JSON.parse(json) as { v: T }).v;
}
