/** Issue 24 point 9: when a role or policy enforces two-factor and the user has none, login (and refresh) give a
 * token that may only enrol: the two-factor set-up calls, reading oneself, refresh and logout. Everything else
 * is 403 with a message saying set-up is required. Once two-factor is on, a refresh gives a full token. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, generateSecret } from 'otplib';
import { run } from '../../core/db/database.ts';
import { hashPassword } from '../../core/auth/passwords.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
const PASSWORD = 'enforce-password-1';
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const sql = <T = Record<string, any>>(text: string, params: unknown[] = []) => run<T>(t.services.database.db, text, params);
const SETUP_MESSAGE = /^Two-factor authentication must be set up first/;

let enforcingRole: string;

async function addUser(role: string | null) {
  const id = randomUUID();
  const email = `enf-${id.slice(0, 8)}@example.com`;
  await sql(`insert into svc_users (id, email, password, role, status) values ($1, $2, $3, $4, 'active')`, [id, email, await hashPassword(PASSWORD), role]);
  return { id, email };
}

async function login(email: string, mode = 'json') {
  const res = await t.req('POST', '/auth/login', { email, password: PASSWORD, mode }, { token: null });
  expect(res.status).toBe(200);
  return res;
}

function expectSetupRefusal(res: { status: number; body: any }) {
  expect({ status: res.status, code: code(res) }).toEqual({ status: 403, code: 'FORBIDDEN' });
  expect(res.body.errors[0].message).toMatch(SETUP_MESSAGE);
}

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMITER_ENABLED: 'false' } });
  enforcingRole = randomUUID();
  // The role may read and write its own things: the refusals below come from the missing two-factor alone.
  const policy = randomUUID();
  await sql("insert into svc_roles (id, name, enforce_tfa) values ($1, 'Enforcing', true)", [enforcingRole]);
  await sql("insert into svc_policies (id, name, app_access, admin_access) values ($1, 'Enforcing admin', true, true)", [policy]);
  await sql('insert into svc_access (id, role, policy) values ($1, $2, $3)', [randomUUID(), enforcingRole, policy]);
  await t.services.schema.invalidate();
});
afterAll(async () => { await t.close(); });

describe('a user who must set up two-factor', () => {
  const allowed: { method: string; path: string; body?: unknown; status: number }[] = [
    { method: 'GET', path: '/users/me', status: 200 },
    { method: 'GET', path: '/auth/me', status: 200 },
    { method: 'POST', path: '/users/me/tfa/generate', body: { password: PASSWORD }, status: 200 },
  ];
  const refused: { method: string; path: string; body?: unknown }[] = [
    { method: 'GET', path: '/users' },
    { method: 'PATCH', path: '/users/me', body: { first_name: 'x' } },
    { method: 'POST', path: '/users/me/tfa/disable', body: { otp: '123456' } },
    { method: 'GET', path: '/collections' },
    { method: 'GET', path: '/items/svc_users' },
    { method: 'POST', path: '/graphql', body: { query: '{ __typename }' } },
    { method: 'GET', path: '/server/info' },
    { method: 'POST', path: '/auth/impersonate', body: { user: randomUUID() } },
    { method: 'GET', path: '/users/me/' },
  ];

  it('login answers the flag and a limited token', async () => {
    const u = await addUser(enforcingRole);
    const res = await login(u.email);
    expect(res.body.data.tfa_setup_required).toBe(true);
    expectSetupRefusal(await t.req('GET', '/collections', undefined, { token: res.body.data.access_token }));
  });

  it.each(allowed)('allows $method $path', async ({ method, path, body, status }) => {
    const u = await addUser(enforcingRole);
    const token = (await login(u.email)).body.data.access_token;
    expect((await t.req(method, path, body, { token })).status).toBe(status);
  });

  it.each(refused)('refuses $method $path with 403 and the reason', async ({ method, path, body }) => {
    const u = await addUser(enforcingRole);
    const token = (await login(u.email)).body.data.access_token;
    expectSetupRefusal(await t.req(method, path, body, { token }));
  });

  it('a refresh gives a limited token again until two-factor is on; then a full one', async () => {
    const u = await addUser(enforcingRole);
    const first = (await login(u.email)).body.data;
    const again = await t.req('POST', '/auth/refresh', { refresh_token: first.refresh_token }, { token: null });
    expect(again.status).toBe(200);
    expectSetupRefusal(await t.req('GET', '/collections', undefined, { token: again.body.data.access_token }));

    const { secret } = (await t.req('POST', '/users/me/tfa/generate', { password: PASSWORD }, { token: again.body.data.access_token })).body.data;
    const enabled = await t.req('POST', '/users/me/tfa/enable', { secret, otp: await generate({ secret }) }, { token: again.body.data.access_token });
    expect(enabled.status).toBe(204);
    // The limited token stays limited; the next refresh lifts it.
    expectSetupRefusal(await t.req('GET', '/collections', undefined, { token: again.body.data.access_token }));
    const full = await t.req('POST', '/auth/refresh', { refresh_token: again.body.data.refresh_token }, { token: null });
    expect(full.status).toBe(200);
    expect((await t.req('GET', '/collections', undefined, { token: full.body.data.access_token })).status).toBe(200);
  });

  it('SPEC.md\u2019s enable {password} works with the limited token as well', async () => {
    const u = await addUser(enforcingRole);
    const token = (await login(u.email)).body.data.access_token;
    const res = await t.req('POST', '/users/me/tfa/enable', { password: PASSWORD }, { token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['otpauth_url', 'secret']);
  });

  it('session mode: the session cookie is limited the same way', async () => {
    const u = await addUser(enforcingRole);
    const res = await login(u.email, 'session');
    const cookie = /svc_session_token=([^;]*);/.exec(res.headers.get('set-cookie') ?? '')![1];
    expect((await t.req('GET', '/users/me', undefined, { token: cookie })).status).toBe(200);
    expectSetupRefusal(await t.req('GET', '/collections', undefined, { token: cookie }));
  });

  it('a policy attached to the user enforcing two-factor limits the token too', async () => {
    const u = await addUser(null);
    const policy = randomUUID();
    await sql("insert into svc_policies (id, name, enforce_tfa) values ($1, 'user tfa', true)", [policy]);
    await sql('insert into svc_access (id, "user", policy) values ($1, $2, $3)', [randomUUID(), u.id, policy]);
    await t.services.schema.invalidate();
    expectSetupRefusal(await t.req('GET', '/server/info', undefined, { token: (await login(u.email)).body.data.access_token }));
  });

  it('without enforcement, or with two-factor on, the token is a full one', async () => {
    const plain = await addUser(null);
    const token = (await login(plain.email)).body.data.access_token;
    expect((await t.req('GET', '/server/info', undefined, { token })).status).toBe(200);
    const enrolled = await addUser(enforcingRole);
    const secret = generateSecret();
    await sql('update svc_users set tfa_secret = $2, tfa_enabled = true where id = $1', [enrolled.id, secret]);
    const res = await t.req('POST', '/auth/login', { email: enrolled.email, password: PASSWORD, otp: await generate({ secret }) }, { token: null });
    expect(res.body.data.tfa_setup_required).toBeUndefined();
    expect((await t.req('GET', '/collections', undefined, { token: res.body.data.access_token })).status).toBe(200);
  });
});
