/** GET /server/specs/oas (SPEC.md > Server): the OpenAPI 3.0 document of the current schema, admin only
 * (non-admins and anonymous callers 403, as the other Admin routes). Built by core/openapi, cached per schema
 * overview; the operations documented are checked against the routes of the service: this app's route table plus the
 * container half's routes from the route manifest (the Lambda functions half serves none of them, the container
 * behind the same router does). */
import type { Hono } from 'hono';
import { ForbiddenError } from '../../core/errors.ts';
import { OpenApiCache } from '../../core/openapi/document.ts';
import { servedBy, type RouteEntry, type Served } from '../../core/openapi/served.ts';
import { projectTitle, SERVICE_VERSION } from '../../core/openapi/title.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { CONTAINER_ROUTE_MANIFEST } from './manifest.ts';

/** `routes` (an app's route table) with the container half's routes added. */
export function serviceRoutes(routes: readonly RouteEntry[]): RouteEntry[] {
  const container = Object.values(CONTAINER_ROUTE_MANIFEST).flat().map(([method, path]) => ({ method, path }));
  return [...routes, ...container];
}

export function mountOpenApiRoutes(app: Hono<AppEnv>): void {
  const cache = new OpenApiCache();
  // Read on the first request, when every route of the app is registered.
  let served: Served | null = null;

  app.get('/server/specs/oas', async (c) => {
    const ctx = await serviceContext(c);
    if (!ctx.accountability.admin) throw new ForbiddenError();
    served ??= servedBy(serviceRoutes(app.routes));
    const { config } = ctx;
    const title = await projectTitle(ctx.db, config.projectName);
    return jsonText(c, cache.text({ schema: ctx.schema, title, version: SERVICE_VERSION, publicUrl: config.publicUrl, served }));
  });
}
