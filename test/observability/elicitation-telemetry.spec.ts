/**
 * The busy instruments count in process and are observed at collection: what a real OpenTelemetry SDK exports must
 * be what synchronous instruments would have exported, also with two modules (two `ElicitationTelemetry`) on one
 * global meter provider.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { metrics } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { ElicitationTelemetry } from '../../src/observability/elicitation-telemetry.js';

const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
const provider = new MeterProvider({ readers: [reader] });

/** The data points of `name` as last collected: attributes as JSON → value. */
async function points(name: string): Promise<Record<string, number>> {
  await reader.forceFlush();
  const metric = exporter
    .getMetrics()
    .at(-1)
    ?.scopeMetrics.flatMap((s) => s.metrics)
    .find((m) => m.descriptor.name === name);
  return Object.fromEntries((metric?.dataPoints ?? []).map((p) => [JSON.stringify(p.attributes), p.value as number]));
}

describe('counts observed at collection', () => {
  let a: ElicitationTelemetry;
  let b: ElicitationTelemetry;
  beforeAll(async () => {
    metrics.setGlobalMeterProvider(provider);
    a = new ElicitationTelemetry();
    b = new ElicitationTelemetry();
    await a.onModuleInit();
    await b.onModuleInit();
  });
  afterAll(async () => {
    await provider.shutdown();
    metrics.disable();
  });

  it('exports page requests per page and status, summed over the modules of the process', async () => {
    a.pageRequest('api-key', 200);
    a.pageRequest('api-key', 200);
    b.pageRequest('api-key', 200);
    b.pageRequest('status', 429);
    expect(await points('elicitation.page.requests')).toEqual({
      [JSON.stringify({ page: 'api-key', status: 200 })]: 3,
      [JSON.stringify({ page: 'status', status: 429 })]: 1,
    });
    a.pageRequest('status', 429);
    expect((await points('elicitation.page.requests'))[JSON.stringify({ page: 'status', status: 429 })]).toBe(2);
  });

  it('exports created, finished and pending as the lifecycle moves', async () => {
    a.created('api-key', 'url');
    b.created('confirm', 'url');
    a.created('form', 'form');
    b.finished('api-key', 'completed', 'url', 0, 1_500);
    expect(await points('elicitation.created')).toEqual({
      [JSON.stringify({ kind: 'api-key', mode: 'url' })]: 1,
      [JSON.stringify({ kind: 'confirm', mode: 'url' })]: 1,
      [JSON.stringify({ kind: 'form', mode: 'form' })]: 1,
    });
    expect(await points('elicitation.finished')).toEqual({ [JSON.stringify({ kind: 'api-key', outcome: 'completed' })]: 1 });
    // Pages only: a form-mode question is never pending in the store.
    expect(await points('elicitation.pending')).toEqual({ '{}': 1 });
    a.finished('confirm', 'declined', 'url', 0, 10);
    a.finished('confirm', 'expired', 'url', 0, 10);
    expect(await points('elicitation.pending')).toEqual({ '{}': -1 });
  });
});
