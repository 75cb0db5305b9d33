/** Routes served by the long-running container: multipart uploads, resumable uploads (tus), assets, and
 * import/export (long streamed bodies, beyond a Lambda's 6 MB and 15 minutes). */
import type { Hono } from 'hono';
import type { AppEnv } from '../functions/http/env.ts';
import { mountUploadRoutes } from './routes/uploads.ts';
import { mountTusRoutes } from './tus.ts';
import { mountAssetRoutes } from './assets.ts';
import { mountTransferRoutes } from './routes/transfer.ts';

export function mountContainerRoutes(app: Hono<AppEnv>): void {
  mountUploadRoutes(app);
  mountTusRoutes(app);
  mountAssetRoutes(app);
  mountTransferRoutes(app);
}
