/** The long-running half with every route group imported at once (tests; ./lazy-app.ts is what `npm start` serves).
 * Standalone mode mounts its routes and the functions' routes on one app. */
import type { Hono } from 'hono';
import type { Services } from '../core/services.ts';
import type { AppEnv } from '../functions/http/env.ts';
import { mountFunctionRoutes } from '../functions/routes/index.ts';
import { mountContainerRoutes } from './routes.ts';
import type { ExtensionHost } from '../core/extensions/host.ts';
import { composeContainerApp, composeStandaloneApp } from './compose.ts';

export function createContainerApp(services: Services, extensions?: ExtensionHost): Hono<AppEnv> {
  return composeContainerApp(services, extensions, mountContainerRoutes);
}

export function createStandaloneApp(services: Services, extensions?: ExtensionHost): Hono<AppEnv> {
  return composeStandaloneApp(services, extensions, mountContainerRoutes, mountFunctionRoutes);
}
