/**
 * The one place `@opentelemetry/api` (an optional peer) is loaded: lazily, by a dynamic import (a `require` in the
 * CommonJS build), so the package loads and works without it. Only the few members the module uses are named
 * here, structurally, so no declaration the package ships mentions an OpenTelemetry type.
 */

/** Attribute values the module sets: bounded words and numbers, never a user id, an elicitation id or a secret. */
export type TelemetryAttributes = Record<string, string | number | boolean>;

/** The W3C trace context of a span (`traceparent`), as it travels between instances in the event message. */
export interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
}

export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  /** False for a span no one records (no tracer provider registered, or not sampled). */
  isRecording(): boolean;
  end(): void;
}

export interface OtelContext {
  readonly __brand?: 'OtelContext';
}

interface OtelCounter {
  add(value: number, attributes?: TelemetryAttributes): void;
}

interface OtelHistogram {
  record(value: number, attributes?: TelemetryAttributes): void;
}

interface OtelInstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** What an observable instrument's callback reports to, at each collection. */
export interface OtelObservableResult {
  observe(value: number, attributes?: TelemetryAttributes): void;
}

interface OtelObservable {
  addCallback(callback: (result: OtelObservableResult) => void): void;
}

export interface OtelMeter {
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
  createHistogram(name: string, options?: OtelInstrumentOptions): OtelHistogram;
  createObservableCounter(name: string, options?: OtelInstrumentOptions): OtelObservable;
  createObservableUpDownCounter(name: string, options?: OtelInstrumentOptions): OtelObservable;
  createObservableGauge(name: string, options?: OtelInstrumentOptions): OtelObservable;
}

export interface OtelTracer {
  startSpan(
    name: string,
    options?: { attributes?: TelemetryAttributes; links?: Array<{ context: OtelSpanContext }>; kind?: number },
    context?: OtelContext,
  ): OtelSpan;
}

/** The members of `@opentelemetry/api` the module uses (its 1.x API, from 1.3 on). */
export interface OtelApi {
  metrics: { getMeter(name: string, version?: string): OtelMeter };
  trace: {
    getTracer(name: string, version?: string): OtelTracer;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    getSpan(context: OtelContext): OtelSpan | undefined;
  };
  context: {
    active(): OtelContext;
    with<R>(context: OtelContext, fn: () => R): R;
  };
  SpanStatusCode: { ERROR: number };
}

/** `@opentelemetry/api` when it is installed, else `undefined` (telemetry is then off, at no cost). */
export async function loadOtelApi(): Promise<OtelApi | undefined> {
  try {
    const api = (await import('@opentelemetry/api')) as unknown as Partial<OtelApi> & { default?: Partial<OtelApi> };
    // An ES module app gets the named exports; a CommonJS build may see them under `default`.
    const found = api.metrics ? api : api.default;
    return found?.metrics && found.trace && found.context ? (found as OtelApi) : undefined;
  } catch {
    return undefined;
  }
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A span context as a W3C `traceparent` header value. */
export function formatTraceparent(context: OtelSpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The remote span context of a `traceparent`, or `undefined` for anything else (an invalid one, all-zero ids). */
export function parseTraceparent(value: unknown): OtelSpanContext | undefined {
  const match = typeof value === 'string' ? TRACEPARENT.exec(value) : null;
  if (!match || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return undefined;
  return { traceId: match[1], spanId: match[2], traceFlags: parseInt(match[3], 16), isRemote: true };
}
