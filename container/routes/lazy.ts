/** The container's route groups of ../routes.ts for an app that imports them when first needed
 * (functions/http/lazy-routes.ts), registered from the same generated manifest as the functions' groups
 * (functions/routes/manifest.ts). `npm start` uses them: a long-running process then holds only the groups (and their
 * libraries: @tus/server and its S3 store, the export/import streams, sharp) that its requests have reached. */
import type { Hono } from 'hono';
import type { AppEnv } from '../../functions/http/env.ts';
import { mountLazyRoutes, type LazyRoutes, type RouteGroup } from '../../functions/http/lazy-routes.ts';
import { ROUTE_MANIFEST } from '../../functions/routes/manifest.ts';

export const CONTAINER_ROUTE_GROUPS: readonly RouteGroup[] = [
  { name: 'uploads', load: async () => (await import('./uploads.ts')).mountUploadRoutes },
  { name: 'tus', load: async () => (await import('../tus.ts')).mountTusRoutes },
  { name: 'assets', load: async () => (await import('../assets.ts')).mountAssetRoutes },
  { name: 'transfer', load: async () => (await import('./transfer.ts')).mountTransferRoutes },
];

export function mountLazyContainerRoutes(app: Hono<AppEnv>, opts: { preload?: boolean } = {}): LazyRoutes {
  return mountLazyRoutes(app, CONTAINER_ROUTE_GROUPS, ROUTE_MANIFEST, opts);
}
