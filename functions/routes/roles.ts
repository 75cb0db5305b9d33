/** /roles: Directus' roles endpoints (writes admin-only; reads under permissions). */
import type { Context, Hono } from 'hono';
import { createRole, deleteRole, listRoles, readRole, updateRole } from '../../core/access/roles.ts';
import { parseQuery } from '../../core/query/parse.ts';
import type { Query } from '../../core/query/types.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { parseQueryString } from '../http/query-string.ts';

/** The standard query parameters of a GET (shared by the access-management routes). */
export function requestQuery(c: Context<AppEnv>): Query {
  const config = c.get('services').config;
  return parseQuery(parseQueryString(c), { maxDepth: config.querystringMaxParseDepth, maxLimit: config.queryLimitMax });
}

export function mountRoleRoutes(app: Hono<AppEnv>): void {
  app.get('/roles', async (c) => c.json(await listRoles(await serviceContext(c), requestQuery(c))));

  app.get('/roles/:id', async (c) => c.json({ data: await readRole(await serviceContext(c), c.req.param('id'), requestQuery(c)) }));

  app.post('/roles', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await createRole(c.get('services'), ctx, await readJson(c)) });
  });

  app.patch('/roles/:id', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await updateRole(c.get('services'), ctx, c.req.param('id'), await readJson(c)) });
  });

  app.delete('/roles/:id', async (c) => {
    await deleteRole(c.get('services'), await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
