/** The process's rate limits for a set of services: built once (so apps sharing services share counters),
 * null when RATE_LIMITER_ENABLED is false. */
import type { ConfigPort, StorePort } from '../ports.ts';
import type { RedisStore } from '../store/redis-store.ts';
import { RateLimits } from './rate-limits.ts';
import { builtLimits as built } from './instances.ts';

export { RateLimits, type RateLimitExceeded } from './rate-limits.ts';
export type { BucketName } from './config.ts';
export { useRateLimits, rateLimited } from './instances.ts';

function build(services: ConfigPort & StorePort): RateLimits | null {
  const { config, store } = services;
  if (!config.rateLimiter.enabled) return null;
  if (config.rateLimiter.store === 'shared') {
    // By kind, not instanceof: this module must not load ioredis where there is no Redis.
    if (store.kind === 'redis') return new RateLimits(config.rateLimiter, config.logLevel, { client: (store as RedisStore).client, namespace: config.redisNamespace });
    // Only reachable when a caller injects a non-Redis shared store (REDIS_URL is required by the config):
    // limit per process rather than not at all.
    if (config.logLevel !== 'silent') console.warn('RATE_LIMITER_STORE=shared without the Redis shared store: rate limits are per process');
  }
  return new RateLimits(config.rateLimiter, config.logLevel, null);
}

export function rateLimitsFor(services: ConfigPort & StorePort): RateLimits | null {
  let limits = built.get(services);
  if (limits === undefined) {
    limits = build(services);
    built.set(services, limits);
  }
  return limits;
}
