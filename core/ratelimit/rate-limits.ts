/** The rate-limit buckets of SPEC.md > Limits over rate-limiter-flexible. Memory store: one map operation per
 * bucket. Shared store: one Redis round trip per bucket (keys `svc:rate:{prefix}:{key}`, or
 * `svc:{namespace}:rate:{prefix}:{key}` like every other shared key when REDIS_NAMESPACE is set), insured by an
 * in-memory limiter with the same points: when Redis is not ready or a command fails, counting continues in
 * memory, so limiting never fails open. */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LogLevel } from '../config.ts';
import { emitSecurityEvent, type RateLimitTriggeredEvent } from '../events/security.ts';
import type { BucketName, RateLimitConfig } from './config.ts';

/** Store prefix and security-event limiter name of each bucket. */
const BUCKETS: Record<BucketName, { prefix: string; limiter: RateLimitTriggeredEvent['details']['limiter'] }> = {
  global: { prefix: 'global', limiter: 'global' },
  ip: { prefix: 'ip', limiter: 'ip' },
  assets: { prefix: 'assets', limiter: 'assets' },
  service: { prefix: 'service', limiter: 'service' },
  user: { prefix: 'user', limiter: 'per-user' },
  login: { prefix: 'auth_login', limiter: 'endpoint' },
  email: { prefix: 'email', limiter: 'email' },
  webhook: { prefix: 'notify_webhook', limiter: 'endpoint' },
};

/** A rejected consumption: what the 429 reports. */
export interface RateLimitExceeded {
  bucket: BucketName;
  limit: number;
  msBeforeNext: number;
}

export class RateLimits {
  readonly globalEnabled: boolean;
  readonly #limiters: Record<BucketName, RateLimiterAbstract>;
  readonly #points: Record<BucketName, number>;

  constructor(config: RateLimitConfig, private readonly logLevel: LogLevel, redis: { client: Redis; namespace: string } | null) {
    this.globalEnabled = config.globalEnabled;
    const limiters = {} as Record<BucketName, RateLimiterAbstract>;
    const points = {} as Record<BucketName, number>;
    for (const name of Object.keys(BUCKETS) as BucketName[]) {
      const { points: p, duration } = config.buckets[name];
      const memory = new RateLimiterMemory({ points: p, duration, keyPrefix: BUCKETS[name].prefix });
      limiters[name] = redis
        ? new RateLimiterRedis({
          storeClient: redis.client,
          points: p,
          duration,
          keyPrefix: redis.namespace ? `svc:${redis.namespace}:rate:${BUCKETS[name].prefix}` : `svc:rate:${BUCKETS[name].prefix}`,
          rejectIfRedisNotReady: true,
          insuranceLimiter: memory,
        })
        : memory;
      points[name] = p;
    }
    this.#limiters = limiters;
    this.#points = points;
  }

  /** Counts one request against `key` in `bucket`: null when allowed. The first rejection of a window emits
   * RATE_LIMIT_TRIGGERED (once per key and window, so a flood does not flood the log too). Store errors
   * propagate (the request fails) rather than letting it through. */
  async consume(bucket: BucketName, key: string, ip: string | null): Promise<RateLimitExceeded | null> {
    try {
      await this.#limiters[bucket].consume(key);
      return null;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const limit = this.#points[bucket];
      if (err.consumedPoints === limit + 1) {
        emitSecurityEvent({ type: 'RATE_LIMIT_TRIGGERED', severity: 'warning', details: { limiter: BUCKETS[bucket].limiter, key, ip } }, this.logLevel);
      }
      return { bucket, limit, msBeforeNext: err.msBeforeNext };
    }
  }
}
