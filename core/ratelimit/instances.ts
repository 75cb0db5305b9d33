/** Which rate limits apply to a set of services, recorded without loading the limiter library (rate-limiter-flexible
 * is imported by ./index.ts, which the app loads with its first request only when limits apply). */
import type { ConfigPort, StorePort } from '../ports.ts';
import type { RateLimits } from './rate-limits.ts';

/** Built (or set) limits per services; null: none. */
export const builtLimits = new WeakMap<ConfigPort & StorePort, RateLimits | null>();

/** Sets the limits apps built from now on over `services` use (e.g. limits on their own Redis connection). */
export function useRateLimits(services: ConfigPort & StorePort, limits: RateLimits | null): void {
  builtLimits.set(services, limits);
}

/** Whether requests over `services` are rate limited: limits set for them, else RATE_LIMITER_ENABLED. */
export function rateLimited(services: ConfigPort & StorePort): boolean {
  const limits = builtLimits.get(services);
  return limits === undefined ? services.config.rateLimiter.enabled : limits !== null;
}
