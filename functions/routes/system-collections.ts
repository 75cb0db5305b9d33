/** /notifications, /comments, /translations, /shares, /presets (SPEC.md > System collection CRUD) and the
 * read-only /activity and /revisions: Directus' shapes (writes answer with the written records, or 204 when
 * the caller may not read them back), permissions applied to every caller. */
import type { Context, Hono } from 'hono';
import { SYSTEM_COLLECTIONS, type SystemCollection } from '../../core/system/collections.ts';
import { systemService } from '../../core/system/service.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { cachedRequestQuery, queryOf } from '../http/query-string.ts';
import { batchShape, body, bodyObject } from './items-write.ts';

async function serviceOf(c: Context<AppEnv>, def: SystemCollection) {
  const services = c.get('services');
  const ctx = await serviceContext(c);
  return { ctx, service: systemService(ctx, def, async () => { await services.schema.invalidate(); }) };
}

function written(c: Context<AppEnv>, text: string | null): Response {
  return text === null ? c.body(null, 204) : jsonText(c, `{"data":${text}}`);
}

export function mountSystemCollection(app: Hono<AppEnv>, def: SystemCollection): void {
  const base = `/${def.path}`;
  app.get(base, async (c) => {
    const { service } = await serviceOf(c, def);
    return jsonText(c, await service.list(cachedRequestQuery(c)));
  });
  app.get(`${base}/:id`, async (c) => {
    const { service } = await serviceOf(c, def);
    return jsonText(c, await service.one(c.req.param('id'), cachedRequestQuery(c)));
  });
  if (def.readOnly) return;

  app.post(base, async (c) => {
    const { service } = await serviceOf(c, def);
    const payload = await body(c);
    const keys = await service.create(Array.isArray(payload) ? payload : bodyObject(payload));
    return written(c, await service.records(keys, cachedRequestQuery(c)));
  });
  app.patch(base, async (c) => {
    const { ctx, service } = await serviceOf(c, def);
    const payload = await body(c);
    let keys;
    if (Array.isArray(payload)) keys = await service.updateMany({ batch: payload });
    else {
      const batch = bodyObject(payload);
      keys = batchShape(batch, true) === 'keys'
        ? await service.updateMany({ keys: batch.keys, data: batch.data })
        : await service.updateMany({ query: queryOf(ctx.config, batch.query), data: batch.data });
    }
    return written(c, await service.records(keys, cachedRequestQuery(c)));
  });
  app.patch(`${base}/:id`, async (c) => {
    const { service } = await serviceOf(c, def);
    const key = await service.updateOne(c.req.param('id'), bodyObject(await body(c)));
    return written(c, await service.records(key, cachedRequestQuery(c)));
  });
  app.delete(base, async (c) => {
    const { ctx, service } = await serviceOf(c, def);
    const payload = await body(c);
    if (Array.isArray(payload)) await service.deleteMany({ keys: payload });
    else {
      const batch = bodyObject(payload);
      if (batchShape(batch, false) === 'keys') await service.deleteMany({ keys: batch.keys });
      else await service.deleteMany({ query: queryOf(ctx.config, batch.query) });
    }
    return c.body(null, 204);
  });
  app.delete(`${base}/:id`, async (c) => {
    const { service } = await serviceOf(c, def);
    await service.deleteOne(c.req.param('id'));
    return c.body(null, 204);
  });
}

export function mountSystemCollectionRoutes(app: Hono<AppEnv>): void {
  for (const def of SYSTEM_COLLECTIONS) if (!def.readOnly) mountSystemCollection(app, def);
}
