/** Every JSON endpoint the functions half serves. */
import type { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { mountServerRoutes } from './server.ts';
import { mountItemReadRoutes } from './items.ts';
import { mountAuthRoutes } from './auth.ts';

export function mountFunctionRoutes(app: Hono<AppEnv>): void {
  mountServerRoutes(app);
  mountItemReadRoutes(app);
  mountAuthRoutes(app);
}
