/** The subset of autocannon's programmatic API the benchmark uses (autocannon 9 ships no types, and
 * @types/autocannon is not a dependency). Shapes follow autocannon's README > API. */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface RawRequest {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    interface Request extends RawRequest {
      /** Mutates the request before it is sent; returning a falsy value restarts the request list. */
      setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest | undefined | null;
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
    }

    interface Options {
      url: string | string[];
      connections?: number;
      duration?: number | string;
      amount?: number;
      timeout?: number;
      pipelining?: number;
      bailout?: number;
      method?: string;
      title?: string;
      body?: string | Buffer;
      headers?: Record<string, string>;
      requests?: Request[];
      initialContext?: Record<string, unknown>;
      excludeErrorStats?: boolean;
      skipAggregateResult?: boolean;
    }

    /** hdr-histogram-percentiles-obj */
    interface Histogram {
      min: number;
      max: number;
      average: number;
      mean: number;
      stddev: number;
      total: number;
      p2_5: number;
      p50: number;
      p75: number;
      p90: number;
      p97_5: number;
      p99: number;
      p99_9: number;
      p99_99: number;
      p99_999: number;
    }

    interface Result {
      title?: string;
      url: string;
      requests: Histogram & { sent: number };
      latency: Histogram;
      throughput: Histogram;
      duration: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      start: Date;
      finish: Date;
      connections: number;
      pipelining: number;
      non2xx: number;
      resets: number;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
    }
  }

  function autocannon(opts: autocannon.Options): autocannon.Instance;
  function autocannon(opts: autocannon.Options, cb: (err: Error | null, result: autocannon.Result) => void): autocannon.Instance;

  export = autocannon;
}
