import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/template.ts';

let t: TestApp;
let adminId: string;

const anon = { token: null } as const;
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const login = async (mode?: string) => t.req('POST', '/auth/login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, ...(mode ? { mode } : {}) }, anon);
const refresh = (body: unknown, headers: Record<string, string> = {}) => t.req('POST', '/auth/refresh', body, { token: null, headers });
const logout = (body: unknown, headers: Record<string, string> = {}) => t.req('POST', '/auth/logout', body, { token: null, headers });
const cookieOf = (res: { headers: Headers }, name: string) => new RegExp(`${name}=([^;]*);`).exec(res.headers.get('set-cookie') ?? '')?.[1];
const error = (c: string, message: string) => ({ errors: [{ message, extensions: { code: c } }] });

beforeAll(async () => {
  t = await createTestApp();
  [{ id: adminId }] = await run<{ id: string }>(t.services.database.db, 'select id from svc_users where email = $1', [ADMIN_EMAIL]);
});
afterAll(async () => { await t.close(); });

describe('POST /auth/refresh', () => {
  it('rotates the refresh token (json mode): new tokens, the old row points at its successor', async () => {
    const { body: { data: first } } = await login();
    const res = await refresh({ refresh_token: first.refresh_token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['access_token', 'expires', 'refresh_token']);
    expect(res.body.data.expires).toBe(15 * 60 * 1000);
    expect(res.body.data.refresh_token).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(res.body.data.refresh_token).not.toBe(first.refresh_token);
    const me = await t.req('GET', '/auth/me', undefined, { token: res.body.data.access_token });
    expect(me.body.data.id).toBe(adminId);
    const [old] = await run<{ next_token: string }>(t.services.database.db, 'select next_token from svc_sessions where token = $1', [first.refresh_token]);
    expect(old.next_token).toBe(res.body.data.refresh_token);
    // Within the grace window a second refresh with the old token (another tab) gets the same successor.
    const again = await refresh({ refresh_token: first.refresh_token });
    expect(again.status).toBe(200);
    expect(again.body.data.refresh_token).toBe(res.body.data.refresh_token);
    // The successor refreshes in turn.
    expect((await refresh({ refresh_token: res.body.data.refresh_token })).status).toBe(200);
  });

  it('refuses the old token once the grace window is over: 401 TOKEN_REVOKED', async () => {
    const { body: { data: first } } = await login();
    const rotated = await refresh({ refresh_token: first.refresh_token });
    expect(rotated.status).toBe(200);
    // Simulates the 10 s grace window passing.
    await run(t.services.database.db, "update svc_sessions set expires = now() - interval '1 second' where token = $1", [first.refresh_token]);
    const res = await refresh({ refresh_token: first.refresh_token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(error('TOKEN_REVOKED', 'Token revoked.'));
  });

  it('cookie mode: reads the refresh cookie, sets the new one, keeps the refresh token out of the body', async () => {
    const res0 = await login('cookie');
    const token = cookieOf(res0, 'svc_refresh_token')!;
    const res = await refresh({ mode: 'cookie' }, { cookie: `svc_refresh_token=${token}` });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['access_token', 'expires']);
    const next = cookieOf(res, 'svc_refresh_token')!;
    expect(next).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(next).not.toBe(token);
    // Without a body the mode defaults to cookie (Directus).
    const implicit = await refresh(undefined, { cookie: `svc_refresh_token=${next}` });
    expect(implicit.status).toBe(200);
    expect(Object.keys(implicit.body.data).sort()).toEqual(['access_token', 'expires']);
  });

  it('session mode: the session cookie names the session; the new cookie is bound to the successor', async () => {
    const res0 = await login('session');
    const cookie = cookieOf(res0, 'svc_session_token')!;
    const res = await refresh({ mode: 'session' }, { cookie: `svc_session_token=${cookie}` });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['expires']);
    const next = cookieOf(res, 'svc_session_token')!;
    const claims = JSON.parse(Buffer.from(next.split('.')[1], 'base64url').toString());
    const oldClaims = JSON.parse(Buffer.from(cookie.split('.')[1], 'base64url').toString());
    expect(claims.session).not.toBe(oldClaims.session);
    const me = await t.req('GET', '/auth/me', undefined, { token: null, headers: { cookie: `svc_session_token=${next}` } });
    expect(me.body.data.id).toBe(adminId);
  });

  it('answers unknown tokens 401 INVALID_CREDENTIALS, expired ones TOKEN_EXPIRED, a missing one 400', async () => {
    const unknown = await refresh({ refresh_token: 'x'.repeat(64) });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(error('INVALID_CREDENTIALS', 'Invalid user credentials.'));
    const { body: { data } } = await login();
    await run(t.services.database.db, "update svc_sessions set expires = now() - interval '1 minute' where token = $1", [data.refresh_token]);
    const expired = await refresh({ refresh_token: data.refresh_token });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual(error('TOKEN_EXPIRED', 'Token expired.'));
    const missing = await refresh({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(error('INVALID_PAYLOAD', 'The refresh token is required in either the payload or cookie'));
    for (const body of [{ refresh_token: 42 }, { refresh_token: data.refresh_token, mode: 'jwt' }, [1]]) {
      const bad = await refresh(body);
      expect({ status: bad.status, code: code(bad) }).toEqual({ status: 400, code: 'INVALID_PAYLOAD' });
    }
  });

  it('refuses sessions of a suspended user (403 USER_SUSPENDED) and drops the session', async () => {
    const id = crypto.randomUUID();
    const { hashPassword } = await import('../../core/auth/passwords.ts');
    await run(t.services.database.db, "insert into svc_users (id, email, password, status) values ($1, $2, $3, 'active')",
      [id, `s-${id.slice(0, 8)}@example.com`, await hashPassword('pw-123456')]);
    const res0 = await t.req('POST', '/auth/login', { email: `s-${id.slice(0, 8)}@example.com`, password: 'pw-123456' }, anon);
    expect(res0.status).toBe(200);
    await run(t.services.database.db, "update svc_users set status = 'suspended' where id = $1", [id]);
    await t.services.schema.invalidate();
    const res = await refresh({ refresh_token: res0.body.data.refresh_token });
    expect(res.status).toBe(403);
    expect(code(res)).toBe('USER_SUSPENDED');
    expect(await run(t.services.database.db, 'select 1 from svc_sessions where token = $1', [res0.body.data.refresh_token])).toEqual([]);
  });
});

describe('POST /auth/logout', () => {
  it('deletes the session (204), records logout, and the refresh token is then 401 TOKEN_REVOKED', async () => {
    const { body: { data } } = await login();
    const res = await logout({ refresh_token: data.refresh_token }, { 'user-agent': 'logout-agent' });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(await run(t.services.database.db, 'select 1 from svc_sessions where token = $1', [data.refresh_token])).toEqual([]);
    const [activity] = await run<Record<string, unknown>>(t.services.database.db,
      "select action, \"user\", collection, item from svc_activity where action = 'logout' and user_agent = 'logout-agent'");
    expect(activity).toEqual({ action: 'logout', user: adminId, collection: 'svc_users', item: adminId });
    const again = await refresh({ refresh_token: data.refresh_token });
    expect(again.status).toBe(401);
    expect(again.body).toEqual(error('TOKEN_REVOKED', 'Token revoked.'));
    // Presented as a Bearer credential too.
    const bearer = await t.req('GET', '/auth/me', undefined, { token: data.refresh_token });
    expect(bearer.status).toBe(401);
    expect(bearer.body).toEqual(error('TOKEN_REVOKED', 'Token revoked.'));
  });

  it('session mode: logging out revokes the session cookie (401 TOKEN_REVOKED) and clears it', async () => {
    const res0 = await login('session');
    const cookie = cookieOf(res0, 'svc_session_token')!;
    const res = await logout({ mode: 'session' }, { cookie: `svc_session_token=${cookie}` });
    expect(res.status).toBe(204);
    expect(res.headers.get('set-cookie')).toMatch(/svc_session_token=;.*Max-Age=0/);
    const me = await t.req('GET', '/auth/me', undefined, { token: null, headers: { cookie: `svc_session_token=${cookie}` } });
    expect(me.status).toBe(401);
    expect(me.body).toEqual(error('TOKEN_REVOKED', 'Token revoked.'));
    const bearer = await t.req('GET', '/auth/me', undefined, { token: cookie });
    expect(code(bearer)).toBe('TOKEN_REVOKED');
  });

  it('cookie mode: the refresh cookie is read, the session deleted and the cookie cleared', async () => {
    const res0 = await login('cookie');
    const token = cookieOf(res0, 'svc_refresh_token')!;
    const res = await logout(undefined, { cookie: `svc_refresh_token=${token}` });
    expect(res.status).toBe(204);
    expect(res.headers.get('set-cookie')).toMatch(/svc_refresh_token=;.*Max-Age=0/);
    expect(code(await refresh(undefined, { cookie: `svc_refresh_token=${token}` }))).toBe('TOKEN_REVOKED');
  });

  it('passes silently for an unknown token (as Directus) and needs one (400)', async () => {
    expect((await logout({ refresh_token: 'y'.repeat(64) })).status).toBe(204);
    const res = await logout({});
    expect(res.status).toBe(400);
    expect(code(res)).toBe('INVALID_PAYLOAD');
  });
});

describe('refresh token as a Bearer credential', () => {
  it('authenticates as the session user while the session lives', async () => {
    const { body: { data } } = await login();
    const me = await t.req('GET', '/auth/me', undefined, { token: data.refresh_token });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(adminId);
    await run(t.services.database.db, "update svc_sessions set expires = now() - interval '1 minute' where token = $1", [data.refresh_token]);
    const expired = await t.req('GET', '/auth/me', undefined, { token: data.refresh_token });
    expect(expired.status).toBe(401);
    expect(code(expired)).toBe('INVALID_TOKEN');
  });

  it('answers a token matching nothing with 401 INVALID_TOKEN', async () => {
    const res = await t.req('GET', '/auth/me', undefined, { token: 'z'.repeat(64) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(error('INVALID_TOKEN', 'Invalid token.'));
  });
});
