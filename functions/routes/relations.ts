/** /relations: M2O, O2M, M2M (through a junction) and A2O relations between collections. */
import type { Hono } from 'hono';
import { createRelation, deleteRelation, readRelation, readRelations, updateRelation } from '../../core/schema/ddl/index.ts';
import { readJsonObject } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';
import { schemaContext } from './schema-context.ts';

export function mountRelationRoutes(app: Hono<AppEnv>): void {
  app.get('/relations', async (c) => c.json({ data: await readRelations(schemaContext(c)) }));

  app.get('/relations/:collection', async (c) => c.json({ data: await readRelations(schemaContext(c), c.req.param('collection')) }));

  app.get('/relations/:collection/:field', async (c) => {
    return c.json({ data: await readRelation(schemaContext(c), c.req.param('collection'), c.req.param('field')) });
  });

  app.post('/relations', async (c) => {
    const ctx = schemaContext(c);
    const body = await readJsonObject(c);
    return c.json({ data: await createRelation(ctx, body) });
  });

  app.patch('/relations/:collection/:field', async (c) => {
    const ctx = schemaContext(c);
    const body = await readJsonObject(c);
    return c.json({ data: await updateRelation(ctx, c.req.param('collection'), c.req.param('field'), body) });
  });

  app.delete('/relations/:collection/:field', async (c) => {
    await deleteRelation(schemaContext(c), c.req.param('collection'), c.req.param('field'));
    return c.body(null, 204);
  });
}
