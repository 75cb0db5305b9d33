/** The long-running half. Standalone mode mounts its routes and the functions' routes on one app. */
import type { Hono } from 'hono';
import type { Services } from '../core/services.ts';
import { createBaseApp } from '../functions/http/base-app.ts';
import type { AppEnv } from '../functions/http/env.ts';
import { mountFunctionRoutes } from '../functions/routes/index.ts';
import { mountServerRoutes } from '../functions/routes/server.ts';
import { mountMetricsRoutes } from '../functions/routes/metrics.ts';
import { mountContainerRoutes } from './routes.ts';
import type { ExtensionHost } from '../core/extensions/host.ts';
import { mountExtensionEndpoints } from '../functions/http/extension-endpoints.ts';

export function createContainerApp(services: Services, extensions?: ExtensionHost): Hono<AppEnv> {
  const app = createBaseApp(services);
  extensions?.fireInit('app.before', { app });
  // Its own /server/ping, /server/health and /server/info, for the load balancer's health checks, and its own
  // /server/metrics (each process keeps its own counters).
  mountServerRoutes(app);
  mountMetricsRoutes(app);
  mountContainerRoutes(app);
  extensions?.fireInit('app.after', { app });
  return app;
}

/** One process serving the whole API: container routes first, then every functions route. */
export function createStandaloneApp(services: Services, extensions?: ExtensionHost): Hono<AppEnv> {
  const app = createBaseApp(services);
  extensions?.fireInit('app.before', { app });
  mountContainerRoutes(app);
  mountFunctionRoutes(app);
  if (extensions) mountExtensionEndpoints(app, extensions);
  extensions?.fireInit('app.after', { app });
  return app;
}
