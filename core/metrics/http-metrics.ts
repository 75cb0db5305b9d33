/** The Prometheus metrics of SPEC.md > Server, metrics (GET /server/metrics): five HTTP metrics in a registry of
 * their own per Services instance (never prom-client's global default registry: tests build many apps in one
 * process, each must count only its own requests), plus the standard process metrics.
 *
 * The process metrics (collectDefaultMetrics) describe the process, not an app, and registering them starts a
 * GC observer and an event-loop histogram that prom-client never stops; so they are registered once per process
 * and name prefix (processRegistry) and merged into every instance's registry. */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MetricsConfig } from '../config.ts';

export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
export const SIZE_BUCKETS = [100, 1000, 10_000, 100_000, 1_000_000, 10_000_000];

type RequestLabel = 'method' | 'route';
type ResponseLabel = RequestLabel | 'status_code';

export interface HttpMetrics {
  /** Everything scraped by GET /server/metrics: this instance's HTTP metrics and the process metrics. */
  registry: Registry;
  requests: Counter<ResponseLabel>;
  duration: Histogram<ResponseLabel>;
  active: Gauge;
  requestSize: Histogram<RequestLabel>;
  responseSize: Histogram<ResponseLabel>;
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
  const own = new Registry();
  const registers = [own];
  const metrics = {
    requests: new Counter({
      name: `${prefix}http_requests_total`, help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status_code'] as const, registers,
    }),
    duration: new Histogram({
      name: `${prefix}http_request_duration_seconds`, help: 'Time from request arrival to the end of the response, in seconds.',
      labelNames: ['method', 'route', 'status_code'] as const, buckets: DURATION_BUCKETS, registers,
    }),
    active: new Gauge({
      name: `${prefix}http_active_connections`, help: 'Requests in progress.', registers,
    }),
    requestSize: new Histogram({
      name: `${prefix}http_request_size_bytes`, help: 'Request body sizes from the content-length header, in bytes.',
      labelNames: ['method', 'route'] as const, buckets: SIZE_BUCKETS, registers,
    }),
    responseSize: new Histogram({
      name: `${prefix}http_response_size_bytes`, help: 'Response body sizes from the content-length header, in bytes.',
      labelNames: ['method', 'route', 'status_code'] as const, buckets: SIZE_BUCKETS, registers,
    }),
  };
  return { registry: Registry.merge([own, processRegistry(prefix)]), ...metrics };
}
