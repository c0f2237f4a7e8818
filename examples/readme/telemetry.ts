// telemetry.ts: imported first by main.ts, so the providers exist before the app initialises (the module takes its
// meter then). OpenTelemetry's Node SDK (`new NodeSDK({ metricReader, traceExporter }).start()`) does the same.
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/** Serves the Prometheus text format at http://<host>:9464/metrics (a port of its own, off the public listener). */
export const prometheus = new PrometheusExporter({ port: 9464 });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [prometheus] }));
