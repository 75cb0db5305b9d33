/** /fields: the fields of every collection; adding, changing and dropping columns at runtime. */
import type { Hono } from 'hono';
import { createField, deleteField, readAllFields, readCollectionFields, readOneField, updateField, updateFields } from '../../core/schema/ddl/index.ts';
import { readJson, readJsonObject } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';
import { schemaContext } from './schema-context.ts';

export function mountFieldRoutes(app: Hono<AppEnv>): void {
  app.get('/fields', async (c) => c.json({ data: await readAllFields(schemaContext(c)) }));

  app.get('/fields/:collection', async (c) => c.json({ data: await readCollectionFields(schemaContext(c), c.req.param('collection')) }));

  app.get('/fields/:collection/:field', async (c) => {
    return c.json({ data: await readOneField(schemaContext(c), c.req.param('collection'), c.req.param('field')) });
  });

  app.post('/fields/:collection', async (c) => {
    const ctx = schemaContext(c);
    const body = await readJsonObject(c);
    return c.json({ data: await createField(ctx, c.req.param('collection'), body) });
  });

  // Batch: an array of {field, type?, meta?, schema?}, all or nothing.
  app.patch('/fields/:collection', async (c) => {
    const ctx = schemaContext(c);
    const body = await readJson(c);
    return c.json({ data: await updateFields(ctx, c.req.param('collection'), body) });
  });

  app.patch('/fields/:collection/:field', async (c) => {
    const ctx = schemaContext(c);
    const body = await readJsonObject(c);
    return c.json({ data: await updateField(ctx, c.req.param('collection'), c.req.param('field'), body) });
  });

  app.delete('/fields/:collection/:field', async (c) => {
    await deleteField(schemaContext(c), c.req.param('collection'), c.req.param('field'));
    return c.body(null, 204);
  });
}
