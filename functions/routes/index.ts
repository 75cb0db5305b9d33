/** Every JSON endpoint the functions half serves. */
import type { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { mountServerRoutes } from './server.ts';
import { mountCollectionRoutes } from './collections.ts';
import { mountFieldRoutes } from './fields.ts';
import { mountRelationRoutes } from './relations.ts';
import { mountItemReadRoutes } from './items.ts';
import { mountItemsWriteRoutes } from './items-write.ts';
import { mountAuthRoutes } from './auth.ts';

export function mountFunctionRoutes(app: Hono<AppEnv>): void {
  mountServerRoutes(app);
  mountCollectionRoutes(app);
  mountFieldRoutes(app);
  mountRelationRoutes(app);
  mountItemReadRoutes(app);
  mountItemsWriteRoutes(app);
  mountAuthRoutes(app);
}
