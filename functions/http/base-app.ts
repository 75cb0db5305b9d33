/** The Hono app both halves start from: services in context, error envelope, authentication. */
import { Hono } from 'hono';
import type { Services } from '../../core/services.ts';
import type { AppEnv } from './env.ts';
import { installErrorHandling } from './errors.ts';
import { authenticateRequest } from './authenticate.ts';

/** Paths that answer without resolving a caller (and without touching the database). */
const UNAUTHENTICATED = new Set(['/server/ping', '/server/health']);

export function createBaseApp(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  installErrorHandling(app, services.config);
  app.use('*', async (c, next) => {
    c.set('services', services);
    if (UNAUTHENTICATED.has(c.req.path)) return next();
    return authenticateRequest(c, next);
  });
  return app;
}
