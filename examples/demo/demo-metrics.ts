import { Controller, Get, Header } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

let reader: PrometheusExporter | undefined;

/**
 * The process's Prometheus reader, registered once as the global `MeterProvider`'s reader. Call it before the app
 * initialises: the module takes its meter from the global provider at init (README "Metrics and traces").
 */
export function demoMetricsReader(): PrometheusExporter {
  if (!reader) {
    // No server of the exporter's own: the demo serves the scrape on its own port, GET /metrics.
    reader = new PrometheusExporter({ preventServerStart: true });
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  }
  return reader;
}

/**
 * `GET /metrics`: the module's instruments (and anything else on the global provider) in the Prometheus text
 * format, e.g. `elicitation_created_total{kind="api-key",mode="url"} 1`. A demo route: in a deployed app, keep
 * the scrape off the public listener (another port, or your proxy's allow list).
 */
@Controller('metrics')
export class DemoMetricsController {
  private readonly serializer = new PrometheusSerializer();

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  async scrape(): Promise<string> {
    const { resourceMetrics } = await demoMetricsReader().collect();
    return this.serializer.serialize(resourceMetrics);
  }
}
