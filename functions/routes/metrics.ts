/** GET /server/metrics (SPEC.md > Server, metrics): the Prometheus text exposition of this instance's registry
 * (core/metrics), admins only. With METRICS_ENABLED=false: 404 `{"error":"Metrics not enabled"}` (not the
 * errors envelope), answered before the admin check as Directus does. */
import type { Hono } from 'hono';
import { ForbiddenError } from '../../core/errors.ts';
import type { AppEnv } from '../http/env.ts';

export function mountMetricsRoutes(app: Hono<AppEnv>): void {
  app.get('/server/metrics', async (c) => {
    const { metrics } = c.get('services');
    if (!metrics) return c.json({ error: 'Metrics not enabled' }, 404);
    if (!c.get('accountability').admin) throw new ForbiddenError();
    return c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType });
  });
}
