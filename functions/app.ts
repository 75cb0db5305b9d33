/** The stateless half: items, schema, auth and every JSON endpoint. Runs on Lambda or node-server. */
import type { Hono } from 'hono';
import type { Services } from '../core/services.ts';
import { createBaseApp } from './http/base-app.ts';
import type { AppEnv } from './http/env.ts';
import { mountFunctionRoutes } from './routes/index.ts';

export function createFunctionsApp(services: Services): Hono<AppEnv> {
  const app = createBaseApp(services);
  mountFunctionRoutes(app);
  return app;
}
