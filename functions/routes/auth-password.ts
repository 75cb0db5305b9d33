/** POST /auth/password/request and /auth/password/reset (Directus' password reset). */
import type { Hono } from 'hono';
import { requestPasswordReset, resetPassword } from '../../core/users/password-reset.ts';
import { readJsonObject } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';

export function mountPasswordResetRoutes(app: Hono<AppEnv>): void {
  app.post('/auth/password/request', async (c) => {
    await requestPasswordReset(c.get('services'), await readJsonObject(c));
    return c.body(null, 204);
  });

  app.post('/auth/password/reset', async (c) => {
    await resetPassword(c.get('services'), await readJsonObject(c));
    return c.body(null, 204);
  });
}
