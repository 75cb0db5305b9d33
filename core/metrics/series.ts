/** The hot path of the HTTP metrics: per label set, plain counters and bucket arrays, updated with one Map lookup
 * per request; prom-client's own Counter/Histogram hash and validate their label object on every call, which
 * cost a pk read about 8% of its CPU (test/bench/metrics.ts). The series are handed to prom-client's registry as
 * metric objects (name, help, type, get(), reset()) and written out by it in the usual text exposition, next to
 * prom-client's gauge and process metrics. */
import type { Metric } from 'prom-client';

type Labels = Record<string, string>;

export interface Series {
  labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above the highest bound. */
  buckets: Float64Array;
}

interface ExportedValue { labels: Labels; value: number; metricName: string }

/** A family of histograms keyed by a caller-built string (the label values joined). */
export class HistogramFamily {
  readonly #series = new Map<string, Series>();
  readonly #bounds: readonly number[];

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
  }

  /** The series of `key` (the label values joined), or undefined before its first observation. */
  get(key: string): Series | undefined {
    return this.#series.get(key);
  }

  add(key: string, labels: Labels): Series {
    const series = { labels, count: 0, sum: 0, buckets: new Float64Array(this.#bounds.length + 1) };
    this.#series.set(key, series);
    return series;
  }

  observe(series: Series, value: number): void {
    series.count++;
    series.sum += value;
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    series.buckets[i]++;
  }

  reset(): void {
    this.#series.clear();
  }

  /** Exposition values of the histogram `name` (`_bucket` with cumulative counts and le, `_sum`, `_count`). */
  histogramValues(name: string): ExportedValue[] {
    const values: ExportedValue[] = [];
    for (const s of this.#series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += s.buckets[i];
        values.push({ labels: { ...s.labels, le: String(bound) }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${name}_count` });
    }
    return values;
  }

  /** Exposition values of a counter `name` holding each series' observation count. */
  countValues(name: string): ExportedValue[] {
    return [...this.#series.values()].map((s) => ({ labels: s.labels, value: s.count, metricName: name }));
  }
}

/** A metric object prom-client's Registry can hold and print (what its own metric classes expose to it). */
export function exportedMetric(name: string, help: string, type: 'counter' | 'histogram',
  values: () => ExportedValue[], reset: () => void): Metric {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    collect: undefined,
    async get() {
      return { name, help, type, aggregator: 'sum' as const, values: values() };
    },
    reset,
  };
  return metric as unknown as Metric;
}
