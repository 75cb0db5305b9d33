/** POST, PATCH and DELETE on /items/{collection}[/{pk}]: body shapes in, primary keys out (Directus' shapes). */
import type { Context, Hono } from 'hono';
import { InvalidPayloadError } from '../../core/errors.ts';
import {
  createItem, createItems, deleteByQuery, deleteItem, deleteItems, updateBatch, updateByQuery, updateItem, updateItems, upsertSingleton,
} from '../../core/items/write/index.ts';
import { writableCollection } from '../../core/items/write/context.ts';
import { isPlainObject } from '../../core/items/write/payload.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { queryOf } from '../http/query-string.ts';

export async function body(c: Context<AppEnv>): Promise<unknown> {
  const value = await readJson(c);
  if (value === undefined || value === null) throw new InvalidPayloadError('Invalid payload. Payload in body is required.');
  return value;
}

export function bodyObject(value: unknown): Record<string, unknown> {
  if (!isPlainObject(value)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  return value;
}

/** Directus' validateBatch: exactly one of `keys` and `query`, plus `data` on update. */
export function batchShape(value: Record<string, unknown>, withData: boolean): 'keys' | 'query' {
  const allowed = withData ? ['keys', 'query', 'data'] : ['keys', 'query'];
  const extra = Object.keys(value).find((k) => !allowed.includes(k));
  if (extra) throw new InvalidPayloadError(`Invalid payload. "${extra}" is not allowed.`);
  const hasKeys = value.keys !== undefined;
  const hasQuery = value.query !== undefined;
  if (hasKeys === hasQuery) throw new InvalidPayloadError('Invalid payload. Exactly one of "keys" and "query" is required.');
  if (hasQuery && !isPlainObject(value.query)) throw new InvalidPayloadError('Invalid payload. "query" must be an object.');
  if (withData && !isPlainObject(value.data)) throw new InvalidPayloadError('Invalid payload. "data" is required and must be an object.');
  return hasKeys ? 'keys' : 'query';
}

export function mountItemsWriteRoutes(app: Hono<AppEnv>): void {
  app.post('/items/:collection', async (c) => {
    const ctx = await serviceContext(c);
    const collection = c.req.param('collection');
    writableCollection(ctx, collection);
    const payload = await body(c);
    if (Array.isArray(payload)) return c.json({ data: await createItems(ctx, collection, payload) });
    return c.json({ data: await createItem(ctx, collection, bodyObject(payload)) });
  });

  app.patch('/items/:collection', async (c) => {
    const ctx = await serviceContext(c);
    const collection = c.req.param('collection');
    const target = writableCollection(ctx, collection);
    const payload = await body(c);
    if (target.singleton) return c.json({ data: await upsertSingleton(ctx, collection, bodyObject(payload)) });
    if (Array.isArray(payload)) return c.json({ data: await updateBatch(ctx, collection, payload) });
    const batch = bodyObject(payload);
    if (batchShape(batch, true) === 'keys') return c.json({ data: await updateItems(ctx, collection, batch.keys, batch.data) });
    return c.json({ data: await updateByQuery(ctx, collection, queryOf(ctx.config, batch.query), batch.data) });
  });

  app.patch('/items/:collection/:pk', async (c) => {
    const ctx = await serviceContext(c);
    const collection = c.req.param('collection');
    writableCollection(ctx, collection);
    const payload = bodyObject(await body(c));
    return c.json({ data: await updateItem(ctx, collection, c.req.param('pk'), payload) });
  });

  app.delete('/items/:collection', async (c) => {
    const ctx = await serviceContext(c);
    const collection = c.req.param('collection');
    writableCollection(ctx, collection);
    const payload = await body(c);
    if (Array.isArray(payload)) await deleteItems(ctx, collection, payload);
    else {
      const batch = bodyObject(payload);
      if (batchShape(batch, false) === 'keys') await deleteItems(ctx, collection, batch.keys);
      else await deleteByQuery(ctx, collection, queryOf(ctx.config, batch.query));
    }
    return c.body(null, 204);
  });

  app.delete('/items/:collection/:pk', async (c) => {
    const ctx = await serviceContext(c);
    const collection = c.req.param('collection');
    writableCollection(ctx, collection);
    await deleteItem(ctx, collection, c.req.param('pk'));
    return c.body(null, 204);
  });
}
