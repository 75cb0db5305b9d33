/** POST /shares/auth (Directus): the share's tokens in the login response shape of the requested mode. */
import type { Hono } from 'hono';
import { parseShareLoginInput, shareLogin } from '../../core/shares/auth.ts';
import { readJsonObject } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';
import { tokenResponseData } from './auth.ts';

export function mountShareAuthRoutes(app: Hono<AppEnv>): void {
  app.post('/shares/auth', async (c) => {
    const input = parseShareLoginInput(await readJsonObject(c));
    const { ip, userAgent, origin } = c.get('accountability');
    const tokens = await shareLogin(c.get('services'), input, { ip, userAgent, origin });
    return c.json({ data: tokenResponseData(c, tokens, input.mode) });
  });
}
