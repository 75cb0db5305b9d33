/** Issue 24 point 7: a password change or reset, a suspension, a role change and a two-factor reset end the
 * user's sessions (refresh tokens) and the access tokens signed before; a self-service password change keeps
 * the session that made it. */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecret } from 'otplib';
import { run } from '../../core/db/database.ts';
import { hashPassword } from '../../core/auth/passwords.ts';
import { signMailToken } from '../../core/users/tokens.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_EMAIL } from '../helpers/template.ts';

let t: TestApp;
const PASSWORD = 'old-password-1';
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => run<T>(t.services.database.db, text, params);

interface Session { access: string; refresh: string }

async function addUser(fields: { tfa_secret?: string } = {}) {
  const id = randomUUID();
  const email = `rv-${id.slice(0, 8)}@example.com`;
  await sql(`insert into svc_users (id, email, password, status, tfa_secret, tfa_enabled) values ($1, $2, $3, 'active', $4, false)`,
    [id, email, await hashPassword(PASSWORD), fields.tfa_secret ?? null]);
  return { id, email };
}

async function login(email: string, password = PASSWORD): Promise<Session> {
  const res = await t.req('POST', '/auth/login', { email, password }, { token: null });
  expect(res.status).toBe(200);
  return { access: res.body.data.access_token, refresh: res.body.data.refresh_token };
}

const me = (token: string) => t.req('GET', '/users/me?fields=id', undefined, { token });
const refresh = (token: string) => t.req('POST', '/auth/refresh', { refresh_token: token }, { token: null });

async function expectAlive(s: Session) {
  expect((await me(s.access)).status).toBe(200);
  const next = await refresh(s.refresh);
  expect(next.status).toBe(200);
  return { access: next.body.data.access_token as string, refresh: next.body.data.refresh_token as string };
}

async function expectRevoked(s: Session) {
  const access = await me(s.access);
  expect({ status: access.status, code: code(access) }).toEqual({ status: 401, code: 'TOKEN_REVOKED' });
  const next = await refresh(s.refresh);
  expect({ status: next.status, code: code(next) }).toEqual({ status: 401, code: 'TOKEN_REVOKED' });
}

/** The reset token the mail would carry (core/users/password-reset.ts: a digest of the current hash). */
async function resetToken(email: string): Promise<string> {
  const [{ password }] = await sql<{ password: string }>('select password from svc_users where email = $1', [email]);
  const hash = createHash('sha256').update(password).digest('base64url').slice(0, 22);
  return signMailToken({ email, scope: 'password-reset', hash }, t.services.config.secret, 60_000);
}

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMITER_ENABLED: 'false' } });
});
afterAll(async () => { await t.close(); });

describe('changes that end every session of the user', () => {
  const cases: { name: string; change: (u: { id: string; email: string }) => Promise<{ status: number }> }[] = [
    { name: 'an admin sets the password', change: (u) => t.req('PATCH', `/users/${u.id}`, { password: 'admin-chosen-1' }) },
    { name: 'a password reset', change: async (u) => t.req('POST', '/auth/password/reset', { token: await resetToken(u.email), password: 'reset-chosen-1' }, { token: null }) },
    { name: 'a suspension', change: (u) => t.req('PATCH', `/users/${u.id}`, { status: 'suspended' }) },
    { name: 'a suspension through PATCH /users {keys, data}', change: (u) => t.req('PATCH', '/users', { keys: [u.id], data: { status: 'suspended' } }) },
    { name: 'a suspension through PATCH /users {query, data}', change: (u) => t.req('PATCH', '/users', { query: { filter: { id: { _eq: u.id } } }, data: { status: 'suspended' } }) },
    {
      name: 'a role change',
      change: async (u) => {
        const role = randomUUID();
        await sql('insert into svc_roles (id, name) values ($1, $2)', [role, `rv-role-${role.slice(0, 8)}`]);
        return t.req('PATCH', `/users/${u.id}`, { role });
      },
    },
    { name: 'an admin two-factor reset', change: (u) => t.req('POST', `/users/${u.id}/tfa/disable`) },
  ];

  it.each(cases)('$name', async ({ change }) => {
    const u = await addUser({ tfa_secret: generateSecret() });
    const first = await login(u.email);
    const second = await login(u.email);
    // A rotated-away token (still in its grace period) is part of the session too.
    const rotated = await expectAlive(second);
    expect((await change(u)).status).toBeLessThan(300);
    // Reactivate where the change suspended: the old tokens must stay dead all the same.
    await sql("update svc_users set status = 'active' where id = $1", [u.id]);
    await t.services.schema.invalidate();
    await expectRevoked(first);
    await expectRevoked(rotated);
    await expectRevoked({ access: second.access, refresh: second.refresh });
  });

  it('session-mode tokens (bound to their session) end too', async () => {
    const u = await addUser();
    const res = await t.req('POST', '/auth/login', { email: u.email, password: PASSWORD, mode: 'session' }, { token: null });
    const cookie = /svc_session_token=([^;]*);/.exec(res.headers.get('set-cookie') ?? '')![1];
    expect((await me(cookie)).status).toBe(200);
    expect((await t.req('PATCH', `/users/${u.id}`, { password: 'admin-chosen-2' })).status).toBe(200);
    expect(code(await me(cookie))).toBe('TOKEN_REVOKED');
  });
});

describe('a self-service password change', () => {
  it('ends the other sessions; the session that made it keeps refreshing', async () => {
    const u = await addUser();
    const other = await login(u.email);
    const current = await login(u.email);
    const res = await t.req('PATCH', '/users/me', { password: 'self-chosen-1', current_password: PASSWORD }, { token: current.access });
    expect(res.status).toBe(200);
    await expectRevoked(other);
    // The caller's access token and refresh token go on working.
    const next = await expectAlive(current);
    await expectAlive(next);
    expect((await t.req('POST', '/auth/login', { email: u.email, password: 'self-chosen-1' }, { token: null })).status).toBe(200);
  });

  it('with a static token (no session of its own) ends every session; the static token stays', async () => {
    const u = await addUser();
    await sql('update svc_users set token = $2 where id = $1', [u.id, `rv-static-${u.id}`]);
    await t.services.schema.invalidate();
    const other = await login(u.email);
    const res = await t.req('PATCH', '/users/me', { password: 'self-chosen-2', current_password: PASSWORD }, { token: `rv-static-${u.id}` });
    expect(res.status).toBe(200);
    await expectRevoked(other);
    expect((await me(`rv-static-${u.id}`)).status).toBe(200);
  });
});

describe('changes that end nothing', () => {
  const cases: { name: string; body: Record<string, unknown> }[] = [
    { name: 'a name change', body: { first_name: 'Renamed' } },
    { name: 'setting the status it already has', body: { status: 'active' } },
    { name: 'setting the role it already has (none)', body: { role: null } },
  ];
  it.each(cases)('$name', async ({ body }) => {
    const u = await addUser();
    const s = await login(u.email);
    expect((await t.req('PATCH', `/users/${u.id}`, body)).status).toBe(200);
    await expectAlive(s);
  });

  it('a change that is rolled back (duplicate email beside the new password) keeps the sessions', async () => {
    const u = await addUser();
    const s = await login(u.email);
    const bad = await t.req('PATCH', `/users/${u.id}`, { password: 'never-applied-1', email: ADMIN_EMAIL });
    expect({ status: bad.status, code: code(bad) }).toEqual({ status: 409, code: 'RECORD_NOT_UNIQUE' });
    await expectAlive(s);
  });
});
