/** The long-running half as `npm start` serves it: the same routes in the same order as ./app.ts, registered from the
 * route manifest, each group imported by the first request that reaches it (functions/http/lazy-routes.ts). The
 * process then holds only the code and libraries its requests use (GraphQL, tus and the S3 SDK, the export/import
 * streams, ... stay on disk until needed). */
import type { Hono } from 'hono';
import type { Services } from '../core/services.ts';
import type { AppEnv } from '../functions/http/env.ts';
import { mountLazyFunctionRoutes } from '../functions/routes/lazy.ts';
import { mountLazyContainerRoutes } from './routes/lazy.ts';
import type { ExtensionHost } from '../core/extensions/host.ts';
import { composeContainerApp, composeStandaloneApp } from './compose.ts';

export function createLazyContainerApp(services: Services, extensions?: ExtensionHost): Hono<AppEnv> {
  return composeContainerApp(services, extensions, (app) => { mountLazyContainerRoutes(app); });
}

export function createLazyStandaloneApp(services: Services, extensions?: ExtensionHost): Hono<AppEnv> {
  return composeStandaloneApp(services, extensions, (app) => { mountLazyContainerRoutes(app); }, (app) => { mountLazyFunctionRoutes(app); });
}
