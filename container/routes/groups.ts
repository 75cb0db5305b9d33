/** The route groups of the container half, in mount order: multipart uploads, resumable uploads (tus), assets, and
 * import/export (long streamed bodies, beyond a Lambda's 6 MB and 15 minutes). The one list the eager mount
 * (../routes.ts), the lazy mount (./lazy.ts) and the route manifest (functions/routes/manifest.ts, written by
 * `npx tsx scripts/route-manifest.ts`) are derived from; the functions half's OpenAPI document reads these routes from
 * the manifest. Each record imports its module only when loaded. */
import type { RouteGroup } from '../../functions/http/lazy-routes.ts';

export const CONTAINER_ROUTE_GROUPS: readonly RouteGroup[] = [
  { name: 'uploads', load: async () => (await import('./uploads.ts')).mountUploadRoutes },
  { name: 'tus', load: async () => (await import('../tus.ts')).mountTusRoutes },
  { name: 'assets', load: async () => (await import('../assets.ts')).mountAssetRoutes },
  { name: 'transfer', load: async () => (await import('./transfer.ts')).mountTransferRoutes },
  { name: 'realtime', load: async () => (await import('./realtime.ts')).mountRealtimeRoutes },
];
