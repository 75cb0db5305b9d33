/** Item reads: list, one, singleton and POST /search. */
import type { Hono } from 'hono';
import { readItem, readItems, readSingleton } from '../../core/items/read.ts';
import { parseQuery } from '../../core/query/parse.ts';
import { InvalidQueryError } from '../../core/errors.ts';
import { readJson } from '../http/body.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { parseQueryString } from '../http/query-string.ts';

export function mountItemReadRoutes(app: Hono<AppEnv>): void {
  const limitsOf = (config: { querystringMaxParseDepth: number; queryLimitMax: number }) =>
    ({ maxDepth: config.querystringMaxParseDepth, maxLimit: config.queryLimitMax });

  app.get('/items/:collection', async (c) => {
    const ctx = await serviceContext(c);
    const collection = c.req.param('collection');
    const query = parseQuery(parseQueryString(c), limitsOf(ctx.config));
    if (ctx.schema.collections[collection]?.singleton) return jsonText(c, await readSingleton(ctx, collection, query));
    return jsonText(c, await readItems(ctx, collection, query));
  });

  app.get('/items/:collection/:pk', async (c) => {
    const ctx = await serviceContext(c);
    const query = parseQuery(parseQueryString(c), limitsOf(ctx.config));
    return jsonText(c, await readItem(ctx, c.req.param('collection'), c.req.param('pk'), query));
  });

  app.post('/items/:collection/search', async (c) => {
    const ctx = await serviceContext(c);
    const body = await readJson(c);
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw new InvalidQueryError('The search body must be a query object.');
    }
    const raw = (body ?? {}) as Record<string, unknown>;
    const query = parseQuery('query' in raw && typeof raw.query === 'object' ? raw.query as Record<string, unknown> : raw, limitsOf(ctx.config));
    return jsonText(c, await readItems(ctx, c.req.param('collection'), query));
  });
}
