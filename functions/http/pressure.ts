/** The pressure limiter (SPEC.md > Limits PRESSURE_ENABLED, PRESSURE_LIMITER_*): while the sampler of
 * core/pressure reports the process overloaded, requests are refused with 503 SERVICE_UNAVAILABLE
 * (`Under pressure`) and `Retry-After: PRESSURE_LIMITER_RETRY_AFTER`, before authentication and rate limiting so
 * shed load costs next to nothing.
 *
 * /server/ping and /server/health are exempt: a load balancer or orchestrator probing an overloaded instance must
 * still see a live process (a failed health check would restart or drain it, moving the load elsewhere and
 * throwing away its warm caches, while the limiter already sheds the excess). */
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../../core/config.ts';
import { ServiceUnavailableError } from '../../core/errors.ts';
import type { PressureMonitor } from '../../core/pressure/monitor.ts';
import type { AppEnv } from './env.ts';
import { errorResponse } from './errors.ts';

export const PRESSURE_EXEMPT_PATHS: ReadonlySet<string> = new Set(['/server/ping', '/server/health']);

export function pressureLimiter(monitor: PressureMonitor, config: Config): MiddlewareHandler<AppEnv> {
  const retryAfter = String(config.pressure.retryAfterSeconds);
  return async (c, next) => {
    if (!monitor.overloaded() || PRESSURE_EXEMPT_PATHS.has(c.req.path)) return next();
    c.header('Retry-After', retryAfter);
    return errorResponse(c, new ServiceUnavailableError('Under pressure'), config);
  };
}
