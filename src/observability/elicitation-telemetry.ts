import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { ElicitationKind, FinalStatus } from '../core/elicitation.types.js';
import {
  formatTraceparent,
  loadOtelApi,
  parseTraceparent,
  type OtelApi,
  type OtelContext,
  type OtelMeter,
  type OtelObservableResult,
  type OtelSpan,
  type OtelTracer,
  type TelemetryAttributes,
} from './otel-api.js';

/** The instrumentation scope: the meter's and the tracer's name. */
export const TELEMETRY_SCOPE = 'nestjs-mcp-elicitation';

/** How an elicitation was put to the person: a page (URL mode) or a form-mode question sent to the client. */
export type ElicitationMode = 'url' | 'form';

/** Buckets of `elicitation.answer.duration`, in seconds: a person answers in seconds to minutes. */
const DURATION_BUCKETS_S = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/**
 * Counts by attribute set, kept in the process and reported when the metrics are collected (through an observable
 * instrument): counting costs a Map lookup, where a synchronous instrument's `add` has the SDK hash the attributes
 * on every request.
 */
class Tally {
  private readonly counts = new Map<string, { attributes: TelemetryAttributes; value: number }>();

  /** Adds `by` to the count of the attribute set named `key` (`attributes` builds that set the first time). */
  add(key: string, attributes: () => TelemetryAttributes, by = 1): void {
    const count = this.counts.get(key);
    if (count) count.value += by;
    else this.counts.set(key, { attributes: attributes(), value: by });
  }

  report(result: OtelObservableResult): void {
    for (const { attributes, value } of this.counts.values()) result.observe(value, attributes);
  }
}

/**
 * The instruments, with the names dashboards rely on (a contract: README "Metrics and traces"). The busy ones
 * (`created`, `finished`, `pending`, `page.requests`) count in process and are observed at collection (`Tally`);
 * exporters see the same counters and up-down counter as from synchronous instruments.
 */
interface Instruments {
  created: Tally;
  finished: Tally;
  duration: ReturnType<OtelMeter['createHistogram']>;
  pending: Tally;
  pageRequests: Tally;
  storeErrors: ReturnType<OtelMeter['createCounter']>;
  fallback: ReturnType<OtelMeter['createCounter']>;
  notifications: ReturnType<OtelMeter['createCounter']>;
}

/**
 * One set of instruments per meter, shared by every module of the process that uses it: their counts add up, as they
 * would on the same synchronous instruments (two callbacks reporting one attribute set would not).
 */
const instrumentsByMeter = new WeakMap<OtelMeter, Instruments>();

function instruments(meter: OtelMeter): Instruments {
  const known = instrumentsByMeter.get(meter);
  if (known) return known;
  const observed = (create: 'createObservableCounter' | 'createObservableUpDownCounter', name: string, description: string) => {
    const tally = new Tally();
    meter[create](name, { description }).addCallback((result) => tally.report(result));
    return tally;
  };
  const made: Instruments = {
    created: observed('createObservableCounter', 'elicitation.created', 'Elicitations created, by kind and mode'),
    finished: observed('createObservableCounter', 'elicitation.finished', 'Elicitations finished, by kind and outcome'),
    duration: meter.createHistogram('elicitation.answer.duration', {
      description: 'Time from creation to finish',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    }),
    pending: observed(
      'createObservableUpDownCounter',
      'elicitation.pending',
      'Pending elicitations: created here minus finished here (sum over instances for the total)',
    ),
    pageRequests: observed('createObservableCounter', 'elicitation.page.requests', 'Requests to the pages and the status route'),
    storeErrors: meter.createCounter('elicitation.store.errors', { description: 'Store operations that failed' }),
    fallback: meter.createCounter('elicitation.fallback', { description: 'Questions that went down the fallback ladder, by rung' }),
    notifications: meter.createCounter('elicitation.notifications', {
      description: 'Notification attempts settled by this instance, by notifier, event and outcome',
    }),
  };
  instrumentsByMeter.set(meter, made);
  return made;
}

const NO_ATTRIBUTES = (): TelemetryAttributes => ({});

/** A span the module started, and the context in which it is the active one. */
export interface TelemetrySpan {
  /** Runs `fn` with this span as the active one (its children, the trace context of events). */
  run<R>(fn: () => R): R;
  setAttribute(key: string, value: string | number | boolean): void;
  /** Ends the span; `failed` marks it as an error (`error.type`: the error's class name, or `message`). */
  end(failed?: { error?: unknown; message?: string }): void;
}

/** A span that is none (telemetry off, or a route without one). */
export const NO_SPAN: TelemetrySpan = { run: (fn) => fn(), setAttribute: () => undefined, end: () => undefined };

/**
 * The module's metrics and spans through `@opentelemetry/api`, an optional peer: loaded at module init, and when it
 * is absent every call here does nothing. Instruments come from the global `MeterProvider` registered before the
 * app initialises (OpenTelemetry's Node SDK, or your own); spans from the global tracer provider. No attribute
 * carries a user id, an email, an elicitation id or a secret: kinds, modes, outcomes, page names, HTTP statuses,
 * store operations and rungs only, so every series stays bounded.
 * @internal
 */
@Injectable()
export class ElicitationTelemetry implements OnModuleInit {
  private api: OtelApi | undefined;
  private tracer: OtelTracer | undefined;
  private metrics: Instruments | undefined;

  async onModuleInit(): Promise<void> {
    if (this.api) return;
    const api = await loadOtelApi();
    if (!api) return;
    this.api = api;
    this.tracer = api.trace.getTracer(TELEMETRY_SCOPE);
    this.metrics = instruments(api.metrics.getMeter(TELEMETRY_SCOPE));
  }

  /** An elicitation was created here: a page (`url`, now pending in the store) or a form-mode question. */
  created(kind: ElicitationKind, mode: ElicitationMode): void {
    if (!this.metrics) return;
    this.metrics.created.add(`${kind} ${mode}`, () => ({ kind, mode }));
    if (mode === 'url') this.metrics.pending.add('', NO_ATTRIBUTES);
  }

  /** An elicitation this instance created or finished left `pending` here, `createdAt` → `finishedAt` (epoch ms). */
  finished(kind: ElicitationKind, outcome: FinalStatus, mode: ElicitationMode, createdAt: number, finishedAt: number): void {
    if (!this.metrics) return;
    this.metrics.finished.add(`${kind} ${outcome}`, () => ({ kind, outcome }));
    this.metrics.duration.record(Math.max(finishedAt - createdAt, 0) / 1000, { kind, outcome });
    if (mode === 'url') this.metrics.pending.add('', NO_ATTRIBUTES, -1);
  }

  /** Whether the module's metrics are counted (an OpenTelemetry API is installed): `pageRequest` does nothing otherwise. */
  get counting(): boolean {
    return this.metrics !== undefined;
  }

  /** A request to a page or the status route was answered with `status`. */
  pageRequest(page: string, status: number): void {
    this.metrics?.pageRequests.add(`${page} ${status}`, () => ({ page, status }));
  }

  /** A store operation (a method of `ElicitationStore`) failed. */
  storeError(operation: string): void {
    this.metrics?.storeErrors.add(1, { operation });
  }

  /** A question went down its ladder to `rung` (the rungs below the first it tried), or ran out of rungs (`error`). */
  fallback(rung: string): void {
    this.metrics?.fallback.add(1, { rung });
  }

  /** Counts a notice this instance settled: `outcome` is delivered, retried, failed, dropped, skipped or moved. */
  notified(notifier: string, event: string, outcome: string): void {
    this.metrics?.notifications.add(1, { notifier, event, outcome });
  }

  /**
   * Reports the notification outbox's counts (the shared store's, the same on every instance): `elicitation.outbox.pending`,
   * `elicitation.outbox.failed`, `elicitation.outbox.delivered` and `elicitation.outbox.oldest_age` (seconds since the
   * oldest pending notice was due, 0 when none is), read from `read` at collection.
   */
  observeOutbox(read: () => { pending: number; failed: number; delivered: number; oldestDueAt?: number; at: number } | undefined): void {
    const meter = this.api?.metrics.getMeter(TELEMETRY_SCOPE);
    if (!meter) return;
    const gauge = (name: string, description: string, value: (s: NonNullable<ReturnType<typeof read>>) => number, unit?: string) =>
      meter.createObservableGauge(name, { description, ...(unit && { unit }) }).addCallback((result) => {
        const s = read();
        if (s) result.observe(value(s), {});
      });
    gauge('elicitation.outbox.pending', 'Notifications waiting to go out', (s) => s.pending);
    gauge('elicitation.outbox.failed', 'Notifications given up', (s) => s.failed);
    gauge('elicitation.outbox.delivered', "Notifications delivered (the store's count)", (s) => s.delivered);
    gauge(
      'elicitation.outbox.oldest_age',
      'Age of the oldest due notification',
      (s) => (s.oldestDueAt === undefined ? 0 : Math.max(0, (s.at - s.oldestDueAt) / 1000)),
      's',
    );
  }

  /**
   * Starts a span (a child of the active one), not yet active: `run` makes it so. `links`: the W3C `traceparent`s
   * of related spans elsewhere (another instance's, from the event message).
   */
  startSpan(name: string, attributes: TelemetryAttributes, links: ReadonlyArray<string | undefined> = []): TelemetrySpan {
    const api = this.api;
    if (!api || !this.tracer) return NO_SPAN;
    const linked = links.map(parseTraceparent).filter((c) => c !== undefined);
    const parent = api.context.active();
    const span = this.tracer.startSpan(
      name,
      { attributes, ...(linked.length > 0 && { links: linked.map((c) => ({ context: c })) }) },
      parent,
    );
    // A span no one records (no tracer provider, or not sampled) carries nothing its parent's context does not:
    // making it the active one would cost a context per call and change nothing downstream.
    if (!span.isRecording()) {
      span.end();
      return NO_SPAN;
    }
    const active: OtelContext = api.trace.setSpan(parent, span);
    return {
      run: (fn) => api.context.with(active, fn),
      setAttribute: (key, value) => void span.setAttribute(key, value),
      end: (failed) => endSpan(api, span, failed),
    };
  }

  /** Runs `fn` in a new active span, ended when `fn` settles (an error when it throws or rejects). */
  inSpan<R>(name: string, attributes: TelemetryAttributes, fn: (span: TelemetrySpan) => R, links?: ReadonlyArray<string | undefined>): R {
    if (!this.api) return fn(NO_SPAN);
    const span = this.startSpan(name, attributes, links);
    if (span === NO_SPAN) return fn(NO_SPAN);
    return span.run(() => {
      let result: R;
      try {
        result = fn(span);
      } catch (error) {
        span.end({ error });
        throw error;
      }
      if (result instanceof Promise) {
        result.then(
          () => span.end(),
          (error: unknown) => span.end({ error }),
        );
      } else span.end();
      return result;
    });
  }

  /** The W3C `traceparent` of the active span, for the cross-instance event; `undefined` when there is none. */
  traceparent(): string | undefined {
    const span: OtelSpan | undefined = this.api?.trace.getSpan(this.api.context.active());
    const context = span?.spanContext();
    return context && parseTraceparent(formatTraceparent(context)) ? formatTraceparent(context) : undefined;
  }
}

/**
 * Ends a span; a failed one gets the error status and `error.type` (the error's class name). Never the error's
 * message nor its stack: a store's or a tool's error text is not ours to export.
 */
function endSpan(api: OtelApi, span: OtelSpan, failed?: { error?: unknown; message?: string }): void {
  if (failed) {
    const type = failed.message ?? (failed.error instanceof Error ? failed.error.name : 'Error');
    span.setAttribute('error.type', type);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
  }
  span.end();
}
