/** Issue 24 point 8: under impersonation no credential (password, static token, email, two-factor, external
 * identity) may be changed on any path, so nothing the impersonator sets outlasts /auth/impersonate/stop. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, generateSecret } from 'otplib';
import { run } from '../../core/db/database.ts';
import { hashPassword } from '../../core/auth/passwords.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

let t: TestApp;
const PASSWORD = 'target-password-1';
const sql = <T = Record<string, any>>(text: string, params: unknown[] = []) => run<T>(t.services.database.db, text, params);
const MESSAGE = 'Credentials (password, static token, email, two-factor, external identity) cannot be changed while impersonating a user.';
const REFUSED = { errors: [{ message: MESSAGE, extensions: { code: 'FORBIDDEN' } }] };

let adminRole: string;
/** A plain user (no role) and a second administrator, each with a password and two-factor secret pending. */
let plain: { id: string; email: string };
let admin2: { id: string; email: string };
/** Another account the impersonated administrator would edit. */
let victim: { id: string; email: string };

async function addUser(role: string | null, tfa?: { secret: string; enabled: boolean }) {
  const id = randomUUID();
  const email = `ic-${id.slice(0, 8)}@example.com`;
  await sql(`insert into svc_users (id, email, password, role, status, tfa_secret, tfa_enabled) values ($1, $2, $3, $4, 'active', $5, $6)`,
    [id, email, await hashPassword(PASSWORD), role, tfa?.secret ?? null, tfa?.enabled ?? false]);
  return { id, email };
}

async function impersonate(user: string): Promise<string> {
  const res = await t.req('POST', '/auth/impersonate', { user }, { token: ADMIN_TOKEN });
  expect(res.status).toBe(200);
  return res.body.data.access_token;
}

const credentials = async (id: string) => (await sql(
  'select email, password, token, tfa_secret, tfa_enabled, provider, external_identifier from svc_users where id = $1', [id]))[0];

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMITER_ENABLED: 'false' } });
  [{ role: adminRole }] = await sql<{ role: string }>('select role from svc_users where token = $1', [ADMIN_TOKEN]);
  plain = await addUser(null);
  admin2 = await addUser(adminRole);
  victim = await addUser(null);
  await sql(`create table ic_notes (id serial primary key, title varchar(255), owner uuid references svc_users(id));
    insert into svc_collections (collection, accountability) values ('ic_notes', 'all');
    insert into svc_relations (many_collection, many_field, one_collection) values ('ic_notes', 'owner', 'svc_users');
    insert into ic_notes (title) values ('first');`);
  await t.services.schema.invalidate();
});
afterAll(async () => { await t.close(); });

describe('impersonating a plain user: their own credentials', () => {
  const cases: { name: string; method: string; path: string; body: Record<string, unknown> }[] = [
    { name: 'PATCH /users/me sets a static token', method: 'PATCH', path: '/users/me', body: { token: 'minted-by-impersonator' } },
    { name: 'PATCH /users/me changes the email', method: 'PATCH', path: '/users/me', body: { email: 'impersonator@evil.example' } },
    { name: 'PATCH /users/me changes the password', method: 'PATCH', path: '/users/me', body: { password: 'impersonator-1', current_password: PASSWORD } },
    { name: 'PATCH /users/me with a wrong current password (no guess counted)', method: 'PATCH', path: '/users/me', body: { password: 'impersonator-1', current_password: 'guess' } },
    { name: 'POST /users/me/tfa/generate', method: 'POST', path: '/users/me/tfa/generate', body: { password: PASSWORD } },
    { name: 'POST /users/me/tfa/enable {password}', method: 'POST', path: '/users/me/tfa/enable', body: { password: PASSWORD } },
    { name: 'POST /users/me/tfa/enable {secret, otp}', method: 'POST', path: '/users/me/tfa/enable', body: { secret: 'JBSWY3DPEHPK3PXP', otp: '123456' } },
    { name: 'POST /users/me/tfa/disable', method: 'POST', path: '/users/me/tfa/disable', body: { otp: '123456' } },
  ];

  it.each(cases)('$name: 403, nothing changes', async ({ method, path, body }) => {
    const before = await credentials(plain.id);
    const token = await impersonate(plain.id);
    const res = await t.req(method, path, body, { token });
    expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: REFUSED });
    expect(await credentials(plain.id)).toEqual(before);
    expect((await t.req('POST', '/auth/impersonate/stop', undefined, { token })).status).toBe(204);
    // Nothing minted: the static token never authenticates, the password is the old one.
    expect((await t.req('GET', '/users/me', undefined, { token: 'minted-by-impersonator' })).status).toBe(401);
    expect((await t.req('POST', '/auth/login', { email: plain.email, password: PASSWORD }, { token: null })).status).toBe(200);
  });

  it('disabling a two-factor that is on is refused too (a valid code does not help)', async () => {
    const secret = generateSecret();
    const u = await addUser(null, { secret, enabled: true });
    const token = await impersonate(u.id);
    const res = await t.req('POST', '/users/me/tfa/disable', { otp: await generate({ secret }) }, { token });
    expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: REFUSED });
    expect(await credentials(u.id)).toMatchObject({ tfa_secret: secret, tfa_enabled: true });
  });

  it('other self-editable fields may still be changed', async () => {
    const token = await impersonate(plain.id);
    expect((await t.req('PATCH', '/users/me', { first_name: 'Changed while impersonated' }, { token })).status).toBe(200);
    expect((await sql('select first_name from svc_users where id = $1', [plain.id]))[0].first_name).toBe('Changed while impersonated');
  });
});

describe('impersonating an administrator: credentials of any account, on every path', () => {
  const cases: { name: string; method: string; path: () => string; body: () => unknown }[] = [
    { name: 'PATCH /users/{id} token', method: 'PATCH', path: () => `/users/${victim.id}`, body: () => ({ token: 'minted-for-victim' }) },
    { name: 'PATCH /users/{id} password', method: 'PATCH', path: () => `/users/${victim.id}`, body: () => ({ password: 'impersonator-2' }) },
    { name: 'PATCH /users/{id} email', method: 'PATCH', path: () => `/users/${victim.id}`, body: () => ({ email: 'victim@evil.example' }) },
    { name: 'PATCH /users/{id} tfa_secret', method: 'PATCH', path: () => `/users/${victim.id}`, body: () => ({ tfa_secret: 'JBSWY3DPEHPK3PXP', tfa_enabled: true }) },
    { name: 'PATCH /users/{id} external identity', method: 'PATCH', path: () => `/users/${victim.id}`, body: () => ({ provider: 'sso', external_identifier: 'evil' }) },
    { name: 'PATCH /users/{own id} token', method: 'PATCH', path: () => `/users/${admin2.id}`, body: () => ({ token: 'minted-for-self' }) },
    { name: 'PATCH /users {keys, data}', method: 'PATCH', path: () => '/users', body: () => ({ keys: [victim.id], data: { token: 'minted-batch' } }) },
    { name: 'PATCH /users {query, data}', method: 'PATCH', path: () => '/users', body: () => ({ query: { filter: { id: { _eq: victim.id } } }, data: { password: 'impersonator-3' } }) },
    { name: 'PATCH /users [items]', method: 'PATCH', path: () => '/users', body: () => [{ id: victim.id, email: 'victim2@evil.example' }] },
    { name: 'POST /users with a password', method: 'POST', path: () => '/users', body: () => ({ email: 'new-one@evil.example', password: 'impersonator-4' }) },
    { name: 'POST /users with a static token', method: 'POST', path: () => '/users', body: () => ({ email: 'new-two@evil.example', token: 'minted-new-user' }) },
    { name: 'PATCH /items/svc_users/{id}', method: 'PATCH', path: () => `/items/svc_users/${victim.id}`, body: () => ({ token: 'minted-items' }) },
    { name: 'POST /items/svc_users', method: 'POST', path: () => '/items/svc_users', body: () => ({ email: 'new-three@evil.example', token: 'minted-items-new' }) },
    { name: 'nested create through a M2O', method: 'POST', path: () => '/items/ic_notes', body: () => ({ title: 'n', owner: { email: 'nested@evil.example', password: 'impersonator-5' } }) },
    { name: 'nested update through a M2O', method: 'PATCH', path: () => '/items/ic_notes/1', body: () => ({ owner: { id: victim.id, token: 'minted-nested' } }) },
    { name: 'POST /users/{id}/tfa/disable', method: 'POST', path: () => `/users/${victim.id}/tfa/disable`, body: () => undefined },
  ];

  it.each(cases)('$name: 403, nothing changes', async ({ method, path, body }) => {
    await sql("update svc_users set tfa_secret = 'PENDINGSECRET', tfa_enabled = true where id = $1", [victim.id]);
    const before = await credentials(victim.id);
    const usersBefore = (await sql('select count(*)::int as n from svc_users'))[0].n;
    const token = await impersonate(admin2.id);
    const res = await t.req(method, path(), body(), { token });
    expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: REFUSED });
    expect(await credentials(victim.id)).toEqual(before);
    expect((await sql('select count(*)::int as n from svc_users'))[0].n).toBe(usersBefore);
    expect((await sql('select token from svc_users where id = $1', [admin2.id]))[0].token).toBeNull();
  });

  it('the same requests with the administrator\u2019s own token work (the refusal is about impersonation)', async () => {
    expect((await t.req('PATCH', `/users/${victim.id}`, { token: 'set-by-real-admin' }, { token: ADMIN_TOKEN })).status).toBe(200);
    expect((await credentials(victim.id)).token).toBe('set-by-real-admin');
  });

  it('a new user without credentials may still be created, and other fields edited', async () => {
    const token = await impersonate(admin2.id);
    expect((await t.req('POST', '/users', { email: 'plain-new@example.com', first_name: 'New' }, { token })).status).toBe(200);
    expect((await t.req('PATCH', `/users/${victim.id}`, { first_name: 'Edited' }, { token })).status).toBe(200);
  });
});
