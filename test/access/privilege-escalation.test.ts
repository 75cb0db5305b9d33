/** An app-access user tries every route that could make it an administrator; each is refused and nothing
 * about its access changes. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
let me: { user: string; role: string; policy: string };
let admin: { policy: string; role: string; uid: string };

beforeAll(async () => {
  t = await createTestApp();
  me = await createPrincipal(t.services, { token: 'climber', permissions: [], appAccess: true });
  [admin] = await run<{ policy: string; role: string; uid: string }>(t.services.database.db, `
    select p.id as policy, r.id as role, u.id as uid from svc_users u join svc_roles r on r.id = u.role
    join svc_access a on a.role = r.id join svc_policies p on p.id = a.policy where u.email = 'admin@example.com'`);
});
afterAll(async () => { await t.close(); });

it.each([
  ['PATCH', '/settings', () => ({ public_role: admin.role })],
  ['POST', '/roles', () => ({ name: 'x', admin_access: true })],
  ['PATCH', '/roles/{myRole}', () => ({ admin_access: true })],
  ['PATCH', '/roles/{myRole}', () => ({ policies: [admin.policy] })],
  ['POST', '/policies', () => ({ name: 'x', admin_access: true })],
  ['PATCH', '/policies/{myPolicy}', () => ({ admin_access: true })],
  ['POST', '/permissions', () => ({ policy: me.policy, collection: 'svc_users', action: 'update', fields: ['*'] })],
  ['POST', '/access', () => ({ user: me.user, policy: admin.policy })],
  ['POST', '/items/svc_access', () => ({ user: me.user, policy: admin.policy })],
  ['PATCH', '/items/svc_users/{me}', () => ({ role: admin.role })],
  ['PATCH', '/users/{me}', () => ({ role: admin.role })],
  ['POST', '/users', () => ({ email: 'evil@example.com', role: admin.role, password: 'x-password-1' })],
  ['DELETE', '/users/{admin}', () => undefined],
  ['POST', '/app-permissions', () => ({ policy: me.policy, module: 'versioning', action: 'manage' })],
  ['POST', '/auth/impersonate', () => ({ user: admin.uid })],
  ['POST', '/collections', () => ({ collection: 'evil' })],
  ['DELETE', '/collections/svc_users', () => undefined],
  ['POST', '/shares', () => ({ collection: 'svc_users', item: admin.uid, role: admin.role })],
])('%s %s is 403', async (method, path, body) => {
  const url = path.replace('{myRole}', me.role).replace('{myPolicy}', me.policy).replace('{me}', me.user).replace('{admin}', admin.uid);
  const r = await t.req(method, url, body(), { token: 'climber' });
  expect(r.status).toBe(403);
  expect(r.body.errors[0].extensions.code).toBe('FORBIDDEN');
});

it('PATCH /users/me drops role, status and admin flags silently', async () => {
  const r = await t.req('PATCH', '/users/me', { role: admin.role, status: 'active', admin_access: true, first_name: 'Climber' }, { token: 'climber' });
  expect(r.status).toBe(200);
  const [row] = await run<{ role: string; first_name: string }>(t.services.database.db, 'select role, first_name from svc_users where id = $1', [me.user]);
  expect(row).toEqual({ role: me.role, first_name: 'Climber' });
});

it('leaves the climber exactly as it was', async () => {
  const db = t.services.database.db;
  const [role] = await run<{ admin_access: boolean }>(db, 'select admin_access from svc_roles where id = $1', [me.role]);
  expect(role.admin_access).toBe(false);
  const [access] = await run<{ n: number }>(db, 'select count(*)::int as n from svc_access where "user" = $1 or (role = $2 and policy = $3)', [me.user, me.role, admin.policy]);
  expect(access.n).toBe(0);
  const [policy] = await run<{ admin_access: boolean }>(db, 'select admin_access from svc_policies where id = $1', [me.policy]);
  expect(policy.admin_access).toBe(false);
  expect((await t.req('GET', '/items/svc_users', undefined, { token: 'climber' })).status).toBe(403);
});
