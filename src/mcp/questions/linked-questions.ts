import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectMcpOptions, type ElicitationMcpOptions } from '../../options/mcp-options.js';
import { ElicitationService } from '../../lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { ElicitationData, ElicitationOutcome, ElicitationRecord } from '../../core/elicitation.types.js';
import { displayText } from '../../security/display-text.js';
import { ELICITATION_OBSERVED_STORE } from '../../observability/observed-store.js';
import type { ElicitationCounterStore } from '../../stores/elicitation-store.js';
import { digestOf } from '../../core/json-digest.js';
import type { UrlElicitationAsk } from '../tool-elicitation.js';

/** The `_meta` key of a result that stands for a question still open (link and model rungs). */
export const PENDING_QUESTION_META_KEY = 'nestjs-mcp-elicitation/pending';

/** The metadata flag of a hosted form the model may answer through `submit-elicitation-answer`. */
export const ANSWER_IN_CHAT = 'answerInChat';

/** What a link or model result carries for programs (the text is for the model and the person). */
export interface PendingQuestionInfo {
  elicitationId: string;
  url: string;
  status: 'pending';
  /** Model rung only: what to send to `submit-elicitation-answer`. */
  answerWith?: { tool: string; requestedSchema: Record<string, unknown> };
}

/** A normal tool result (not `isError`) that ends the call while a question stays open. */
export interface PendingQuestionResult {
  content: Array<{ type: 'text'; text: string }>;
  /**
   * For programs, with the text as `instructions`: some clients hand the model `structuredContent` instead of the text
   * when a tool has it (`@mastra/mcp`), and the model still needs to know to show the link and call again.
   */
  structuredContent?: PendingQuestionInfo & { instructions: string };
  _meta: Record<string, PendingQuestionInfo>;
  [key: string]: unknown;
}

/**
 * Ends a tool call with a normal result while a question stays open (link and model rungs): the tool
 * wrapper (`McpElicitation.tool`) returns `result`. Tool code that catches errors must rethrow it.
 */
export class PendingQuestionSignal extends Error {
  override readonly name = 'PendingQuestionSignal';

  constructor(readonly result: PendingQuestionResult) {
    super('The tool call ends here while the person answers elsewhere; rethrow this signal.');
  }
}

/** Whether an error is the library's pending-question signal (rethrow it from your own `catch`). */
export function isPendingQuestionSignal(error: unknown): error is PendingQuestionSignal {
  return error instanceof PendingQuestionSignal;
}

/** The tool call a question belongs to, as the link rung keys it. */
export interface AskingCall {
  /** The tool's registered name. */
  name: string;
  args: unknown;
  /** The tool declares no output schema, so a result may carry `structuredContent`. */
  structured: boolean;
}

/** One tool call's part in the ladder: what the link and model rungs need, and the outcomes the call used. */
export interface CallScope {
  /** The tool and its arguments; absent (a call not made through `McpElicitation.tool`), link and model do not fit. */
  asking?: AskingCall;
  /** The name of `submit-elicitation-answer` when it is registered on this server (the model rung fits). */
  modelTool?: string;
  /** The client's name as its session's `initialize` gave it, where the server keeps one (the inbox's "asked by"). */
  client?: string;
}

/** A question that reached the link (or model) rung. */
export interface LinkedQuestion {
  user: string;
  /** The question's position in the call (0 for the first one asked). */
  position: number;
  /** Digest of the question (what is asked), so a different question at the same position is not taken for it. */
  digest: string;
  /** The page to ask on (created with the call's `askKey` when the question is new). */
  ask: UrlElicitationAsk;
  /** Model rung: the form's schema, for the model to collect. */
  model?: { requestedSchema: Record<string, unknown> };
}

/**
 * The questions a later call of the same tool picks up, and the claim that lets one answer run a tool once.
 * An elicitation created for a tool call carries an `askKey` (a digest of the user, the tool, its arguments and
 * the question's position in the call). An earlier elicitation under the same key that no call has claimed yet
 * is taken up instead of asking anew: still pending, its URL is given again (no new elicitation, no quota spent);
 * finished, its outcome is the answer of the one call that claims it.
 *
 * The claim (`claim`): a call takes a finished outcome only after counting one hit on the elicitation's
 * counter in the store (`hit`, atomic on every store and, on a shared store, across instances) and getting
 * the first; every other call, overlapping or later, finds it claimed and asks anew. A call that took answers and
 * ended at a later question's link (or -32042) before the tool ran hands them on (`handOver`): the tool's next call,
 * its continuation, takes them once more, so the person is never asked again. The optional `peekHits`
 * only spares a lookup the claims it would lose; the rule never depends on it.
 */
@Injectable()
export class LinkedQuestions {
  constructor(
    private readonly service: ElicitationService,
    private readonly records: ElicitationRecords,
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationCounterStore,
    @InjectMcpOptions() private readonly options: ElicitationMcpOptions,
  ) {}

  /** The key of the `position`-th question (`question`: its digest) of `user`'s `call`. Carries no argument value. */
  askKey(user: string, call: AskingCall, position: number, question: string): string {
    const material = JSON.stringify([user, call.name, digestOf(call.args ?? {}), position, question]);
    return createHash('sha256').update(material).digest('base64url');
  }

  /**
   * The question an earlier call of the same tool (same user, arguments and position) asked and no call has
   * claimed: still pending (its page is reused, so a retry never asks anew nor spends quota), or finished and
   * now claimed by this call (its outcome answers it). `undefined` outside `McpElicitation.tool` or when there is none.
   */
  async earlier(scope: CallScope, q: Pick<LinkedQuestion, 'user' | 'position' | 'digest'>): Promise<ElicitationRecord | undefined> {
    if (!scope.asking) return undefined;
    return this.find(q.user, this.askKey(q.user, scope.asking, q.position, q.digest));
  }

  /**
   * The outcome of a question this call holds: found finished by `earlier` (claimed then, and not read again), or
   * known by its id (answered in an earlier round of this call; read, and expired when overdue).
   */
  async outcomeOf<T extends ElicitationData>(record: Pick<ElicitationRecord, 'id'> | ElicitationRecord): Promise<ElicitationOutcome<T>> {
    const outcome =
      'finishedAt' in record && record.finishedAt !== undefined
        ? this.records.outcomeOfFinished<T>(record)
        : await this.service.getResult<T>(record.id);
    return outcome && outcome.status !== 'pending' ? outcome : { status: 'expired' };
  }

  /** The rung an earlier call's question went out on, as an outcome's `via` names it. */
  viaOf(record: Pick<ElicitationRecord, 'metadata'>): 'link' | 'model' {
    return record.metadata[ANSWER_IN_CHAT] === true ? 'model' : 'link';
  }

  /** The page URL of a record. */
  urlOf(record: Pick<ElicitationRecord, 'id' | 'kind'>): string {
    return this.records.urlFor(record.id, record.kind);
  }

  /**
   * The link (or model) rung: the outcome of this question when an earlier call asked it and the person
   * has finished; otherwise ends the call (`PendingQuestionSignal`) with the page URL: the one already
   * given while it is pending, or a new elicitation's. `known`: what `earlier` found for this question just
   * before, with no rung run since (so it is not looked up again).
   */
  async round<T extends ElicitationData>(
    scope: CallScope,
    q: LinkedQuestion,
    known?: { found: ElicitationRecord | undefined },
  ): Promise<{ elicitationId: string; outcome: ElicitationOutcome<T> }> {
    const asking = scope.asking;
    if (!asking) throw new Error('The link rung needs the tool call (McpElicitation.tool)');
    const askKey = this.askKey(q.user, asking, q.position, q.digest);
    const found = known ? known.found : await this.find(q.user, askKey);
    if (found && found.status !== 'pending') return { elicitationId: found.id, outcome: await this.outcomeOf<T>(found) };
    const { fallback: _ladder, ...ask } = q.ask;
    const question = found
      ? { elicitationId: found.id, url: this.urlOf(found) }
      : await this.service.createUrlElicitation({
          ...ask,
          userId: q.user,
          askKey,
          ...(q.model && { metadata: { ...ask.metadata, [ANSWER_IN_CHAT]: true } }),
        });
    throw new PendingQuestionSignal(
      q.model && scope.modelTool
        ? modelResult(asking, question.elicitationId, question.url, ask.message, q.model.requestedSchema, scope.modelTool)
        : linkResult(asking, question.elicitationId, question.url, ask.message),
    );
  }

  /**
   * The newest elicitation of `userId` under `askKey` that no call has claimed: pending, or finished and claimed
   * now by this call (a finished one another call claimed first is passed over).
   */
  async find(userId: string, askKey: string): Promise<ElicitationRecord | undefined> {
    const asked = await this.records.findAsked(userId, askKey);
    for (const record of asked) {
      if (await this.spent(record)) continue;
      if (record.status === 'pending' || (await this.claim(record))) return record;
    }
    return undefined;
  }

  /**
   * Claims a finished question's outcome for the calling tool call: true for exactly one claim of it, on every
   * store and across instances (the first hit of its counter); false when another call claimed it first.
   * `record`: finished (its expiry no longer moves, so every claim counts in one window), or its id to read it by.
   */
  async claim(record: Pick<ElicitationRecord, 'id' | 'expiresAt'> | string): Promise<boolean> {
    const finished = typeof record === 'string' ? await this.records.read(record) : record;
    if (!finished) return false;
    const { count } = await this.store.hit(this.spentKey(finished, await this.handed(finished)), ...this.spentWindow(finished));
    return count === 1;
  }

  /**
   * Hands finished answers this call claimed on to the tool's next call: the call ends with a question's link (or
   * -32042) before the tool ran, so the next call of the tool (its continuation, same user and arguments) takes them
   * again instead of asking the person once more. Each hand-over opens one more claim (a counter of its own), which
   * one call takes.
   */
  async handOver(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const record = await this.records.read(id);
      if (record) await this.store.hit(this.handedKey(record), ...this.spentWindow(record));
    }
  }

  /** Whether the claim a finished question allows now is taken (known without a claim only where the store peeks). */
  private async spent(record: ElicitationRecord): Promise<boolean> {
    if (!this.store.peekHits) return false;
    return (await this.store.peekHits(this.spentKey(record, await this.handed(record)), ...this.spentWindow(record))) > 0;
  }

  /** How often a finished question was handed on (0 where the store cannot peek: then it is claimed once). */
  private async handed(record: Pick<ElicitationRecord, 'id' | 'expiresAt'>): Promise<number> {
    return (await this.store.peekHits?.(this.handedKey(record), ...this.spentWindow(record))) ?? 0;
  }

  private handedKey(record: Pick<ElicitationRecord, 'id'>): string {
    return `asked-handed:${record.id}`;
  }

  /** The claim counter of a finished question: one per hand-over (`generation`), each taken by one call. */
  private spentKey(record: Pick<ElicitationRecord, 'id'>, generation: number): string {
    return generation === 0 ? `asked-spent:${record.id}` : `asked-spent:${record.id}:${generation}`;
  }

  /**
   * The claim counter's window and clock, both fixed per finished record: the clock is the latest the record can
   * be purged (its expiry plus the retention), the window a record's life plus its retention, so every hit lands
   * in one window that ends after the record is gone, on every instance.
   */
  private spentWindow(record: Pick<ElicitationRecord, 'expiresAt'>): [number, number] {
    return [this.options.ttlMs + this.options.retentionMs, record.expiresAt + this.options.retentionMs];
  }
}

/** The link rung's result: the person opens the page, then asks the assistant to try again. */
export function linkResult(call: AskingCall, id: string, url: string, message: string): PendingQuestionResult {
  const text = [
    `Open this page to continue: ${url}`,
    `What it is for: ${displayText(message)}`,
    'The user needs to give some information on this secure web page before this can continue (this app cannot ask for it in the chat): show them the link and ask them to open it in their browser.',
    `When they say they have finished, call the tool "${call.name}" again with the same arguments to continue.`,
  ].join('\n');
  return pendingResult(call, text, { elicitationId: id, url, status: 'pending' });
}

/** The model rung's result: the model collects the answer in the chat and submits it. */
export function modelResult(
  call: AskingCall,
  id: string,
  url: string,
  message: string,
  requestedSchema: Record<string, unknown>,
  tool: string,
): PendingQuestionResult {
  const text = [
    `This needs an answer from the user. Ask the user: ${displayText(message)}`,
    `The answer has these fields (JSON Schema): ${JSON.stringify(requestedSchema)}`,
    `Then call the tool "${tool}" with {"elicitationId":"${id}","action":"accept","content":{...the fields...}}` +
      ' (action "decline" if the user refuses, "cancel" if they want to stop).',
    `After that, call the tool "${call.name}" again with the same arguments to continue.`,
    `(The user may also answer on this page instead: ${url})`,
  ].join('\n');
  return pendingResult(call, text, { elicitationId: id, url, status: 'pending', answerWith: { tool, requestedSchema } });
}

function pendingResult(call: AskingCall, text: string, info: PendingQuestionInfo): PendingQuestionResult {
  return {
    content: [{ type: 'text', text }],
    ...(call.structured && { structuredContent: { ...info, instructions: text } }),
    _meta: { [PENDING_QUESTION_META_KEY]: info },
  };
}
