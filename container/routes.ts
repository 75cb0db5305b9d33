/** Routes served by the long-running container: multipart uploads, resumable uploads (tus) and assets. */
import type { Hono } from 'hono';
import type { AppEnv } from '../functions/http/env.ts';
import { mountUploadRoutes } from './routes/uploads.ts';
import { mountTusRoutes } from './tus.ts';
import { mountAssetRoutes } from './assets.ts';

export function mountContainerRoutes(app: Hono<AppEnv>): void {
  mountUploadRoutes(app);
  mountTusRoutes(app);
  mountAssetRoutes(app);
}
