/** /permissions: admin CRUD with validation, /permissions/me merged across a role chain and direct policies. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const FORBIDDEN = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] };
let policy: string;

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  policy = (await t.req('POST', '/policies', { name: 'P' })).body.data;
});
afterAll(() => t.close());

describe('/permissions', () => {
  it('creates, reads, lists, updates and deletes a permission', async () => {
    const res = await t.req('POST', '/permissions', {
      policy, collection: 'posts', action: 'read', fields: 'id,title', permissions: { status: { _eq: 'published' } }, presets: null,
    });
    expect(res.status).toBe(200);
    const id = res.body.data;
    expect(typeof id).toBe('number');
    expect((await t.req('GET', `/permissions/${id}`)).body).toEqual({ data: {
      id, policy, collection: 'posts', action: 'read', fields: ['id', 'title'], permissions: { status: { _eq: 'published' } }, validation: null, presets: null,
    } });
    expect((await t.req('GET', `/permissions?filter[policy][_eq]=${policy}&fields=id`)).body).toEqual({ data: [{ id }] });
    expect(await t.req('PATCH', `/permissions/${id}`, { fields: ['*'] })).toMatchObject({ status: 200, body: { data: id } });
    expect((await t.req('GET', `/permissions/${id}?fields=fields`)).body.data).toEqual({ fields: ['*'] });
    expect((await t.req('DELETE', `/permissions/${id}`)).status).toBe(204);
    expect(await t.req('GET', `/permissions/${id}`)).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  it('validates collection, action, filters and fields: 400 naming the field, nothing stored', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ collection: 'nope', action: 'read' }, 'collection'],
      [{ collection: 'posts', action: 'fly' }, 'action'],
      [{ collection: 'posts', action: 'read', permissions: { nope: { _eq: 1 } } }, 'permissions'],
      [{ collection: 'posts', action: 'read', permissions: { title: { _bogus: 1 } } }, 'permissions'],
      [{ collection: 'posts', action: 'create', validation: [1] }, 'validation'],
      [{ collection: 'posts', action: 'read', fields: [1] }, 'fields'],
      [{ collection: 'posts', action: 'read', presets: 'x' }, 'presets'],
      [{ collection: 'posts', action: 'read' }, 'policy'],
    ];
    for (const [body, field] of cases) {
      const payload = field === 'policy' ? body : { policy, ...body };
      const res = await t.req('POST', '/permissions', payload);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PAYLOAD', field });
    }
    expect(await q('select 1 from svc_permissions where policy = $1', [policy])).toHaveLength(0);
    expect((await t.req('POST', '/permissions', { policy: '00000000-0000-4000-8000-000000000000', collection: 'posts', action: 'read' })).status).toBe(400);
  });

  it('a non-admin writing or listing svc_permissions gets 403 and nothing changes', async () => {
    const p = await createPrincipal(t.services, { token: 'perm-app', permissions: [], appAccess: true });
    const escalate = { policy: p.policy, collection: 'posts', action: 'delete' };
    expect(await t.req('POST', '/permissions', escalate, { token: 'perm-app' })).toMatchObject({ status: 403, body: FORBIDDEN });
    const [{ id }] = await q("insert into svc_permissions (policy, collection, action, fields) values ($1, 'posts', 'read', '[\"id\"]') returning id", [p.policy]);
    await t.services.schema.invalidate();
    expect(await t.req('PATCH', `/permissions/${id}`, { fields: ['*'] }, { token: 'perm-app' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('DELETE', `/permissions/${id}`, undefined, { token: 'perm-app' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('GET', '/permissions', undefined, { token: 'perm-app' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await q('select fields from svc_permissions where policy = $1', [p.policy])).toEqual([{ fields: ['id'] }]);
  });
});

describe('/permissions/me', () => {
  it('merges the policies of the role, its parent role and the user: filters OR-combined, fields intersected', async () => {
    const parentPolicy = (await t.req('POST', '/policies', { name: 'ParentP', permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'status'], permissions: { status: { _eq: 'published' } } },
      { collection: 'authors', action: 'read', fields: ['*'] },
    ] })).body.data;
    const childPolicy = (await t.req('POST', '/policies', { name: 'ChildP', app_access: true, permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'body'], permissions: { author: { _eq: '$CURRENT_USER' } } },
      { collection: 'posts', action: 'create', fields: ['title'], presets: { status: 'draft' }, validation: { title: { _nempty: true } } },
    ] })).body.data;
    const userPolicy = (await t.req('POST', '/policies', { name: 'UserP', permissions: [{ collection: 'tags', action: 'read' }] })).body.data;
    const parent = (await t.req('POST', '/roles', { name: 'ParentRole', policies: [parentPolicy] })).body.data;
    const child = (await t.req('POST', '/roles', { name: 'ChildRole', parent, policies: [childPolicy] })).body.data;
    const user = (await q("insert into svc_users (id, email, role, status, token) values (gen_random_uuid(), 'merged@example.com', $1, 'active', 'merged-token') returning id", [child]))[0].id;
    await t.req('POST', '/access', { user, policy: userPolicy });

    const res = await t.req('GET', '/permissions/me', undefined, { token: 'merged-token' });
    expect(res.status).toBe(200);
    const me = res.body.data;
    expect(me.posts.read).toEqual({
      access: 'partial', fields: ['id', 'title'],
      permissions: { _or: expect.arrayContaining([{ status: { _eq: 'published' } }, { author: { _eq: '$CURRENT_USER' } }]) },
      validation: null, presets: null,
    });
    expect(me.posts.create).toEqual({ access: 'full', fields: ['title'], permissions: null, validation: { title: { _nempty: true } }, presets: { status: 'draft' } });
    expect(me.authors).toEqual({ read: { access: 'full', fields: ['*'], permissions: null, validation: null, presets: null } });
    expect(me.tags.read.access).toBe('full');
    expect(me.posts.delete).toBeUndefined();
    // app access (from the child's policy) brings the built-in grants, e.g. its own roles.
    expect(me.svc_roles.read.access).toBe('partial');
    const roles = await t.req('GET', '/roles?fields=id&sort=name', undefined, { token: 'merged-token' });
    expect(roles.body.data.map((r: any) => r.id).sort()).toEqual([child, parent].sort());
  });

  it('admins get full access everywhere', async () => {
    const me = (await t.req('GET', '/permissions/me')).body.data;
    expect(me.posts.delete).toEqual({ access: 'full', fields: ['*'], permissions: null, validation: null, presets: null });
    expect(me.svc_users.update.access).toBe('full');
  });
});
