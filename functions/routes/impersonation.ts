/** POST /auth/impersonate `{user}` -> `{data: {access_token, expires}}`; POST /auth/impersonate/stop -> 204. */
import type { Hono } from 'hono';
import { startImpersonation, stopImpersonation } from '../../core/auth/impersonation.ts';
import { bearerToken } from '../http/authenticate.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

export function mountImpersonationRoutes(app: Hono<AppEnv>): void {
  app.post('/auth/impersonate', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await startImpersonation(c.get('services'), ctx, await readJson(c)) });
  });

  app.post('/auth/impersonate/stop', async (c) => {
    const token = bearerToken(c.req.header('authorization')) || c.req.query('access_token') || null;
    await stopImpersonation(c.get('services'), await serviceContext(c), token);
    return c.body(null, 204);
  });
}
