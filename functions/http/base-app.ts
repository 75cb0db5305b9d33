/** The Hono app both halves start from: services in context, error envelope, rate limiting and
 * authentication (functions/http/rate-limit.ts; plain authentication when RATE_LIMITER_ENABLED=false). */
import { Hono } from 'hono';
import { rateLimitsFor } from '../../core/ratelimit/index.ts';
import type { Services } from '../../core/services.ts';
import type { AppEnv } from './env.ts';
import { installErrorHandling } from './errors.ts';
import { authenticateRequest } from './authenticate.ts';
import { rateLimitedAuthentication } from './rate-limit.ts';

/** Paths that answer without resolving a caller (and without touching the database). */
const UNAUTHENTICATED = new Set(['/server/ping', '/server/health']);

export function createBaseApp(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  installErrorHandling(app, services.config);
  const limits = rateLimitsFor(services);
  if (limits) {
    const limited = rateLimitedAuthentication(limits, UNAUTHENTICATED);
    app.use('*', async (c, next) => {
      c.set('services', services);
      return limited(c, next);
    });
    return app;
  }
  app.use('*', async (c, next) => {
    c.set('services', services);
    if (UNAUTHENTICATED.has(c.req.path)) return next();
    return authenticateRequest(c, next);
  });
  return app;
}
