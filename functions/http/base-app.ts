/** The Hono app both halves start from, in this order: the error envelope; HTTP metrics (METRICS_ENABLED,
 * functions/http/metrics-middleware.ts; outermost, so shed and refused requests are counted too); the pressure
 * limiter (PRESSURE_LIMITER_ENABLED, functions/http/pressure.ts; before authentication so shedding is cheap);
 * services in context, rate limiting and authentication (functions/http/rate-limit.ts; plain authentication
 * when RATE_LIMITER_ENABLED=false). A switched-off feature installs no middleware at all. */
import { Hono } from 'hono';
import { rateLimitsFor } from '../../core/ratelimit/index.ts';
import type { Services } from '../../core/services.ts';
import type { AppEnv } from './env.ts';
import { installErrorHandling } from './errors.ts';
import { authenticateRequest, carriesToken } from './authenticate.ts';
import { rateLimitedAuthentication } from './rate-limit.ts';
import { requireAuthOnAuthRoutes } from './auth-required.ts';
import { metricsMiddleware } from './metrics-middleware.ts';
import { pressureLimiter } from './pressure.ts';

/** Paths that, called without a credential, answer without resolving the Public role (so a health check never
 * needs the database). A credential is checked on them like anywhere else (SPEC.md > Authentication 3). */
const ANONYMOUS_WITHOUT_LOOKUP = new Set(['/server/ping', '/server/health']);

export function createBaseApp(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  installErrorHandling(app, services.config);
  if (services.metrics) app.use('*', metricsMiddleware(services.metrics));
  if (services.pressure) app.use('*', pressureLimiter(services.pressure, services.config));
  const limits = rateLimitsFor(services);
  if (limits) {
    const limited = rateLimitedAuthentication(limits, ANONYMOUS_WITHOUT_LOOKUP);
    app.use('*', async (c, next) => {
      c.set('services', services);
      return limited(c, next);
    });
  } else {
    app.use('*', async (c, next) => {
      c.set('services', services);
      if (ANONYMOUS_WITHOUT_LOOKUP.has(c.req.path) && !carriesToken(c)) return next();
      return authenticateRequest(c, next);
    });
  }
  requireAuthOnAuthRoutes(app);
  return app;
}
