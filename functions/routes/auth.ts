/** POST /auth/login, /auth/refresh, /auth/logout and GET /auth/me, in Directus' wire shapes. */
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { authCookieOptions, REFRESH_TOKEN_COOKIE, SESSION_TOKEN_COOKIE } from '../../core/auth/cookies.ts';
import type { IssuedTokens } from '../../core/auth/issue.ts';
import { login, parseLoginInput, type LoginMode } from '../../core/auth/login.ts';
import { readCurrentUser, selectFields } from '../../core/auth/me.ts';
import { logout, parseRefreshBody, refresh } from '../../core/auth/refresh.ts';
import { sessionClaim } from '../../core/auth/tokens.ts';
import { readJsonObject } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';
import { parseQueryString } from '../http/query-string.ts';

/** The `data` of a token response per mode (Directus): json -> access + refresh token; cookie -> the refresh
 * token goes into its cookie; session -> the access token goes into the session cookie. */
export function tokenResponseData(c: Context<AppEnv>, tokens: IssuedTokens, mode: LoginMode): Record<string, unknown> {
  const { config } = c.get('services');
  if (mode === 'cookie') {
    setCookie(c, REFRESH_TOKEN_COOKIE, tokens.refreshToken, authCookieOptions(config, config.refreshTokenTtlMs));
    return { access_token: tokens.accessToken, expires: tokens.expires };
  }
  if (mode === 'session') {
    setCookie(c, SESSION_TOKEN_COOKIE, tokens.accessToken, authCookieOptions(config, tokens.expires));
    return { expires: tokens.expires };
  }
  return { access_token: tokens.accessToken, expires: tokens.expires, refresh_token: tokens.refreshToken };
}

/** The refresh token of a refresh/logout request, from where its mode keeps it (Directus' getCurrentRefreshToken):
 * the body, the refresh cookie, or the session named by the session cookie's token. */
async function currentRefreshToken(c: Context<AppEnv>, bodyToken: string | null, mode: LoginMode): Promise<string | null> {
  if (mode === 'json') return bodyToken;
  if (mode === 'cookie') return getCookie(c, REFRESH_TOKEN_COOKIE) || null;
  const session = getCookie(c, SESSION_TOKEN_COOKIE);
  return session ? sessionClaim(session, c.get('services').config.secret) : null;
}

function requestMeta(c: Context<AppEnv>) {
  const { ip, userAgent, origin } = c.get('accountability');
  return { ip, userAgent, origin };
}

export function mountAuthRoutes(app: Hono<AppEnv>): void {
  app.post('/auth/login', async (c) => {
    const input = parseLoginInput(await readJsonObject(c));
    const result = await login(c.get('services'), input, requestMeta(c));
    const data = tokenResponseData(c, result, input.mode);
    // Not in Directus' response: flags the client must act on (SPEC.md > Authentication 5).
    if (result.requirePasswordChange) data.require_password_change = true;
    if (result.tfaSetupRequired) data.tfa_setup_required = true;
    return c.json({ data });
  });

  app.post('/auth/refresh', async (c) => {
    const body = parseRefreshBody(await readJsonObject(c));
    const token = await currentRefreshToken(c, body.refreshToken, body.mode);
    const tokens = await refresh(c.get('services'), { refreshToken: token, mode: body.mode }, requestMeta(c));
    return c.json({ data: tokenResponseData(c, tokens, body.mode) });
  });

  app.post('/auth/logout', async (c) => {
    const body = parseRefreshBody(await readJsonObject(c));
    const token = await currentRefreshToken(c, body.refreshToken, body.mode);
    await logout(c.get('services'), token, requestMeta(c));
    const { config } = c.get('services');
    const cookie = { path: '/', httpOnly: true, secure: config.publicUrl.startsWith('https:'), sameSite: 'Lax' } as const;
    if (getCookie(c, REFRESH_TOKEN_COOKIE)) deleteCookie(c, REFRESH_TOKEN_COOKIE, cookie);
    if (getCookie(c, SESSION_TOKEN_COOKIE)) deleteCookie(c, SESSION_TOKEN_COOKIE, cookie);
    return c.body(null, 204);
  });

  app.get('/auth/me', async (c) => {
    const fields = selectFields(parseQueryString(c).fields);
    return c.json({ data: await readCurrentUser(c.get('services').database.db, c.get('accountability'), fields) });
  });
}
