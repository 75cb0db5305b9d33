/** The five standard routes of a record collection (list, read, create, update, delete) over a core
 * service, and the standard query parameters of a GET. */
import type { Context, Hono } from 'hono';
import type { ServiceContext } from '../../core/context.ts';
import type { Query } from '../../core/query/types.ts';
import type { Services } from '../../core/services.ts';
import { readJson } from './body.ts';
import { serviceContext } from './context.ts';
import type { AppEnv } from './env.ts';
import { requestQuery } from './query-string.ts';

export interface RecordService {
  /** The whole response body (`{data, meta?}`). */
  list(ctx: ServiceContext, query: Query): Promise<unknown>;
  read(ctx: ServiceContext, id: string, query: Query): Promise<unknown>;
  create(services: Services, ctx: ServiceContext, body: unknown): Promise<unknown>;
  update(services: Services, ctx: ServiceContext, id: string, body: unknown): Promise<unknown>;
  remove(services: Services, ctx: ServiceContext, id: string): Promise<void>;
}

export function mountRecordRoutes(app: Hono<AppEnv>, path: string, service: RecordService): void {
  app.get(path, async (c) => c.json(await service.list(await serviceContext(c), requestQuery(c)) as object));

  app.get(`${path}/:id`, async (c) => c.json({ data: await service.read(await serviceContext(c), c.req.param('id'), requestQuery(c)) }));

  app.post(path, async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await service.create(c.get('services'), ctx, await readJson(c)) });
  });

  app.patch(`${path}/:id`, async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await service.update(c.get('services'), ctx, c.req.param('id'), await readJson(c)) });
  });

  app.delete(`${path}/:id`, async (c) => {
    await service.remove(c.get('services'), await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
