/** /roles and /access: admin writes with policies lists, nested roles, protected roles, reads under permissions. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const FORBIDDEN = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] };
let policyA: string;
let policyB: string;
let app: { user: string; role: string; policy: string };

beforeAll(async () => {
  t = await createTestApp();
  policyA = (await t.req('POST', '/policies', { name: 'A' })).body.data;
  policyB = (await t.req('POST', '/policies', { name: 'B' })).body.data;
  app = await createPrincipal(t.services, { token: 'app-user', permissions: [], appAccess: true });
  await createPrincipal(t.services, { token: 'plain-user', permissions: [] });
});
afterAll(() => t.close());

describe('/roles', () => {
  it('creates a role with policies and reads it back with its policies list', async () => {
    const res = await t.req('POST', '/roles', { name: 'Editors', icon: 'edit', app_access: true, policies: [policyA, policyB] });
    expect(res.status).toBe(200);
    const id = res.body.data;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const one = await t.req('GET', `/roles/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id, name: 'Editors', icon: 'edit', app_access: true, admin_access: false, parent: null, protected: false });
    expect(one.body.data.policies).toEqual([policyA, policyB]);
    const only = await t.req('GET', `/roles/${id}?fields=name,policies`);
    expect(only.body).toEqual({ data: { name: 'Editors', policies: [policyA, policyB] } });
    const list = await t.req('GET', `/roles?filter[name][_eq]=Editors&fields=id,name`);
    expect(list.body).toEqual({ data: [{ id, name: 'Editors' }] });
  });

  it('PATCH replaces the policies list; Directus {create, delete} form adds and removes access rows', async () => {
    const id = (await t.req('POST', '/roles', { name: 'Swap', policies: [policyA] })).body.data;
    expect(await t.req('PATCH', `/roles/${id}`, { policies: [policyB], description: 'x' })).toMatchObject({ status: 200, body: { data: id } });
    expect((await t.req('GET', `/roles/${id}?fields=policies,description`)).body.data).toEqual({ policies: [policyB], description: 'x' });
    const [access] = await q<{ id: string }>('select id from svc_access where role = $1', [id]);
    await t.req('PATCH', `/roles/${id}`, { policies: { create: [{ policy: policyA }], delete: [access.id] } });
    expect((await t.req('GET', `/roles/${id}?fields=policies`)).body.data.policies).toEqual([policyA]);
  });

  it('a role change takes effect for its users at once (access caches are invalidated)', async () => {
    const before = await t.req('GET', '/permissions/me', undefined, { token: 'plain-user' });
    expect(before.body).toEqual({ data: {} });
    const role = (await q<{ role: string }>("select role from svc_users where token = 'plain-user'"))[0].role;
    await q("insert into svc_permissions (policy, collection, action, fields) values ($1, 'svc_roles', 'read', '[\"*\"]')", [policyA]);
    await t.services.schema.invalidate();
    expect((await t.req('PATCH', `/roles/${role}`, { policies: [policyA] })).status).toBe(200);
    const after = await t.req('GET', '/permissions/me', undefined, { token: 'plain-user' });
    expect(after.body.data.svc_roles.read.access).toBe('full');
    await q("delete from svc_permissions where policy = $1 and collection = 'svc_roles'", [policyA]);
    await t.req('PATCH', `/roles/${role}`, { policies: [] });
  });

  it('nested roles: parent accepted, cycles refused with 400 and nothing changed', async () => {
    const parent = (await t.req('POST', '/roles', { name: 'Parent' })).body.data;
    const child = (await t.req('POST', '/roles', { name: 'Child', parent })).body.data;
    expect((await t.req('GET', `/roles/${child}?fields=parent`)).body.data).toEqual({ parent });
    const res = await t.req('PATCH', `/roles/${parent}`, { parent: child });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PAYLOAD', field: 'parent' });
    expect((await t.req('GET', `/roles/${parent}?fields=parent`)).body.data).toEqual({ parent: null });
    expect((await t.req('PATCH', `/roles/${parent}`, { parent })).status).toBe(400);
  });

  it('protected roles cannot be deleted: 422', async () => {
    const [admin] = await q<{ id: string }>("select id from svc_roles where name = 'Administrator'");
    const res = await t.req('DELETE', `/roles/${admin.id}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: [{ message: 'Cannot delete a protected role', extensions: { code: 'UNPROCESSABLE_CONTENT' } }] });
    expect(await q('select 1 from svc_roles where id = $1', [admin.id])).toHaveLength(1);
  });

  it('deleting a role leaves its users without a role and removes its access rows', async () => {
    const role = (await t.req('POST', '/roles', { name: 'Doomed', policies: [policyA] })).body.data;
    await q("insert into svc_users (id, email, role, status) values (gen_random_uuid(), 'doomed@example.com', $1, 'active')", [role]);
    expect((await t.req('DELETE', `/roles/${role}`)).status).toBe(204);
    expect((await q("select role from svc_users where email = 'doomed@example.com'"))[0].role).toBeNull();
    expect(await q('select 1 from svc_access where role = $1', [role])).toHaveLength(0);
    expect(await t.req('DELETE', `/roles/${role}`)).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  it('bad input: unknown field, bad policy id, unknown policy -> 400; body not an object -> 400', async () => {
    expect((await t.req('POST', '/roles', { name: 'X', nope: 1 })).body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect((await t.req('POST', '/roles', { name: 'X', policies: ['not-a-uuid'] })).body.errors[0].extensions).toMatchObject({ code: 'INVALID_PAYLOAD', field: 'policies' });
    const res = await t.req('POST', '/roles', { name: 'Ghost', policies: ['00000000-0000-4000-8000-000000000000'] });
    expect(res.status).toBe(400);
    expect(await q("select 1 from svc_roles where name = 'Ghost'")).toHaveLength(0);
    expect((await t.req('POST', '/roles', [1])).status).toBe(400);
  });

  it('non-admins cannot write roles: 403, nothing changed', async () => {
    for (const token of ['app-user', 'plain-user', null]) {
      expect(await t.req('POST', '/roles', { name: 'Sneaky' }, { token })).toMatchObject({ status: 403, body: FORBIDDEN });
      expect(await t.req('PATCH', `/roles/${app.role}`, { admin_access: true }, { token })).toMatchObject({ status: 403, body: FORBIDDEN });
      expect(await t.req('DELETE', `/roles/${app.role}`, undefined, { token })).toMatchObject({ status: 403, body: FORBIDDEN });
    }
    expect(await q("select 1 from svc_roles where name = 'Sneaky'")).toHaveLength(0);
    expect((await q('select admin_access from svc_roles where id = $1', [app.role]))[0].admin_access).toBe(false);
  });

  it('app users read their own roles only; users without app access get 403, the public 401', async () => {
    const list = await t.req('GET', '/roles?fields=id,name,policies', undefined, { token: 'app-user' });
    expect(list).toMatchObject({ status: 200, body: { data: [{ id: app.role, name: 'role-app-user', policies: [app.policy] }] } });
    const [admin] = await q<{ id: string }>("select id from svc_roles where name = 'Administrator'");
    expect(await t.req('GET', `/roles/${admin.id}`, undefined, { token: 'app-user' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('GET', '/roles', undefined, { token: 'plain-user' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('GET', '/roles', undefined, { token: null })).toMatchObject({ status: 401 }); // SPEC.md: Auth
  });
});

describe('/access', () => {
  it('creates, reads, updates and deletes access rows (exactly one of role and user)', async () => {
    const role = (await t.req('POST', '/roles', { name: 'AccessRole' })).body.data;
    const created = await t.req('POST', '/access', { role, policy: policyA, sort: 3 });
    expect(created.status).toBe(200);
    const id = created.body.data;
    expect((await t.req('GET', `/access/${id}`)).body).toEqual({ data: { id, role, user: null, policy: policyA, sort: 3 } });
    expect((await t.req('GET', `/access?filter[role][_eq]=${role}&fields=policy`)).body).toEqual({ data: [{ policy: policyA }] });
    expect(await t.req('PATCH', `/access/${id}`, { policy: policyB })).toMatchObject({ status: 200, body: { data: id } });
    const both = await t.req('PATCH', `/access/${id}`, { user: app.user });
    expect(both.status).toBe(400);
    expect(both.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect((await t.req('POST', '/access', { policy: policyA })).status).toBe(400);
    expect((await t.req('POST', '/access', { role, user: app.user, policy: policyA })).status).toBe(400);
    expect((await t.req('DELETE', `/access/${id}`)).status).toBe(204);
    expect(await t.req('GET', `/access/${id}`)).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  it('a direct user policy applies to the user (policies merged with the role\'s)', async () => {
    const user = await createPrincipal(t.services, { token: 'direct-user', permissions: [], appAccess: false });
    const policy = (await t.req('POST', '/policies', { name: 'Direct', app_access: true })).body.data;
    expect((await t.req('GET', '/roles', undefined, { token: 'direct-user' })).status).toBe(403);
    expect((await t.req('POST', '/access', { user: user.user, policy })).status).toBe(200);
    const roles = await t.req('GET', '/roles?fields=id', undefined, { token: 'direct-user' });
    expect(roles.body).toEqual({ data: [{ id: user.role }] });
    const access = await t.req('GET', '/access?fields=policy&sort=policy', undefined, { token: 'direct-user' });
    expect(access.body.data.map((r: any) => r.policy).sort()).toEqual([policy, user.policy].sort());
  });

  it('non-admins cannot write access rows', async () => {
    const res = await t.req('POST', '/access', { user: app.user, policy: policyA }, { token: 'app-user' });
    expect(res).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await q('select 1 from svc_access where "user" = $1', [app.user])).toHaveLength(0);
  });
});
