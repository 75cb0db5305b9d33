/** The container's route groups (./groups.ts) for an app that imports them when first needed
 * (functions/http/lazy-routes.ts), registered from the same generated manifest as the functions' groups
 * (functions/routes/manifest.ts). `npm start` uses them: a long-running process then holds only the groups (and their
 * libraries: @tus/server and its S3 store, the export/import streams, sharp) that its requests have reached. */
import type { Hono } from 'hono';
import type { AppEnv } from '../../functions/http/env.ts';
import { mountLazyRoutes, type LazyRoutes } from '../../functions/http/lazy-routes.ts';
import { CONTAINER_ROUTE_MANIFEST } from '../../functions/routes/manifest.ts';
import { CONTAINER_ROUTE_GROUPS } from './groups.ts';

export function mountLazyContainerRoutes(app: Hono<AppEnv>, opts: { preload?: boolean } = {}): LazyRoutes {
  return mountLazyRoutes(app, CONTAINER_ROUTE_GROUPS, CONTAINER_ROUTE_MANIFEST, opts);
}
