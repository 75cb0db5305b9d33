/** The stateless half: items, schema, auth and every JSON endpoint. Runs on Lambda or node-server. */
import type { Hono } from 'hono';
import type { Services } from '../core/services.ts';
import { createBaseApp } from './http/base-app.ts';
import type { AppEnv } from './http/env.ts';
import { mountLazyFunctionRoutes } from './routes/lazy.ts';
import type { ExtensionHost } from '../core/extensions/host.ts';
import { mountExtensionEndpoints } from './http/extension-endpoints.ts';

export interface FunctionsAppOptions {
  /** Import every route group in the background at once (default, a long-running server); false: each group on the
   * first request that reaches it (Lambda: a cold start loads only what its first request needs). */
  preloadRoutes?: boolean;
}

/** `extensions`: the host loaded at boot (core/extensions/host.ts); its endpoints are mounted after the built-in
 * routes, and its `app.before` / `app.after` init hooks see the app. */
export function createFunctionsApp(services: Services, extensions?: ExtensionHost, opts: FunctionsAppOptions = {}): Hono<AppEnv> {
  const app = createBaseApp(services);
  extensions?.fireInit('app.before', { app });
  mountLazyFunctionRoutes(app, { preload: opts.preloadRoutes ?? true });
  if (extensions) mountExtensionEndpoints(app, extensions);
  extensions?.fireInit('app.after', { app });
  return app;
}
