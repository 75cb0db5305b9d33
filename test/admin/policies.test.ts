/** /policies: admin CRUD, permissions nested on read, ip_access validated and honoured, cascades. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

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
    const list = await t.req('GET', '/policies?fields=id,permissions.collection,permissions.action', undefined, { token: 'pol-app' });
    expect(list.body).toEqual({ data: [{ id: p.policy, permissions: [{ collection: 'posts', action: 'read' }] }] });
    expect((await t.req('GET', '/policies', undefined, { token: null })).status).toBe(401);
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

describe('permissions as a one-to-many alias of policies', () => {
  let posts: string;
  let authors: string;
  let empty: string;
  beforeAll(async () => {
    posts = (await t.req('POST', '/policies', { name: 'O2M posts', permissions: [{ collection: 'posts', action: 'read' }, { collection: 'posts', action: 'update', fields: ['title'] }] })).body.data;
    authors = (await t.req('POST', '/policies', { name: 'O2M authors', permissions: [{ collection: 'authors', action: 'read' }] })).body.data;
    empty = (await t.req('POST', '/policies', { name: 'O2M empty' })).body.data;
  });
  const ids = (body: { data: { id: string }[] }) => body.data.map((p) => p.id);

  it('filters policies by their permissions (relational filter, _some and _none)', async () => {
    const res = await t.req('GET', '/policies?filter[permissions][collection][_eq]=posts&filter[name][_starts_with]=O2M&fields=id');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([posts]);
    const update = await t.req('GET', '/policies?filter[permissions][_some][action][_eq]=update&filter[name][_starts_with]=O2M&fields=id');
    expect(ids(update.body)).toEqual([posts]);
    const none = await t.req('GET', '/policies?filter[permissions][_none][collection][_eq]=posts&filter[name][_starts_with]=O2M&fields=id&sort=name');
    expect(ids(none.body)).toEqual([authors, empty]);
    const json = await t.req('GET', `/policies?filter=${encodeURIComponent(JSON.stringify({ _and: [{ name: { _starts_with: 'O2M' } }, { permissions: { collection: { _in: ['posts', 'authors'] } } }] }))}&fields=id&sort=name`);
    expect(ids(json.body)).toEqual([authors, posts]);
    expect((await t.req('GET', '/policies?filter[permissions][nope][_eq]=1')).status).toBe(400);
  });

  it('fields=*,permissions.* expands them; * alone answers their ids; no fields nests them in full', async () => {
    const [read, update] = await q<{ id: number }>('select id from svc_permissions where policy = $1 order by id', [posts]);
    const expanded = await t.req('GET', `/policies?filter[id][_eq]=${posts}&fields=*,permissions.*`);
    expect(expanded.body.data).toEqual([expect.objectContaining({
      id: posts, name: 'O2M posts', permissions: [
        { id: read.id, policy: posts, collection: 'posts', action: 'read', fields: ['*'], permissions: null, validation: null, presets: null },
        { id: update.id, policy: posts, collection: 'posts', action: 'update', fields: ['title'], permissions: null, validation: null, presets: null },
      ],
    })]);
    const star = await t.req('GET', `/policies/${posts}?fields=*`);
    expect(star.body.data).toMatchObject({ id: posts, permissions: [read.id, update.id] });
    expect((await t.req('GET', `/policies/${empty}?fields=*`)).body.data.permissions).toEqual([]);
    const one = await t.req('GET', `/policies/${posts}`);
    expect(one.body.data.permissions).toEqual(expanded.body.data[0].permissions);
    const deep = await t.req('GET', `/policies/${posts}?fields=name,permissions.action&deep[permissions][_filter][action][_eq]=update`);
    expect(deep.body.data).toEqual({ name: 'O2M posts', permissions: [{ action: 'update' }] });
  });

  it('a policy read without fields nests every permission, beyond the default page size of nested lists', async () => {
    const big = (await t.req('POST', '/policies', { name: 'Big' })).body.data;
    await q("insert into svc_permissions (policy, collection, action, fields) select $1, 'posts', 'read', '[\"*\"]' from generate_series(1, 105)", [big]);
    expect((await t.req('GET', `/policies/${big}`)).body.data.permissions).toHaveLength(105);
    expect((await t.req('GET', `/policies/${big}?fields=permissions.id`)).body.data.permissions).toHaveLength(100);
  });

  it('PATCH writes permissions through the alias: validated like /permissions, unlisted ones deleted', async () => {
    const id = (await t.req('POST', '/policies', { name: 'Nested', permissions: [{ collection: 'posts', action: 'read' }, { collection: 'posts', action: 'delete' }] })).body.data;
    const [read, del] = await q<{ id: number }>('select id from svc_permissions where policy = $1 order by id', [id]);
    const bad = await t.req('PATCH', `/policies/${id}`, { permissions: [read.id, { collection: 'ghost', action: 'read' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PAYLOAD', collection: 'svc_permissions', field: 'collection' });
    expect((await t.req('PATCH', `/policies/${id}`, { permissions: 'x' })).status).toBe(400);
    expect((await t.req('PATCH', `/policies/${id}`, { permissions: { upsert: [] } })).status).toBe(400);
    expect(await q('select id from svc_permissions where policy = $1 order by id', [id])).toEqual([{ id: read.id }, { id: del.id }]);

    const res = await t.req('PATCH', `/policies/${id}`, { permissions: [{ id: read.id, fields: ['id'] }, { collection: 'authors', action: 'read' }] });
    expect(res).toMatchObject({ status: 200, body: { data: id } });
    const after = (await t.req('GET', `/policies/${id}?fields=permissions.id,permissions.collection,permissions.fields`)).body.data.permissions;
    expect(after).toEqual([{ id: read.id, collection: 'posts', fields: ['id'] }, { id: expect.any(Number), collection: 'authors', fields: ['*'] }]);
    expect(await q('select 1 from svc_permissions where id = $1', [del.id])).toHaveLength(0);
  });

  it('app users filter and expand only the permissions they may read', async () => {
    const p = await createPrincipal(t.services, { token: 'o2m-app', permissions: [{ collection: 'authors', action: 'read' }], appAccess: true });
    const res = await t.req('GET', '/policies?filter[permissions][collection][_eq]=authors&fields=id,permissions.collection', undefined, { token: 'o2m-app' });
    expect(res.body).toEqual({ data: [{ id: p.policy, permissions: [{ collection: 'authors' }] }] });
    expect((await t.req('GET', `/policies/${authors}`, undefined, { token: 'o2m-app' })).status).toBe(403);
  });

  it('roles: filter by policies (svc_access rows), read policy ids or the access rows', async () => {
    const role = (await t.req('POST', '/roles', { name: 'O2M role', policies: [authors, posts] })).body.data;
    const other = (await t.req('POST', '/roles', { name: 'O2M other', policies: [empty] })).body.data;
    const byPolicy = await t.req('GET', `/roles?filter[policies][policy][_eq]=${posts}&fields=id,policies`);
    expect(byPolicy.body).toEqual({ data: [{ id: role, policies: [authors, posts] }] });
    const named = await t.req('GET', `/roles?filter[policies][policy][name][_eq]=O2M empty&fields=id`);
    expect(named.body).toEqual({ data: [{ id: other }] });
    const rows = await t.req('GET', `/roles/${role}?fields=policies.policy.name,policies.sort`);
    expect(rows.body).toEqual({ data: { policies: [{ policy: { name: 'O2M authors' }, sort: 1 }, { policy: { name: 'O2M posts' }, sort: 2 }] } });
    expect((await t.req('GET', `/roles/${role}`)).body.data.policies).toEqual([authors, posts]);
  });
});
