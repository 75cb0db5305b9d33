/** /system/storage-providers (Admin) and GET /files/storage-locations. */
import type { Hono } from 'hono';
import {
  createProvider, deleteProvider, listProviders, readProvider, storageLocations, updateProvider,
} from '../../core/storage/providers.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

export function mountStorageProviderRoutes(app: Hono<AppEnv>): void {
  const base = '/system/storage-providers';
  app.get(base, async (c) => c.json({ data: await listProviders(await serviceContext(c)) }));
  app.get(`${base}/:name`, async (c) => c.json({ data: await readProvider(await serviceContext(c), c.req.param('name')) }));
  app.post(base, async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await createProvider(c.get('services'), ctx, await readJson(c)) }, 201);
  });
  app.patch(`${base}/:id`, async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await updateProvider(c.get('services'), ctx, c.req.param('id'), await readJson(c)) });
  });
  app.delete(`${base}/:id`, async (c) => {
    await deleteProvider(c.get('services'), await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });

  app.get('/files/storage-locations', async (c) => c.json({ data: await storageLocations(c.get('services'), await serviceContext(c)) }));
}
