/** GET /permissions/as/{user}: what a user would get (the Studio's "view as"), computed by the resolver behind their
 * own /permissions/me, /app-permissions/me and /policies/me/globals. A table of users (admin, an app user with row
 * filters through a role chain and a direct policy, a user without policies, a policy limited by ip_access, a
 * suspended user) compares it with what each answers when that user calls it; only admins get it (the user itself,
 * another user, the public and a share token are refused); nothing is written and no token is made. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const FORBIDDEN = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] };

interface Subject { id: string; token: string; ip?: string }
const users: Record<string, Subject> = {};
let adminId: string;
let shareToken: string;
let editorsPolicy: string;
let parentPolicy: string;
let directPolicy: string;
let officePolicy: string;

async function data(method: string, path: string, body?: unknown): Promise<any> {
  const res = await t.req(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body.data;
}

async function user(email: string, role: string | null, extra: Record<string, unknown> = {}): Promise<Subject> {
  const token = `tok-${randomUUID()}`;
  const id = await data('POST', '/users', { email, password: 'some-pass-word-1', role, token, status: 'active', ...extra });
  return { id, token };
}

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  [{ id: adminId }] = await q<{ id: string }>("select id from svc_users where email = 'admin@example.com'");
  users.admin = { id: adminId, token: ADMIN_TOKEN };

  // Editors: a parent role (authors readable) and the user's role (posts with row filters, app access, app permissions),
  // plus a policy attached to the user directly.
  parentPolicy = await data('POST', '/policies', { name: 'Authors readers', permissions: [{ collection: 'authors', action: 'read', fields: ['id', 'name'] }] });
  editorsPolicy = await data('POST', '/policies', {
    name: 'Editors', app_access: true, permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'status', 'author'], permissions: { _or: [{ status: { _eq: 'published' } }, { author: { _eq: '$CURRENT_USER' } }] } },
      { collection: 'posts', action: 'update', fields: ['title'], validation: { title: { _nempty: true } } },
      { collection: 'posts', action: 'create', fields: ['title', 'status'], presets: { status: 'draft' } },
    ],
  });
  directPolicy = await data('POST', '/policies', { name: 'Tag keeper', permissions: [{ collection: 'tags', action: 'read' }, { collection: 'posts', action: 'read', fields: ['id', 'title', 'body'], permissions: { views: { _gt: 20 } } }] });
  officePolicy = await data('POST', '/policies', { name: 'Office only', ip_access: ['198.51.100.0/24'], permissions: [{ collection: 'posts', action: 'delete' }] });
  await data('POST', '/app-permissions', { policy: editorsPolicy, permission: 'versioning:view' });
  await data('POST', '/app-permissions', { policy: editorsPolicy, permission: 'workflow:participate' });
  const parentRole = await data('POST', '/roles', { name: 'Staff', policies: [parentPolicy] });
  const editorRole = await data('POST', '/roles', { name: 'Editor', parent: parentRole, enforce_tfa: true, policies: [editorsPolicy, officePolicy] });
  users.editor = await user('editor@example.com', editorRole);
  await data('POST', '/access', { user: users.editor.id, policy: directPolicy });
  users.editorInOffice = { ...users.editor, ip: '198.51.100.9' };

  const bareRole = await data('POST', '/roles', { name: 'Nobody' });
  users.bare = await user('bare@example.com', bareRole);
  users.roleless = await user('roleless@example.com', null);

  // A share of posts 1 acting as the editors' role.
  const share = randomUUID();
  await q("insert into svc_shares (id, collection, item, role) values ($1, 'posts', '1', $2)", [share, editorRole]);
  shareToken = (await t.req('POST', '/shares/auth', { share }, { token: null })).body.data.access_token;
});
afterAll(async () => t?.close());

/** What the user gets when they call the three /me endpoints themselves, from their address. */
async function own(subject: Subject): Promise<{ permissions: unknown; app_permissions: unknown; globals: unknown }> {
  const headers = subject.ip ? { 'x-forwarded-for': subject.ip } : undefined;
  const get = async (path: string) => {
    const res = await t.req('GET', path, undefined, { token: subject.token, headers });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };
  const [permissions, app_permissions, globals] = await Promise.all([get('/permissions/me'), get('/app-permissions/me'), get('/policies/me/globals')]);
  return { permissions, app_permissions, globals };
}

describe('GET /permissions/as/{user} answers what the user gets from /permissions/me', () => {
  it.each(['admin', 'editor', 'editorInOffice', 'bare', 'roleless'])('%s', async (name) => {
    const subject = users[name];
    const view = await data('GET', `/permissions/as/${subject.id}${subject.ip ? `?ip=${subject.ip}` : ''}`);
    expect({ permissions: view.permissions, app_permissions: view.app_permissions, globals: view.globals }).toEqual(await own(subject));
  });

  it('names the role chain and every policy, saying which ones apply from the address', async () => {
    const away = await data('GET', `/permissions/as/${users.editor.id}?ip=203.0.113.5`);
    expect(away.user).toEqual({ id: users.editor.id, email: 'editor@example.com', first_name: null, last_name: null, status: 'active', role: expect.any(String) });
    expect(away.roles.map((r: { name: string }) => r.name)).toEqual(['Editor', 'Staff']);
    expect(away.ip).toBe('203.0.113.5');
    const byName = Object.fromEntries(away.policies.map((p: { name: string }) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(['Authors readers', 'Editors', 'Office only', 'Tag keeper']);
    expect(byName['Office only']).toEqual({ id: officePolicy, name: 'Office only', admin_access: false, app_access: false, ip_access: ['198.51.100.0/24'], applies: false });
    expect(byName.Editors).toMatchObject({ id: editorsPolicy, app_access: true, ip_access: null, applies: true });
    expect(away.globals).toEqual({ app_access: true, admin_access: false, enforce_tfa: true });
    expect(away.app_permissions).toEqual(['versioning:view', 'workflow:participate']);
    // Row filters OR-combined over the role's and the direct policy, field lists intersected.
    expect(away.permissions.posts.read).toEqual({
      access: 'partial', fields: ['id', 'title'], validation: null, presets: null,
      permissions: { _or: [{ _or: [{ status: { _eq: 'published' } }, { author: { _eq: '$CURRENT_USER' } }] }, { views: { _gt: 20 } }] },
    });
    expect(away.permissions.posts.delete).toBeUndefined();
    const inOffice = await data('GET', `/permissions/as/${users.editor.id}?ip=198.51.100.9`);
    expect(inOffice.policies.find((p: { name: string }) => p.name === 'Office only').applies).toBe(true);
    expect(inOffice.permissions.posts.delete).toEqual({ access: 'full', fields: ['*'], permissions: null, validation: null, presets: null });
  });

  it('answers for a user who cannot sign in (suspended) as the resolver sees them, with their status', async () => {
    const suspended = await user('suspended@example.com', (await q<{ role: string }>('select role from svc_users where id = $1', [users.editor.id]))[0].role);
    const before = await data('GET', `/permissions/as/${suspended.id}`);
    await data('PATCH', `/users/${suspended.id}`, { status: 'suspended' });
    const after = await data('GET', `/permissions/as/${suspended.id}`);
    expect(after.user.status).toBe('suspended');
    expect(after.permissions).toEqual(before.permissions);
    expect((await t.req('GET', '/permissions/me', undefined, { token: suspended.token })).status).toBe(401);
  });

  it('writes nothing and makes no token (not an impersonation)', async () => {
    const count = async () => (await q<{ n: number }>('select count(*)::int as n from svc_activity'))[0].n;
    const sessions = async () => (await q<{ n: number }>('select count(*)::int as n from svc_sessions'))[0].n;
    const [a, s] = [await count(), await sessions()];
    await data('GET', `/permissions/as/${users.editor.id}`);
    expect([await count(), await sessions()]).toEqual([a, s]);
  });

  it('refuses a bad address (400) and an unknown user (403, like any record that is not there)', async () => {
    const bad = await t.req('GET', `/permissions/as/${users.editor.id}?ip=not-an-ip`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions.code).toBe('INVALID_QUERY');
    expect(await t.req('GET', `/permissions/as/${randomUUID()}`)).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('GET', '/permissions/as/42')).toMatchObject({ status: 403, body: FORBIDDEN });
  });
});

describe('GET /permissions/as/{user}: who may ask', () => {
  const cases: [string, () => string | null, number][] = [
    ['admin', () => ADMIN_TOKEN, 200],
    ['the user itself', () => users.editor.token, 403],
    ['another user', () => users.bare.token, 403],
    ['the public', () => null, 403],
    ['a share token', () => shareToken, 403],
  ];
  it.each(cases)('%s', async (_who, token, status) => {
    const res = await t.req('GET', `/permissions/as/${users.editor.id}`, undefined, { token: token() });
    expect(res.status).toBe(status);
    if (status === 403) expect(res.body).toEqual(FORBIDDEN);
    else expect(Object.keys(res.body.data).sort()).toEqual(['app_permissions', 'globals', 'ip', 'permissions', 'policies', 'roles', 'user']);
  });
});
