/** GET /server/specs/oas (SPEC.md > Server): the OpenAPI 3.0 document of the current schema, admin only
 * (non-admins and anonymous callers 403, as the other Admin routes). Built by core/openapi, cached per schema
 * overview; the operations documented are checked against this app's route table. */
import type { Hono } from 'hono';
import { ForbiddenError } from '../../core/errors.ts';
import { OpenApiCache } from '../../core/openapi/document.ts';
import { servedBy, type Served } from '../../core/openapi/served.ts';
import { projectTitle, SERVICE_VERSION } from '../../core/openapi/title.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

export function mountOpenApiRoutes(app: Hono<AppEnv>): void {
  const cache = new OpenApiCache();
  // Read on the first request, when every route of the app is registered.
  let routes: { served: Served; functionsOnly: boolean } | null = null;

  app.get('/server/specs/oas', async (c) => {
    const ctx = await serviceContext(c);
    if (!ctx.accountability.admin) throw new ForbiddenError();
    if (!routes) {
      const served = servedBy(app.routes);
      routes = { served, functionsOnly: !served('GET', '/assets/{id}') };
    }
    const { config } = ctx;
    const title = await projectTitle(ctx.db, config.projectName);
    return jsonText(c, cache.text({ schema: ctx.schema, title, version: SERVICE_VERSION, publicUrl: config.publicUrl, ...routes }));
  });
}
