/** /collections: runtime collections (tables or folders) and their metadata. */
import type { Hono } from 'hono';
import { createCollection, deleteCollection, readCollection, readCollections, updateCollection, updateCollections } from '../../core/schema/ddl/index.ts';
import { readJson, readJsonObject } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';
import { schemaContext } from './schema-context.ts';

export function mountCollectionRoutes(app: Hono<AppEnv>): void {
  app.get('/collections', async (c) => c.json({ data: await readCollections(schemaContext(c)) }));

  app.post('/collections', async (c) => {
    const ctx = schemaContext(c);
    const body = await readJsonObject(c);
    return c.json({ data: await createCollection(ctx, body) });
  });

  // Batch: an array of {collection, meta}, all or nothing.
  app.patch('/collections', async (c) => {
    const ctx = schemaContext(c);
    const body = await readJson(c);
    return c.json({ data: await updateCollections(ctx, body) });
  });

  app.get('/collections/:collection', async (c) => c.json({ data: await readCollection(schemaContext(c), c.req.param('collection')) }));

  app.patch('/collections/:collection', async (c) => {
    const ctx = schemaContext(c);
    const body = await readJsonObject(c);
    return c.json({ data: await updateCollection(ctx, c.req.param('collection'), body) });
  });

  app.delete('/collections/:collection', async (c) => {
    await deleteCollection(schemaContext(c), c.req.param('collection'));
    return c.body(null, 204);
  });
}
