/** Item reads: list, one, singleton and POST /search. */
import type { Context, Hono } from 'hono';
import { readItem, readItems, readSingleton, type QueryInput } from '../../core/items/read.ts';
import { InvalidQueryError } from '../../core/errors.ts';
import { previewItem } from '../../core/versions/preview.ts';
import { readJson } from '../http/body.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { cachedRequestQuery, queryOf } from '../http/query-string.ts';

export function mountItemReadRoutes(app: Hono<AppEnv>): void {
  /** The query of a preview: `version` is left out of the cache key, so every version of an item shares
   * the compiled statement of its plain read. */
  const previewInput = (c: Context<AppEnv>): QueryInput => {
    const url = c.req.url;
    const at = url.indexOf('?');
    return cachedRequestQuery(c, url.slice(at + 1).split('&').filter((p) => !p.startsWith('version=')).join('&'));
  };

  app.get('/items/:collection', async (c) => {
    const ctx = await serviceContext(c);
    const collection = c.req.param('collection');
    if (c.req.url.includes('version=') && c.req.query('version') !== undefined) {
      throw new InvalidQueryError('"version" is not supported on list reads; read one item with ?version=<uuid>.');
    }
    const input = cachedRequestQuery(c);
    if (ctx.schema.collections[collection]?.singleton) return jsonText(c, await readSingleton(ctx, collection, input));
    return jsonText(c, await readItems(ctx, collection, input));
  });

  app.get('/items/:collection/:pk', async (c) => {
    const ctx = await serviceContext(c);
    // Preview read (SPEC.md > Versions): the only extra work on the plain path is this substring test.
    if (c.req.url.includes('version=')) {
      const version = c.req.query('version');
      if (version !== undefined) {
        const body = await previewItem(ctx, c.req.param('collection'), c.req.param('pk'), version, previewInput(c));
        // Headers as a plain object (not c.header) keep @hono/node-server's fast response path.
        return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      }
    }
    return jsonText(c, await readItem(ctx, c.req.param('collection'), c.req.param('pk'), cachedRequestQuery(c)));
  });

  app.post('/items/:collection/search', async (c) => {
    const ctx = await serviceContext(c);
    const body = await readJson(c);
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw new InvalidQueryError('The search body must be a query object.');
    }
    const raw = (body ?? {}) as Record<string, unknown>;
    const query = queryOf(ctx.config, 'query' in raw && typeof raw.query === 'object' ? raw.query : raw);
    return jsonText(c, await readItems(ctx, c.req.param('collection'), query));
  });
}
