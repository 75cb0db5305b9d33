/** POST /auth/login and GET /auth/me, in Directus' wire shapes. */
import type { Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import { authCookieOptions, REFRESH_TOKEN_COOKIE, SESSION_TOKEN_COOKIE } from '../../core/auth/cookies.ts';
import { login, parseLoginInput } from '../../core/auth/login.ts';
import { readCurrentUser, selectFields } from '../../core/auth/me.ts';
import { readJsonObject } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';
import { parseQueryString } from '../http/query-string.ts';

export function mountAuthRoutes(app: Hono<AppEnv>): void {
  app.post('/auth/login', async (c) => {
    const input = parseLoginInput(await readJsonObject(c));
    const { ip, userAgent, origin } = c.get('accountability');
    const services = c.get('services');
    const result = await login(services, input, { ip, userAgent, origin });
    const { config } = services;
    if (input.mode === 'cookie') {
      setCookie(c, REFRESH_TOKEN_COOKIE, result.refreshToken, authCookieOptions(config, config.refreshTokenTtlMs));
      return c.json({ data: { access_token: result.accessToken, expires: result.expires } });
    }
    if (input.mode === 'session') {
      setCookie(c, SESSION_TOKEN_COOKIE, result.accessToken, authCookieOptions(config, result.expires));
      return c.json({ data: { expires: result.expires } });
    }
    return c.json({ data: { access_token: result.accessToken, expires: result.expires, refresh_token: result.refreshToken } });
  });

  app.get('/auth/me', async (c) => {
    const fields = selectFields(parseQueryString(c).fields);
    return c.json({ data: await readCurrentUser(c.get('services').database.db, c.get('accountability'), fields) });
  });
}
