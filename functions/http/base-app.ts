/** The Hono app both halves start from, in this order: the error envelope; HTTP metrics (METRICS_ENABLED,
 * functions/http/metrics-middleware.ts; outermost, so shed and refused requests are counted too); the pressure
 * limiter (PRESSURE_ENABLED: admission and backstops, functions/http/pressure.ts; before authentication and body
 * parsing so shedding is cheap; one admission gate per app, and a process serves one app);
 * services in context, rate limiting and authentication (functions/http/rate-limit.ts, imported by the first
 * request; plain authentication when RATE_LIMITER_ENABLED=false). A switched-off feature installs no middleware
 * and loads no module. */
import { Hono, type MiddlewareHandler } from 'hono';
import type { Services } from '../../core/services.ts';
import { rateLimited } from '../../core/ratelimit/instances.ts';
import type { AppEnv } from './env.ts';
import { installErrorHandling } from './errors.ts';
import { authenticateRequest, carriesToken } from './authenticate.ts';
import { requireAuthOnAuthRoutes } from './auth-required.ts';
import { metricsMiddleware } from './metrics-middleware.ts';
import { pressureLimiter } from './pressure.ts';
import { AdmissionGate } from '../../core/pressure/admission.ts';

/** Paths that, called without a credential, answer without resolving the Public role (so a health check never
 * needs the database). A credential is checked on them like anywhere else (SPEC.md > Authentication 3). */
const ANONYMOUS_WITHOUT_LOOKUP = new Set(['/server/ping', '/server/health']);

export function createBaseApp(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  installErrorHandling(app, services.config);
  if (services.metrics) app.use('*', metricsMiddleware(services.metrics));
  const { pressure } = services.config;
  if (pressure.enabled) {
    const gate = pressure.admissionConcurrency > 0
      ? new AdmissionGate({ concurrency: pressure.admissionConcurrency, queue: pressure.admissionQueue, maxWaitMs: pressure.admissionMaxWaitMs })
      : null;
    app.use('*', pressureLimiter(services.pressure, gate, services.config));
  }
  const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (ANONYMOUS_WITHOUT_LOOKUP.has(c.req.path) && !carriesToken(c)) return next();
    return authenticateRequest(c, next);
  };
  if (rateLimited(services)) {
    // The limiter (rate-limiter-flexible, core/ratelimit) is imported when an app needs it, not with this module:
    // the import starts now and the first request waits for it.
    let limited: MiddlewareHandler<AppEnv> | null = null;
    let loading: Promise<MiddlewareHandler<AppEnv>> | null = null;
    const load = () => loading ??= rateLimitedMiddleware(services, authenticate).then((mw) => (limited = mw), (err: unknown) => {
      loading = null; // retried by the next request
      throw err;
    });
    load().catch(() => {});
    app.use('*', async (c, next) => {
      c.set('services', services);
      return (limited ?? await load())(c, next);
    });
  } else {
    app.use('*', async (c, next) => {
      c.set('services', services);
      return authenticate(c, next);
    });
  }
  requireAuthOnAuthRoutes(app);
  return app;
}

/** Authentication with rate limiting, or without when the limits of `services` are off (core/ratelimit). */
async function rateLimitedMiddleware(services: Services, plain: MiddlewareHandler<AppEnv>): Promise<MiddlewareHandler<AppEnv>> {
  const [{ rateLimitsFor }, { rateLimitedAuthentication }] = await Promise.all([import('../../core/ratelimit/index.ts'), import('./rate-limit.ts')]);
  const limits = rateLimitsFor(services);
  return limits ? rateLimitedAuthentication(limits, ANONYMOUS_WITHOUT_LOOKUP) : plain;
}
