/** The pressure limiter (SPEC.md > Limits PRESSURE_ENABLED; PRESSURE_ADMISSION_*, PRESSURE_LIMITER_*), in front of
 * authentication, rate limiting and body parsing, so a refused request costs next to nothing and its body is
 * never read:
 * 1. the backstops of core/pressure/monitor.ts: while the event loop is blocked (p99 delay) or a memory limit is
 *    exceeded, every request is refused;
 * 2. admission (core/pressure/admission.ts): at most PRESSURE_ADMISSION_CONCURRENCY requests are worked on at once,
 *    PRESSURE_ADMISSION_QUEUE more wait up to PRESSURE_ADMISSION_MAX_WAIT; anything beyond is refused at once.
 * Refused means 503 SERVICE_UNAVAILABLE (`Under pressure`) with `Retry-After: PRESSURE_LIMITER_RETRY_AFTER`.
 *
 * Never shed: /server/ping and /server/health. A load balancer or orchestrator probing an overloaded instance must
 * still see a live process (a failed health check would restart or drain it, moving the load elsewhere and
 * throwing away its warm caches, while the limiter already sheds the excess).
 *
 * Not counted by admission (the backstops still apply), see needsAdmission:
 * - the Studio's static files (GET /admin...): read from disk, no database; the slots are sized to the pool, and
 *   an admin opening the Studio during a burst should get the page, whose API calls then queue like any other;
 * - uploads (multipart bodies, /tus, /utils/import): their bodies stream for as long as the client takes, which
 *   would hold a slot all along; FILES_MAX_UPLOAD_CONCURRENCY and the import's own limits bound them. */
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../../core/config.ts';
import { ServiceUnavailableError } from '../../core/errors.ts';
import type { AdmissionGate } from '../../core/pressure/admission.ts';
import type { PressureMonitor } from '../../core/pressure/monitor.ts';
import type { AppEnv } from './env.ts';
import { errorResponse } from './errors.ts';

export const PRESSURE_EXEMPT_PATHS: ReadonlySet<string> = new Set(['/server/ping', '/server/health']);

/** Whether a request takes an admission slot (see the module comment). */
export function needsAdmission(method: string, path: string, contentType: string | undefined): boolean {
  if ((method === 'GET' || method === 'HEAD') && (path === '/admin' || path.startsWith('/admin/'))) return false;
  if (path === '/tus' || path.startsWith('/tus/') || path.startsWith('/utils/import/')) return false;
  return !(contentType ?? '').toLowerCase().startsWith('multipart/form-data');
}

export function pressureLimiter(monitor: PressureMonitor | null, gate: AdmissionGate | null, config: Config): MiddlewareHandler<AppEnv> {
  const retryAfter = String(config.pressure.retryAfterSeconds);
  const shed: MiddlewareHandler<AppEnv> = async (c) => {
    c.header('Retry-After', retryAfter);
    return errorResponse(c, new ServiceUnavailableError('Under pressure'), config);
  };
  return async (c, next) => {
    const path = c.req.path;
    if (PRESSURE_EXEMPT_PATHS.has(path)) return next();
    if (monitor?.overloaded()) return shed(c, next);
    if (!gate || !needsAdmission(c.req.method, path, c.req.header('content-type'))) return next();
    const entered = gate.enter();
    if (entered !== true && !(entered !== false && await entered)) return shed(c, next);
    try {
      await next();
    } finally {
      gate.leave();
    }
  };
}
