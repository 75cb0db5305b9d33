/** The Prometheus metrics of SPEC.md > Server, metrics (GET /server/metrics): five HTTP metrics in a registry of
 * their own per Services instance (never prom-client's global default registry: tests build many apps in one
 * process, each must count only its own requests), plus the standard process metrics.
 *
 * Requests are aggregated in core/metrics/series.ts (one Map lookup per request) and printed by prom-client's
 * registry; the active-requests gauge is prom-client's (no labels: cheap). The process metrics
 * (collectDefaultMetrics) describe the process, not an app, and registering them starts a GC observer and an
 * event-loop histogram that prom-client never stops; so they are registered once per process and name prefix
 * (processRegistry) and merged into every instance's registry. */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { MetricsConfig } from '../config.ts';
import { exportedMetric, HistogramFamily } from './series.ts';

export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
export const SIZE_BUCKETS = [100, 1000, 10_000, 100_000, 1_000_000, 10_000_000];

export interface HttpMetrics {
  /** Everything scraped by GET /server/metrics: this instance's HTTP metrics and the process metrics. */
  registry: Registry;
  /** http_active_connections. */
  active: Gauge;
  /** One answered request: http_requests_total, http_request_duration_seconds, and the two size histograms when
   * the size is above 0 (content-length present). */
  record(method: string, route: string, status: number, seconds: number, requestSize: number, responseSize: number): void;
}

/** Prometheus metric names: [a-zA-Z_:][a-zA-Z0-9_:]*; the prefix may be empty. */
const PREFIX = /^(?:[a-zA-Z_:][a-zA-Z0-9_:]*)?$/;

const processRegistries = new Map<string, Registry>();

function processRegistry(prefix: string): Registry {
  let registry = processRegistries.get(prefix);
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix });
    processRegistries.set(prefix, registry);
  }
  return registry;
}

export function createHttpMetrics(config: MetricsConfig): HttpMetrics {
  const prefix = config.namePrefix;
  if (!PREFIX.test(prefix)) {
    throw new Error(`METRICS_NAME_PREFIX must match [a-zA-Z_:][a-zA-Z0-9_:]* (a Prometheus metric name), got "${prefix}"`);
  }
  const duration = new HistogramFamily(DURATION_BUCKETS);
  const requestSize = new HistogramFamily(SIZE_BUCKETS);
  const responseSize = new HistogramFamily(SIZE_BUCKETS);
  const own = new Registry();
  const names = {
    requests: `${prefix}http_requests_total`,
    duration: `${prefix}http_request_duration_seconds`,
    requestSize: `${prefix}http_request_size_bytes`,
    responseSize: `${prefix}http_response_size_bytes`,
  };
  // http_requests_total is the count of the duration histogram: every answered request is observed there once.
  own.registerMetric(exportedMetric(names.requests, 'HTTP requests answered, by method, route pattern and status.', 'counter',
    () => duration.countValues(names.requests), () => duration.reset()));
  own.registerMetric(exportedMetric(names.duration, 'Time from request arrival to the end of the response, in seconds.', 'histogram',
    () => duration.histogramValues(names.duration), () => duration.reset()));
  const active = new Gauge({ name: `${prefix}http_active_connections`, help: 'Requests in progress.', registers: [own] });
  own.registerMetric(exportedMetric(names.requestSize, 'Request body sizes from the content-length header, in bytes.', 'histogram',
    () => requestSize.histogramValues(names.requestSize), () => requestSize.reset()));
  own.registerMetric(exportedMetric(names.responseSize, 'Response body sizes from the content-length header, in bytes.', 'histogram',
    () => responseSize.histogramValues(names.responseSize), () => responseSize.reset()));

  return {
    registry: Registry.merge([own, processRegistry(prefix)]),
    active,
    record(method, route, status, seconds, reqSize, resSize) {
      const key = `${method} ${status} ${route}`;
      let labels: Record<string, string> | null = null;
      const series = duration.get(key) ?? duration.add(key, labels = { method, route, status_code: String(status) });
      duration.observe(series, seconds);
      if (resSize > 0) {
        responseSize.observe(responseSize.get(key) ?? responseSize.add(key, labels ?? { method, route, status_code: String(status) }), resSize);
      }
      if (reqSize > 0) {
        const reqKey = `${method} ${route}`;
        requestSize.observe(requestSize.get(reqKey) ?? requestSize.add(reqKey, { method, route }), reqSize);
      }
    },
  };
}
