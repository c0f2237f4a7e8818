import { setMaxListeners } from 'node:events';
import { Inject, Injectable } from '@nestjs/common';
import { parseElicitationId, type ElicitationId } from '../core/elicitation-id.js';
import { InjectLifecycleOptions, type ElicitationLifecycleOptions } from '../options/lifecycle-options.js';
import type { ElicitationEvent, ElicitationRecord, FinalStatus, TransitionResult, WaitOutcome } from '../core/elicitation.types.js';
import { ElicitationShutdownError } from '../errors/elicitation-shutdown.error.js';
import { ElicitationEvents, lifecycleEvent } from '../events/elicitation-events.js';
import { ElicitationAudit } from '../observability/elicitation-audit.js';
import { ElicitationTelemetry } from '../observability/elicitation-telemetry.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import type { ElicitationStore, EventSentReport } from '../stores/elicitation-store.js';
import { ElicitationAnswers, type KeptAnswer } from './elicitation-answers.js';
import { ElicitationWaiters, type ElicitationWaitOptions } from './elicitation-waiters.js';

/** What `onMovedHere` calls: the status a record was moved to here, the record, and a completion's answer (JSON text). */
export type MovedHereListener = (status: FinalStatus, record: Readonly<ElicitationRecord>, answerJson?: string) => void;

/** A completion's answer, as `ElicitationTransitions.finish` takes it. */
export interface FinishedAnswer {
  /** The answer as its waiters get it (JSON text). */
  json: string;
  /** Kept sealed in every store (a file), not only in one outside this process. */
  seal?: boolean;
  /** What the store keeps instead of `json` (a feature that keeps its answers itself: the OAuth vault's grant). */
  kept?: KeptAnswer;
  /** How long the store retains the answer. @default the module's `retentionMs` */
  retentionMs?: number;
}

/** What follows a finish besides the record: the answer's JSON for the local waiters, and the store's report. */
export interface FinishedMove extends EventSentReport {
  /** A completion's answer as its waiters get it (JSON text). */
  answerJson?: string;
}

/**
 * The lifecycle's moves, one place for each: a record read as a reader sees it (an overdue pending one expires on the
 * way), a pending record moved to its final status (exactly once, whatever the concurrency), and what follows a move
 * made here: telemetry, the audit record, this instance's waiters woken with the outcome in hand, the event for the
 * other instances (whose waiters that event wakes). `ElicitationService` is built on it, and so are the features
 * that finish a record their own way (the OAuth callback). Internal: never exported.
 */
@Injectable()
export class ElicitationTransitions {
  /** The `waitForCompletion` calls of this instance. */
  private readonly waiters: ElicitationWaiters;
  private readonly stopRemoteWakes: () => void;
  /** Told of each transition this instance makes (the approvals count their approvers' decisions). */
  private readonly movedHere = new Set<MovedHereListener>();
  /** Aborted (with an `ElicitationShutdownError`) when the module starts to shut down (`close`). */
  /** One abort listener per call waiting on a client's answer (as many as the caps on calls in flight allow): no max. */
  private readonly shutdown = unlimited(new AbortController());

  constructor(
    @InjectLifecycleOptions() private readonly options: ElicitationLifecycleOptions,
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationStore,
    private readonly events: ElicitationEvents,
    private readonly telemetry: ElicitationTelemetry,
    private readonly audit: ElicitationAudit,
    private readonly answers: ElicitationAnswers,
  ) {
    this.waiters = new ElicitationWaiters({
      // A wait's id comes from a tool as it is: checked here, once per read.
      current: async (id) => {
        const checked = parseElicitationId(id);
        return checked === undefined ? undefined : this.current(checked);
      },
      stored: (id) => this.store.get(id, Date.now()),
      outcome: (record) => this.answers.outcome(record),
    });
    // Transitions made here wake their waiters directly; only another instance's need the event.
    this.stopRemoteWakes = events.subscribeRemote((event) => this.waiters.remote(event));
  }

  /**
   * Aborted, with an `ElicitationShutdownError` as its reason, when the module starts to shut down: the MCP binding
   * ends the questions it pushed to a client with it.
   */
  get shutdownSignal(): AbortSignal {
    return this.shutdown.signal;
  }

  /** The record as a reader sees it now: an overdue pending one expired on the way; `undefined` for an unknown id. */
  async current(id: ElicitationId): Promise<ElicitationRecord | undefined> {
    const now = Date.now();
    const record = await this.store.get(id, now);
    if (record?.status === 'pending' && now >= record.expiresAt) return this.expire(record.id, now);
    return record;
  }

  /**
   * Moves a pending record to `status`, exactly once, in an `elicitation.finish` span; a completion keeps `answer`
   * (sealed as `ElicitationAnswers.keep` says, or as `answer.kept`). A record found overdue expires instead.
   */
  finish(id: ElicitationId, status: FinalStatus, answer?: FinishedAnswer): Promise<TransitionResult> {
    return this.telemetry.inSpan('elicitation.finish', { 'elicitation.outcome': status }, () => this.move(id, status, answer));
  }

  /** Moves an overdue record to `expired` (once) and returns its current state. */
  async expire(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const result = await this.store.finish(id, { status: 'expired', now, purgeAt: now + this.options.retentionMs });
    if (result.ok) {
      this.finished('expired', result.record, now, { eventSent: result.eventSent });
      return result.record;
    }
    return result.reason === 'not-found' ? undefined : result.record;
  }

  /**
   * This instance moved `record` to `status`: wakes the local waiters with the outcome in hand (a completion's
   * answer as `answerJson`), then announces the transition here and to the other instances (unless the store said
   * it sent the event itself: `sent`, the store's report).
   */
  finished(status: FinalStatus, record: Readonly<ElicitationRecord>, at: number, { answerJson, ...sent }: FinishedMove = {}): void {
    this.telemetry.finished(record.kind, status, 'url', record.createdAt, at);
    const event = status === 'completed' ? 'answered' : status;
    this.audit.record({ event, elicitationId: record.id, kind: record.kind, userId: record.userId });
    this.waiters.finished(record.id, status, answerJson);
    this.publish(status, record, at, sent);
    for (const listener of this.movedHere) listener(status, record, answerJson);
  }

  /**
   * Calls `listener` after each transition this instance makes (never another instance's), with a completion's answer
   * (JSON text); returns the unsubscribe.
   */
  onMovedHere(listener: MovedHereListener): () => void {
    this.movedHere.add(listener);
    return () => this.movedHere.delete(listener);
  }

  /** `record` was given more time here: its waits follow the new expiry, and so (through the event) do the others'. */
  extended(record: Readonly<ElicitationRecord>, at: number, sent: EventSentReport = {}): void {
    this.waiters.extended(record.id, record.expiresAt);
    this.publish('extended', record, at, sent);
  }

  /**
   * Announces a lifecycle event here and to the other instances; only here when the store's move said it sent the
   * event itself (`sent.eventSent`).
   */
  publish(type: ElicitationEvent['type'], record: Readonly<ElicitationRecord>, at: number, sent: EventSentReport = {}): void {
    this.events.publish(lifecycleEvent(type, record, at), sent);
  }

  /** A wait for the record to leave `pending` (see `ElicitationService.waitForCompletion`). */
  wait(id: string, options: ElicitationWaitOptions): Promise<WaitOutcome> {
    return this.waiters.wait(id, options);
  }

  /**
   * Shutdown: `shutdownSignal` aborts; every wait, and every one started after, rejects with
   * `ElicitationShutdownError`; remote wakes stop.
   */
  close(): void {
    this.shutdown.abort(new ElicitationShutdownError());
    this.stopRemoteWakes();
    this.waiters.close();
  }

  /** `finish`'s work, in its span. */
  private async move(id: ElicitationId, status: FinalStatus, answer?: FinishedAnswer): Promise<TransitionResult> {
    const now = Date.now();
    const data = answer && (answer.kept ?? this.answers.keep(id, answer.json, answer.seal));
    const purgeAt = now + (answer?.retentionMs ?? this.options.retentionMs);
    const result = await this.store.finish(id, { status, data, now, purgeAt });
    if (result.ok) {
      this.finished(status, result.record, now, { answerJson: answer?.json, eventSent: result.eventSent });
      // The store's report stays here: callers get the result as the public API describes it.
      return { ok: true, record: result.record };
    }
    if (result.reason === 'expired') {
      const expired = await this.expire(id, now);
      if (expired && expired.status !== 'expired') {
        return { ok: false, reason: 'already-finished', status: expired.status as FinalStatus, record: expired };
      }
    }
    return result;
  }
}

/** `controller`, whose signal takes any number of listeners without Node's leak warning. */
function unlimited(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
