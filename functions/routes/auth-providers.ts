/** /system/auth-providers (admin only): runtime sign-on providers (core/auth/sso/providers.ts). */
import type { Hono } from 'hono';
import {
  createAuthProvider, deleteAuthProvider, listAuthProviders, readAuthProvider, updateAuthProvider,
} from '../../core/auth/sso/providers.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

export function mountAuthProviderRoutes(app: Hono<AppEnv>): void {
  const base = '/system/auth-providers';
  app.get(base, async (c) => c.json({ data: await listAuthProviders(await serviceContext(c)) }));
  app.get(`${base}/:name`, async (c) => c.json({ data: await readAuthProvider(await serviceContext(c), c.req.param('name')) }));
  app.post(base, async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await createAuthProvider(c.get('services'), ctx, await readJson(c)) }, 201);
  });
  app.patch(`${base}/:id`, async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await updateAuthProvider(c.get('services'), ctx, c.req.param('id'), await readJson(c)) });
  });
  app.delete(`${base}/:id`, async (c) => {
    await deleteAuthProvider(c.get('services'), await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
