import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_EMAIL } from '../helpers/template.ts';

let t: TestApp;
let adminId: string;
let adminRole: string;
let plain: { user: string; role: string };

const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const login = (email: string, password: string) => t.req('POST', '/auth/login', { email, password }, { token: null });
const q = (sql: string, params: unknown[] = []) => run<Record<string, any>>(t.services.database.db, sql, params);

beforeAll(async () => {
  t = await createTestApp();
  [{ id: adminId, role: adminRole }] = await q('select id, role from svc_users where email = $1', [ADMIN_EMAIL]);
  plain = await createPrincipal(t.services, { token: 'plain-user-token', permissions: [] });
});
afterAll(async () => { await t.close(); });

async function newUser(extra: Record<string, unknown> = {}) {
  const email = `u-${randomUUID().slice(0, 8)}@example.com`;
  const res = await t.req('POST', '/users', { email, password: 'user-password-1', role: plain.role, ...extra });
  expect(res.status).toBe(200);
  return { id: res.body.data as string, email };
}

describe('POST /users', () => {
  it('creates a user, hashes the password and returns the uuid; admin-set password requires a change', async () => {
    const { id, email } = await newUser({ first_name: 'Ann' });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const [row] = await q('select password, require_password_change, status from svc_users where id = $1', [id]);
    expect(row.password).toMatch(/^\$argon2/);
    expect(row.require_password_change).toBe(true);
    expect(row.status).toBe('active');
    const res = await login(email, 'user-password-1');
    expect(res.status).toBe(200);
  });

  it('require_password_change: false in the body wins', async () => {
    const { id } = await newUser({ require_password_change: false });
    const [row] = await q('select require_password_change from svc_users where id = $1', [id]);
    expect(row.require_password_change).toBe(false);
  });

  it('accepts an array and returns the uuids', async () => {
    const res = await t.req('POST', '/users', [{ email: `a-${randomUUID().slice(0, 6)}@example.com` }, { email: `b-${randomUUID().slice(0, 6)}@example.com` }]);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
  });

  it('rejects a duplicate email (any case) with 409 RECORD_NOT_UNIQUE and writes nothing', async () => {
    const res = await t.req('POST', '/users', { email: ADMIN_EMAIL.toUpperCase(), password: 'x-password-1' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errors: [{ message: 'Value has to be unique', extensions: { code: 'RECORD_NOT_UNIQUE', collection: 'svc_users', field: 'email' } }] });
    const dup = await t.req('POST', '/users', [{ email: 'same@example.com' }, { email: 'Same@example.com' }]);
    expect(dup.status).toBe(409);
    expect(await q("select id from svc_users where lower(email) = 'same@example.com'")).toHaveLength(0);
  });

  it('rejects an invalid email and unknown fields with 400 INVALID_PAYLOAD', async () => {
    const res = await t.req('POST', '/users', { email: 'not-an-email' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ message: '"email" must be a valid email', extensions: { code: 'INVALID_PAYLOAD' } });
    const unknown = await t.req('POST', '/users', { email: 'x1@example.com', nope: 1 });
    expect(unknown.status).toBe(400);
    expect(code(unknown)).toBe('INVALID_PAYLOAD');
  });

  it('is admin only: a plain user gets 403 and nothing is created', async () => {
    const res = await t.req('POST', '/users', { email: 'sneaky@example.com', role: adminRole }, { token: 'plain-user-token' });
    expect(res.status).toBe(403);
    expect(code(res)).toBe('FORBIDDEN');
    const anon = await t.req('POST', '/users', { email: 'sneaky@example.com' }, { token: null });
    expect(anon.status).toBe(403);
    expect(await q("select id from svc_users where email = 'sneaky@example.com'")).toHaveLength(0);
  });

  it('enforces settings.auth_password_policy (with or without slashes)', async () => {
    await q("update svc_settings set auth_password_policy = '/^.{12,}$/'");
    const res = await t.req('POST', '/users', { email: 'short@example.com', password: 'short' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ message: "Provided password doesn't match password policy", extensions: { code: 'INVALID_PAYLOAD' } }] });
    await q("update svc_settings set auth_password_policy = '^(?=.*[0-9]).{4,}$'");
    expect((await t.req('POST', '/users', { email: 'nodigit@example.com', password: 'abcdefgh' })).status).toBe(400);
    expect((await t.req('POST', '/users', { email: 'digit@example.com', password: 'abcdefg1' })).status).toBe(200);
    await q('update svc_settings set auth_password_policy = null');
  });
});

describe('GET /users', () => {
  it('lists users with password and token concealed and tfa_secret never in clear', async () => {
    await q("update svc_users set token = 'secret-static', tfa_secret = 'JBSWY3DPEHPK3PXP' where id = $1", [plain.user]);
    await t.services.schema.invalidate();
    const res = await t.req('GET', `/users/${plain.user}?fields=id,email,password,token,tfa_secret`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: plain.user, email: 'plain-user-token@example.com', password: null, token: '**********', tfa_secret: '**********' } });
    const admin = await t.req('GET', `/users/${adminId}?fields=password`);
    expect(admin.body).toEqual({ data: { password: '**********' } });
    const list = await t.req('GET', '/users?fields=email,token&filter[email][_eq]=plain-user-token@example.com');
    expect(list.body).toEqual({ data: [{ email: 'plain-user-token@example.com', token: '**********' }] });
    const search = await t.req('GET', '/users?fields=id&search=secret-static');
    expect(search.body).toEqual({ data: [] });
    await q("update svc_users set token = 'plain-user-token', tfa_secret = null where id = $1", [plain.user]);
    await t.services.schema.invalidate();
  });

  it('GET /users/me returns the caller; anonymous is 401 INVALID_CREDENTIALS', async () => {
    const me = await t.req('GET', '/users/me?fields=id,email', undefined, { token: 'plain-user-token' });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ data: { id: plain.user, email: 'plain-user-token@example.com' } });
    const anon = await t.req('GET', '/users/me', undefined, { token: null });
    expect(anon.status).toBe(401);
    expect(code(anon)).toBe('INVALID_CREDENTIALS');
  });

  it('an app user reads only its own row (app-access minimum); a user without app access gets 403', async () => {
    const app = await createPrincipal(t.services, { token: 'users-app-reader', permissions: [], appAccess: true });
    const list = await t.req('GET', '/users?fields=id,email', undefined, { token: 'users-app-reader' });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ id: app.user, email: 'users-app-reader@example.com' }]);
    await createPrincipal(t.services, { token: 'users-plain-reader', permissions: [] });
    expect((await t.req('GET', '/users', undefined, { token: 'users-plain-reader' })).status).toBe(403);
  });

  it('a missing user is 403 FORBIDDEN, as Directus', async () => {
    const res = await t.req('GET', `/users/${randomUUID()}`);
    expect(res.status).toBe(403);
  });
});

describe('PATCH /users/{id} and /users', () => {
  it('updates any field, answers the uuid, and an admin-set password forces a change', async () => {
    const { id, email } = await newUser({ require_password_change: false });
    const res = await t.req('PATCH', `/users/${id}`, { last_name: 'Lee', password: 'new-password-2' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: id });
    const [row] = await q('select last_name, require_password_change from svc_users where id = $1', [id]);
    expect(row).toEqual({ last_name: 'Lee', require_password_change: true });
    expect((await login(email, 'new-password-2')).status).toBe(200);
  });

  it('suspending a user takes effect on their static token at once', async () => {
    const { id } = await newUser({ token: 'to-suspend-token' });
    expect((await t.req('GET', '/users/me', undefined, { token: 'to-suspend-token' })).status).toBe(200);
    expect((await t.req('PATCH', `/users/${id}`, { status: 'suspended' })).status).toBe(200);
    const res = await t.req('GET', '/users/me', undefined, { token: 'to-suspend-token' });
    expect(res.status).toBe(401);
    expect(code(res)).toBe('INVALID_TOKEN');
  });

  it('batch: {keys, data} and an array of objects', async () => {
    const a = await newUser();
    const b = await newUser();
    const res = await t.req('PATCH', '/users', { keys: [a.id, b.id], data: { title: 'Dr' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([a.id, b.id]);
    const arr = await t.req('PATCH', '/users', [{ id: a.id, first_name: 'A' }, { id: b.id, first_name: 'B' }]);
    expect(arr.status).toBe(200);
    const rows = await q('select first_name, title from svc_users where id = any($1::uuid[]) order by first_name', [[a.id, b.id]]);
    expect(rows).toEqual([{ first_name: 'A', title: 'Dr' }, { first_name: 'B', title: 'Dr' }]);
    const dup = await t.req('PATCH', '/users', { keys: [a.id, b.id], data: { email: 'one@example.com' } });
    expect(dup.status).toBe(409);
  });

  it('changing email to a taken one is 409', async () => {
    const { id } = await newUser();
    const res = await t.req('PATCH', `/users/${id}`, { email: ADMIN_EMAIL });
    expect(res.status).toBe(409);
    expect(code(res)).toBe('RECORD_NOT_UNIQUE');
  });

  it('a non-admin cannot PATCH another user (403, unchanged)', async () => {
    const { id } = await newUser();
    const res = await t.req('PATCH', `/users/${id}`, { first_name: 'Hacked' }, { token: 'plain-user-token' });
    expect(res.status).toBe(403);
    const [row] = await q('select first_name from svc_users where id = $1', [id]);
    expect(row.first_name).toBeNull();
  });

  it('the last active administrator cannot be demoted or suspended (422)', async () => {
    await q('update svc_users set role = $1 where role = $2 and id <> $3', [plain.role, adminRole, adminId]);
    const res = await t.req('PATCH', `/users/${adminId}`, { status: 'suspended' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: [{ message: "You can't remove the last admin user from the admin role.", extensions: { code: 'UNPROCESSABLE_CONTENT' } }] });
    const [row] = await q('select status from svc_users where id = $1', [adminId]);
    expect(row.status).toBe('active');
  });
});

describe('PATCH /users/me', () => {
  it('edits self-editable fields and silently drops role, status, admin_access and policies', async () => {
    const res = await t.req('PATCH', '/users/me', {
      first_name: 'Plain', language: 'de-DE', role: adminRole, status: 'active', admin_access: true, policies: [randomUUID()],
      require_password_change: false, tfa_secret: 'X', email_notifications: false,
    }, { token: 'plain-user-token' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: plain.user });
    const [row] = await q('select first_name, language, role, email_notifications from svc_users where id = $1', [plain.user]);
    expect(row).toEqual({ first_name: 'Plain', language: 'de-DE', role: plain.role, email_notifications: true });
    expect(await q('select 1 from svc_access where "user" = $1', [plain.user])).toHaveLength(0);
  });

  it('changing the password needs the current one; success clears require_password_change', async () => {
    const { id, email } = await newUser();
    const token = (await login(email, 'user-password-1')).body.data.access_token as string;
    const missing = await t.req('PATCH', '/users/me', { password: 'next-password-1' }, { token });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toEqual({ message: '"current_password" is required', extensions: { code: 'INVALID_PAYLOAD' } });
    const wrong = await t.req('PATCH', '/users/me', { password: 'next-password-1', current_password: 'nope' }, { token });
    expect(wrong.status).toBe(401);
    expect(code(wrong)).toBe('INVALID_CREDENTIALS');
    const ok = await t.req('PATCH', '/users/me', { password: 'next-password-1', current_password: 'user-password-1' }, { token });
    expect(ok.status).toBe(200);
    const [row] = await q('select require_password_change from svc_users where id = $1', [id]);
    expect(row.require_password_change).toBe(false);
    expect((await login(email, 'next-password-1')).status).toBe(200);
    expect((await login(email, 'user-password-1')).status).toBe(401);
  });

  it('password policy applies to /users/me', async () => {
    const { email } = await newUser();
    const token = (await login(email, 'user-password-1')).body.data.access_token as string;
    await q("update svc_settings set auth_password_policy = '/^.{30,}$/'");
    const res = await t.req('PATCH', '/users/me', { password: 'short-one-1', current_password: 'user-password-1' }, { token });
    await q('update svc_settings set auth_password_policy = null');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe("Provided password doesn't match password policy");
  });

  it('a taken email is 409 and anonymous is 401', async () => {
    const res = await t.req('PATCH', '/users/me', { email: ADMIN_EMAIL }, { token: 'plain-user-token' });
    expect(res.status).toBe(409);
    const anon = await t.req('PATCH', '/users/me', { first_name: 'x' }, { token: null });
    expect(anon.status).toBe(401);
    expect(code(anon)).toBe('INVALID_CREDENTIALS');
  });
});

describe('DELETE /users', () => {
  it('deletes a user; their activity rows keep the uuid', async () => {
    const { id, email } = await newUser();
    expect((await login(email, 'user-password-1')).status).toBe(200);
    const res = await t.req('DELETE', `/users/${id}`);
    expect(res.status).toBe(204);
    expect(await q('select 1 from svc_users where id = $1', [id])).toHaveLength(0);
    const activity = await q("select \"user\" from svc_activity where action = 'login' and item = $1", [id]);
    expect(activity).toEqual([{ user: id }]);
  });

  it('batch delete by keys array or {keys}; a missing key is 403 and deletes nothing', async () => {
    const a = await newUser();
    const b = await newUser();
    const bad = await t.req('DELETE', '/users', [a.id, randomUUID()]);
    expect(bad.status).toBe(403);
    expect(await q('select 1 from svc_users where id = $1', [a.id])).toHaveLength(1);
    expect((await t.req('DELETE', '/users', [a.id])).status).toBe(204);
    expect((await t.req('DELETE', '/users', { keys: [b.id] })).status).toBe(204);
    expect(await q('select 1 from svc_users where id = any($1::uuid[])', [[a.id, b.id]])).toHaveLength(0);
  });

  it('is admin only, and the last admin cannot be deleted', async () => {
    const { id } = await newUser();
    expect((await t.req('DELETE', `/users/${id}`, undefined, { token: 'plain-user-token' })).status).toBe(403);
    const last = await t.req('DELETE', `/users/${adminId}`);
    expect(last.status).toBe(422);
  });
});
