/** /access: the links of policies to roles and users. */
import type { Hono } from 'hono';
import { createAccess, deleteAccess, listAccess, readAccess, updateAccess } from '../../core/access/access-records.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { requestQuery } from './roles.ts';

export function mountAccessRoutes(app: Hono<AppEnv>): void {
  app.get('/access', async (c) => c.json(await listAccess(await serviceContext(c), requestQuery(c))));

  app.get('/access/:id', async (c) => c.json({ data: await readAccess(await serviceContext(c), c.req.param('id'), requestQuery(c)) }));

  app.post('/access', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await createAccess(c.get('services'), ctx, await readJson(c)) });
  });

  app.patch('/access/:id', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await updateAccess(c.get('services'), ctx, c.req.param('id'), await readJson(c)) });
  });

  app.delete('/access/:id', async (c) => {
    await deleteAccess(c.get('services'), await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
