/** Every change to access (roles, policies, access rows, permissions, app permissions) is recorded in activity
 * and revisions by the same write, with the acting user, IP, user agent and origin, and read back through
 * GET /activity and GET /revisions; a refused write records nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';

let t: TestApp;
let admin: string;
let policyA: string;
let policyB: string;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);

const CLIENT = { 'user-agent': 'audit-agent/1.0', 'x-forwarded-for': '203.0.113.9', origin: 'https://admin.example' };
const as = (method: string, path: string, body?: unknown) => t.req(method, path, body, { headers: CLIENT });

interface ActivityRow { id: number; action: string; user: string | null; ip: string | null; user_agent: string | null; origin: string | null; timestamp: string; collection: string; item: string }
interface RevisionRow { id: number; activity: number; item: string; data: Record<string, any> | null; delta: Record<string, any> | null; parent: number | null }

/** The activity of one item, oldest first, through GET /activity. */
async function activityOf(collection: string, item: string | number): Promise<ActivityRow[]> {
  const res = await t.req('GET', `/activity?filter[collection][_eq]=${collection}&filter[item][_eq]=${item}&sort=id&fields=id,action,user,ip,user_agent,origin,timestamp,collection,item`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The revisions of one item, oldest first, through GET /revisions. */
async function revisionsOf(collection: string, item: string | number): Promise<RevisionRow[]> {
  const res = await t.req('GET', `/revisions?filter[collection][_eq]=${collection}&filter[item][_eq]=${item}&sort=id&fields=id,activity,item,data,delta,parent`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function lastActivityId(): Promise<number> {
  return Number((await q<{ n: number }>('select coalesce(max(id), 0)::int as n from svc_activity'))[0].n);
}

function byAdmin(rows: ActivityRow[], actions: string[]): void {
  expect(rows.map((r) => r.action)).toEqual(actions);
  for (const r of rows) {
    expect(r).toMatchObject({ user: admin, ip: '203.0.113.9', user_agent: 'audit-agent/1.0', origin: 'https://admin.example' });
    expect(Date.parse(r.timestamp)).toBeGreaterThan(Date.now() - 60_000);
  }
}

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  admin = (await t.req('GET', '/users/me?fields=id')).body.data.id;
  policyA = (await t.req('POST', '/policies', { name: 'Audit A' })).body.data;
  policyB = (await t.req('POST', '/policies', { name: 'Audit B' })).body.data;
});
afterAll(() => t.close());

describe('access changes are audited', () => {
  it('a permission granted, changed and revoked: three activity rows and two revisions', async () => {
    const created = await as('POST', '/permissions', { policy: policyA, collection: 'posts', action: 'read', fields: ['id', 'title'] });
    expect(created.status).toBe(200);
    const id = created.body.data as number;
    expect((await as('PATCH', `/permissions/${id}`, { fields: ['id'], permissions: { status: { _eq: 'published' } } })).status).toBe(200);
    expect((await as('DELETE', `/permissions/${id}`)).status).toBe(204);

    const activity = await activityOf('svc_permissions', id);
    byAdmin(activity, ['create', 'update', 'delete']);
    expect(activity.every((a) => a.item === String(id))).toBe(true);

    const revisions = await revisionsOf('svc_permissions', id);
    expect(revisions.map((r) => r.activity)).toEqual([activity[0].id, activity[1].id]);
    expect(revisions[0].data).toMatchObject({ id, policy: policyA, collection: 'posts', action: 'read', fields: ['id', 'title'], permissions: null });
    expect(revisions[0].delta).toMatchObject({ policy: policyA, collection: 'posts', action: 'read', fields: ['id', 'title'] });
    expect(revisions[1].delta).toEqual({ fields: ['id'], permissions: { status: { _eq: 'published' } } });
    expect(revisions[1].data).toMatchObject({ id, policy: policyA, fields: ['id'], permissions: { status: { _eq: 'published' } } });

    // "Who granted this, and when" from GET /activity alone: the revision expanded on the activity row.
    const who = await t.req('GET', `/activity?filter[collection][_eq]=svc_permissions&filter[item][_eq]=${id}&filter[action][_eq]=create&fields=user,timestamp,revisions.data`);
    expect(who.body.data).toEqual([{ user: admin, timestamp: activity[0].timestamp, revisions: [{ data: expect.objectContaining({ policy: policyA, collection: 'posts', action: 'read' }) }] }]);
  });

  it('a role: created with policies, its policies replaced, deleted; every access row and user change recorded', async () => {
    const role = (await as('POST', '/roles', { name: 'Audited role', policies: [policyA] })).body.data as string;
    const [first] = await q<{ id: string }>('select id from svc_access where role = $1', [role]);
    expect((await as('PATCH', `/roles/${role}`, { description: 'changed', policies: [policyB] })).status).toBe(200);
    const [second] = await q<{ id: string }>('select id from svc_access where role = $1', [role]);
    const user = (await t.req('POST', '/users', { email: 'role-member@example.com', role })).body.data as string;
    const child = (await t.req('POST', '/roles', { name: 'Audited child', parent: role })).body.data as string;
    const share = (await t.req('POST', '/shares', { collection: 'posts', item: '1', role })).body.data.id as string;
    expect((await t.req('PATCH', '/settings', { public_registration_role: role })).status).toBe(200);
    expect((await as('DELETE', `/roles/${role}`)).status).toBe(204);

    byAdmin(await activityOf('svc_roles', role), ['create', 'update', 'delete']);
    byAdmin(await activityOf('svc_access', first.id), ['create', 'delete']);
    byAdmin(await activityOf('svc_access', second.id), ['create', 'delete']);
    byAdmin((await activityOf('svc_users', user)).slice(1), ['update']);
    byAdmin((await activityOf('svc_roles', child)).slice(1), ['update']);
    byAdmin((await activityOf('svc_shares', share)).slice(1), ['delete']);
    byAdmin((await activityOf('svc_settings', 1)).slice(-1), ['update']);
    expect((await t.req('GET', '/settings?fields=public_registration_role')).body.data).toEqual({ public_registration_role: null });
    expect((await revisionsOf('svc_roles', child)).at(-1)!.delta).toEqual({ parent: null });

    const roleRevisions = await revisionsOf('svc_roles', role);
    expect(roleRevisions).toHaveLength(2);
    expect(roleRevisions[0].data).toMatchObject({ id: role, name: 'Audited role', description: null });
    expect(roleRevisions[1].delta).toEqual({ description: 'changed' });
    // The access rows are nested writes of the role: their revisions point at the role's.
    const [grantA] = await revisionsOf('svc_access', first.id);
    expect(grantA).toMatchObject({ parent: roleRevisions[0].id, data: { role, policy: policyA, user: null, sort: 1 } });
    const [grantB] = await revisionsOf('svc_access', second.id);
    expect(grantB).toMatchObject({ parent: roleRevisions[1].id, data: { role, policy: policyB, sort: 1 } });
    const userRevisions = await revisionsOf('svc_users', user);
    expect(userRevisions.at(-1)!.delta).toEqual({ role: null });
  });

  it('the Directus {create, delete} form of a role\'s policies is recorded too', async () => {
    const role = (await t.req('POST', '/roles', { name: 'Detailed' })).body.data as string;
    expect((await as('PATCH', `/roles/${role}`, { policies: { create: [{ policy: policyA }] } })).status).toBe(200);
    const [access] = await q<{ id: string }>('select id from svc_access where role = $1', [role]);
    expect((await as('PATCH', `/roles/${role}`, { policies: { delete: [access.id] } })).status).toBe(200);
    byAdmin(await activityOf('svc_access', access.id), ['create', 'delete']);
    expect(await q('select 1 from svc_access where role = $1', [role])).toHaveLength(0);
  });

  it('a policy: created with permissions, changed with nested permission writes, deleted with everything it held', async () => {
    const policy = (await as('POST', '/policies', { name: 'Audited policy', permissions: [{ collection: 'posts', action: 'read' }] })).body.data as string;
    const [perm] = await q<{ id: number }>('select id from svc_permissions where policy = $1', [policy]);
    const patched = await as('PATCH', `/policies/${policy}`, {
      name: 'Audited policy 2',
      permissions: { update: [{ id: perm.id, fields: ['id'] }], create: [{ collection: 'authors', action: 'read' }] },
    });
    expect(patched.status).toBe(200);
    const [added] = await q<{ id: number }>("select id from svc_permissions where policy = $1 and collection = 'authors'", [policy]);
    const role = (await as('POST', '/roles', { name: 'Holder', policies: [policy] })).body.data as string;
    const [access] = await q<{ id: string }>('select id from svc_access where role = $1', [role]);
    const app = (await as('POST', '/app-permissions', { policy, permission: 'versioning:view' })).body.data as number;
    expect((await as('DELETE', `/policies/${policy}`)).status).toBe(204);

    byAdmin(await activityOf('svc_policies', policy), ['create', 'update', 'delete']);
    byAdmin(await activityOf('svc_permissions', perm.id), ['create', 'update', 'delete']);
    byAdmin(await activityOf('svc_permissions', added.id), ['create', 'delete']);
    byAdmin(await activityOf('svc_access', access.id), ['create', 'delete']);
    byAdmin(await activityOf('svc_app_permissions', app), ['create', 'delete']);

    const policyRevisions = await revisionsOf('svc_policies', policy);
    expect(policyRevisions[1].delta).toEqual({ name: 'Audited policy 2' });
    const permRevisions = await revisionsOf('svc_permissions', perm.id);
    expect(permRevisions[0]).toMatchObject({ parent: policyRevisions[0].id, data: { policy, collection: 'posts', action: 'read', fields: ['*'] } });
    expect(permRevisions[1]).toMatchObject({ parent: policyRevisions[1].id, delta: { fields: ['id'] } });
    expect((await revisionsOf('svc_permissions', added.id))[0]).toMatchObject({ parent: policyRevisions[1].id, data: { collection: 'authors' } });
  });

  it('an access row created, changed and deleted', async () => {
    const role = (await t.req('POST', '/roles', { name: 'Access owner' })).body.data as string;
    const id = (await as('POST', '/access', { role, policy: policyA })).body.data as string;
    expect((await as('PATCH', `/access/${id}`, { policy: policyB, sort: 4 })).status).toBe(200);
    expect((await as('DELETE', `/access/${id}`)).status).toBe(204);
    byAdmin(await activityOf('svc_access', id), ['create', 'update', 'delete']);
    const revisions = await revisionsOf('svc_access', id);
    expect(revisions[0].data).toMatchObject({ id, role, policy: policyA, user: null });
    expect(revisions[1].delta).toEqual({ policy: policyB, sort: 4 });
  });

  it('an app permission granted, changed and revoked', async () => {
    const id = (await as('POST', '/app-permissions', { policy: policyA, permission: 'workflow:view' })).body.data as number;
    expect((await as('PATCH', `/app-permissions/${id}`, { action: 'start' })).status).toBe(200);
    expect((await as('DELETE', `/app-permissions/${id}`)).status).toBe(204);
    byAdmin(await activityOf('svc_app_permissions', id), ['create', 'update', 'delete']);
    const revisions = await revisionsOf('svc_app_permissions', id);
    expect(revisions[0].data).toMatchObject({ id, policy: policyA, module: 'workflow', action: 'view' });
    expect(revisions[1].delta).toEqual({ action: 'start' });
  });

  it('a refused write records nothing and changes nothing', async () => {
    const role = (await t.req('POST', '/roles', { name: 'Stable', description: 'before', policies: [policyA] })).body.data as string;
    const policy = (await t.req('POST', '/policies', { name: 'Stable policy', permissions: [{ collection: 'posts', action: 'read' }] })).body.data as string;
    const [perm] = await q<{ id: number }>('select id from svc_permissions where policy = $1', [policy]);
    const before = await lastActivityId();
    const refused: [string, string, unknown][] = [
      ['POST', '/permissions', { policy: policyA, collection: 'posts', action: 'publish' }],
      ['POST', '/permissions', { policy: policyA, collection: 'nope', action: 'read' }],
      ['PATCH', `/permissions/${perm.id}`, { permissions: { nope: { _eq: 1 } } }],
      // The role's own update would succeed; the unknown policy fails the nested access write: all rolled back.
      ['PATCH', `/roles/${role}`, { description: 'after', policies: ['00000000-0000-4000-8000-000000000000'] }],
      ['POST', '/roles', { name: 'Never', policies: ['00000000-0000-4000-8000-000000000000'] }],
      ['PATCH', `/policies/${policy}`, { name: 'Renamed', permissions: { create: [{ collection: 'posts', action: 'read' }, { collection: 'posts', action: 'bogus' }] } }],
      ['PATCH', `/policies/${policy}`, { permissions: { update: [{ id: perm.id, action: 'bogus' }] } }],
      ['POST', '/policies', { name: 'Never policy', permissions: [{ collection: 'posts', action: 'read' }, { collection: 'ghost', action: 'read' }] }],
      ['POST', '/access', { role, user: admin, policy: policyA }],
      ['POST', '/app-permissions', { policy: policyA, permission: 'workflow:fly' }],
    ];
    for (const [method, path, body] of refused) {
      const res = await as(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
    expect(await lastActivityId()).toBe(before);
    expect((await t.req('GET', `/roles/${role}?fields=description,policies`)).body.data).toEqual({ description: 'before', policies: [policyA] });
    expect((await t.req('GET', `/policies/${policy}?fields=name,permissions.action`)).body.data).toEqual({ name: 'Stable policy', permissions: [{ action: 'read' }] });
    expect(await q("select 1 from svc_roles where name = 'Never'")).toHaveLength(0);
    expect(await q("select 1 from svc_policies where name = 'Never policy'")).toHaveLength(0);
    // A non-admin's attempt is refused before anything is written.
    expect((await t.req('POST', '/permissions', { policy: policyA, collection: 'posts', action: 'read' }, { token: null })).status).toBe(403);
    expect(await lastActivityId()).toBe(before);
  });
});
