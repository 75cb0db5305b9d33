/** /policies: writes admin-only; reads under permissions, each policy with its `permissions` nested. */
import type { Hono } from 'hono';
import { createPolicy, deletePolicy, listPolicies, readPolicy, updatePolicy } from '../../core/access/policies.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { requestQuery } from './roles.ts';

export function mountPolicyRoutes(app: Hono<AppEnv>): void {
  app.get('/policies', async (c) => c.json(await listPolicies(await serviceContext(c), requestQuery(c))));

  app.get('/policies/:id', async (c) => c.json({ data: await readPolicy(await serviceContext(c), c.req.param('id'), requestQuery(c)) }));

  app.post('/policies', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await createPolicy(c.get('services'), ctx, await readJson(c)) });
  });

  app.patch('/policies/:id', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await updatePolicy(c.get('services'), ctx, c.req.param('id'), await readJson(c)) });
  });

  app.delete('/policies/:id', async (c) => {
    await deletePolicy(c.get('services'), await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
