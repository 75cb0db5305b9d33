/** How the long-running apps are put together, whichever way their route groups are mounted: eagerly (./app.ts,
 * every group imported with the app) or lazily (./lazy-app.ts, each group imported by its first request). */
import type { Hono } from 'hono';
import type { Services } from '../core/services.ts';
import { createBaseApp } from '../functions/http/base-app.ts';
import type { AppEnv } from '../functions/http/env.ts';
import { mountServerRoutes } from '../functions/routes/server.ts';
import { mountMetricsRoutes } from '../functions/routes/metrics.ts';
import type { ExtensionHost } from '../core/extensions/host.ts';
import { mountExtensionEndpoints } from '../functions/http/extension-endpoints.ts';
import { mountStudio } from './studio.ts';

export type MountGroups = (app: Hono<AppEnv>) => void;

export function composeContainerApp(services: Services, extensions: ExtensionHost | undefined, mountContainer: MountGroups): Hono<AppEnv> {
  const app = createBaseApp(services);
  extensions?.fireInit('app.before', { app });
  // Its own /server/ping, /server/health and /server/info, for the load balancer's health checks, and its own
  // /server/metrics (each process keeps its own counters).
  mountServerRoutes(app);
  mountMetricsRoutes(app);
  mountStudio(app, { previewOrigins: services.config.studioPreviewOrigins });
  mountContainer(app);
  extensions?.fireInit('app.after', { app });
  return app;
}

/** One process serving the whole API and the Studio: the Studio, container routes, then every functions route. */
export function composeStandaloneApp(services: Services, extensions: ExtensionHost | undefined, mountContainer: MountGroups, mountFunctions: MountGroups): Hono<AppEnv> {
  const app = createBaseApp(services);
  extensions?.fireInit('app.before', { app });
  mountStudio(app, { previewOrigins: services.config.studioPreviewOrigins });
  mountContainer(app);
  mountFunctions(app);
  if (extensions) mountExtensionEndpoints(app, extensions);
  extensions?.fireInit('app.after', { app });
  return app;
}
