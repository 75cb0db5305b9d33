/** /policies: admin CRUD, permissions nested on read, ip_access validated and honoured, cascades. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../core/db/database.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { createContentModel } from './helpers/fixtures.ts';
import { createPrincipal } from './helpers/principals.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const FORBIDDEN = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] };

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
});
afterAll(() => t.close());

describe('/policies', () => {
  it('creates a policy (with nested permissions) and reads it with its permissions', async () => {
    const res = await t.req('POST', '/policies', {
      name: 'Writers', icon: 'edit', description: 'd', app_access: true, ip_access: ['10.0.0.0/8', '192.168.1.1'],
      permissions: [{ collection: 'posts', action: 'read', fields: ['id', 'title'] }],
    });
    expect(res.status).toBe(200);
    const id = res.body.data;
    const one = await t.req('GET', `/policies/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id, name: 'Writers', icon: 'edit', description: 'd', app_access: true, admin_access: false, ip_access: ['10.0.0.0/8', '192.168.1.1'] });
    expect(one.body.data.permissions).toEqual([{
      id: expect.any(Number), policy: id, collection: 'posts', action: 'read', fields: ['id', 'title'], permissions: null, validation: null, presets: null,
    }]);
    const list = await t.req('GET', '/policies?filter[name][_eq]=Writers&fields=name,permissions.collection');
    expect(list.body.data).toEqual([{ name: 'Writers', permissions: [expect.objectContaining({ collection: 'posts' })] }]);
    const plain = await t.req('GET', `/policies/${id}?fields=name`);
    expect(plain.body).toEqual({ data: { name: 'Writers' } });
  });

  it('PATCH changes fields; ip_access entries must be IP addresses or CIDR ranges (400, nothing changed)', async () => {
    const id = (await t.req('POST', '/policies', { name: 'Net' })).body.data;
    expect(await t.req('PATCH', `/policies/${id}`, { ip_access: '127.0.0.1/32, ::1' })).toMatchObject({ status: 200, body: { data: id } });
    expect((await t.req('GET', `/policies/${id}?fields=ip_access`)).body.data).toEqual({ ip_access: ['127.0.0.1/32', '::1'] });
    for (const bad of [['10.0.0.0/33'], ['not-an-ip'], 'abc', [1], { a: 1 }]) {
      const res = await t.req('PATCH', `/policies/${id}`, { ip_access: bad });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PAYLOAD', field: 'ip_access' });
    }
    expect((await t.req('POST', '/policies', { name: 'Bad', ip_access: ['300.1.1.1'] })).status).toBe(400);
    expect(await q("select 1 from svc_policies where name = 'Bad'")).toHaveLength(0);
    expect((await t.req('GET', `/policies/${id}?fields=ip_access`)).body.data).toEqual({ ip_access: ['127.0.0.1/32', '::1'] });
  });

  it('deleting a policy cascades its permissions, app permissions and access rows', async () => {
    const id = (await t.req('POST', '/policies', { name: 'Gone', permissions: [{ collection: 'posts', action: 'read' }] })).body.data;
    const role = (await t.req('POST', '/roles', { name: 'GoneRole', policies: [id] })).body.data;
    expect((await t.req('POST', '/app-permissions', { policy: id, permission: 'versioning:view' })).status).toBe(200);
    expect((await t.req('DELETE', `/policies/${id}`)).status).toBe(204);
    expect(await q('select 1 from svc_permissions where policy = $1', [id])).toHaveLength(0);
    expect(await q('select 1 from svc_app_permissions where policy = $1', [id])).toHaveLength(0);
    expect(await q('select 1 from svc_access where role = $1', [role])).toHaveLength(0);
    expect(await t.req('GET', `/policies/${id}`)).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  it('non-admins cannot write policies; app users read only their own policies', async () => {
    const p = await createPrincipal(t.services, { token: 'pol-app', permissions: [{ collection: 'posts', action: 'read' }], appAccess: true });
    const before = Number((await q('select count(*)::int as n from svc_policies'))[0].n);
    expect(await t.req('POST', '/policies', { name: 'Mine', admin_access: true }, { token: 'pol-app' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('PATCH', `/policies/${p.policy}`, { admin_access: true }, { token: 'pol-app' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('DELETE', `/policies/${p.policy}`, undefined, { token: 'pol-app' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(Number((await q('select count(*)::int as n from svc_policies'))[0].n)).toBe(before);
    const list = await t.req('GET', '/policies?fields=id,permissions.collection', undefined, { token: 'pol-app' });
    expect(list.body).toEqual({ data: [{ id: p.policy, permissions: [expect.objectContaining({ collection: 'posts', action: 'read' })] }] });
    expect((await t.req('GET', '/policies', undefined, { token: null })).status).toBe(403);
  });
});

describe('ip_access', () => {
  it('a policy limited by ip_access applies only to requests from inside its ranges', async () => {
    await createPrincipal(t.services, { token: 'ip-user', permissions: [] });
    const [{ role }] = await q<{ role: string }>("select role from svc_users where token = 'ip-user'");
    const policy = (await t.req('POST', '/policies', { name: 'Office', ip_access: ['198.51.100.0/24'], permissions: [{ collection: 'posts', action: 'read' }] })).body.data;
    await t.req('PATCH', `/roles/${role}`, { policies: { create: [{ policy }] } });
    const from = (ip: string) => t.req('GET', '/items/posts?fields=id', undefined, { token: 'ip-user', headers: { 'x-forwarded-for': ip } });
    expect((await from('198.51.100.7')).status).toBe(200);
    expect(await from('203.0.113.5')).toMatchObject({ status: 403, body: FORBIDDEN });
    const me = await t.req('GET', '/permissions/me', undefined, { token: 'ip-user', headers: { 'x-forwarded-for': '203.0.113.5' } });
    expect(me.body).toEqual({ data: {} });
  });
});
