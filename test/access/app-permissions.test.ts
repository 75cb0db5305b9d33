/** App permissions: grant -> check true, revoke -> false; /app-permissions CRUD is admin-only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasAppPermission } from '../../core/access/app-permissions.ts';
import { authenticate } from '../../core/auth/authenticate.ts';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const FORBIDDEN = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] };
let reviewer: { user: string; role: string; policy: string };

async function check(token: string, permission: 'versioning:view' | 'workflow:start'): Promise<boolean> {
  const schema = await t.services.schema.get();
  const accountability = await authenticate(t.services, token, { ip: null, userAgent: null, origin: null }, schema.version);
  return hasAppPermission({ db: t.services.database.db, schema, accountability, config: t.services.config }, permission);
}

beforeAll(async () => {
  t = await createTestApp();
  reviewer = await createPrincipal(t.services, { token: 'reviewer', permissions: [], appAccess: true });
});
afterAll(() => t.close());

describe('app permissions', () => {
  it('grant -> check true and listed in /me; revoke -> false', async () => {
    expect(await check('reviewer', 'versioning:view')).toBe(false);
    expect((await t.req('GET', '/app-permissions/me', undefined, { token: 'reviewer' })).body).toEqual({ data: [] });
    const granted = await t.req('POST', '/app-permissions', { policy: reviewer.policy, permission: 'versioning:view' });
    expect(granted.status).toBe(200);
    const id = granted.body.data;
    const other = (await t.req('POST', '/app-permissions', { policy: reviewer.policy, module: 'workflow', action: 'start' })).body.data;
    expect(await check('reviewer', 'versioning:view')).toBe(true);
    expect(await check('reviewer', 'workflow:start')).toBe(true);
    expect((await t.req('GET', '/app-permissions/me', undefined, { token: 'reviewer' })).body).toEqual({ data: ['versioning:view', 'workflow:start'] });
    expect((await t.req('GET', `/app-permissions/${id}`)).body).toEqual({ data: { id, policy: reviewer.policy, module: 'versioning', action: 'view' } });
    expect((await t.req('GET', `/app-permissions?filter[policy][_eq]=${reviewer.policy}&fields=id&sort=id`)).body).toEqual({ data: [{ id }, { id: other }] });
    expect((await t.req('DELETE', `/app-permissions/${id}`)).status).toBe(204);
    expect(await check('reviewer', 'versioning:view')).toBe(false);
    expect((await t.req('GET', '/app-permissions/me', undefined, { token: 'reviewer' })).body).toEqual({ data: ['workflow:start'] });
    expect(await t.req('PATCH', `/app-permissions/${other}`, { action: 'view' })).toMatchObject({ status: 200, body: { data: other } });
    expect((await t.req('GET', '/app-permissions/me', undefined, { token: 'reviewer' })).body).toEqual({ data: ['workflow:view'] });
  });

  it('admins hold every app permission', async () => {
    expect(await check('static-admin-token', 'versioning:view')).toBe(true);
    expect((await t.req('GET', '/app-permissions/me')).body.data).toEqual([
      'versioning:view', 'versioning:create', 'versioning:manage', 'workflow:view', 'workflow:start', 'workflow:participate', 'workflow:manage',
    ]);
  });

  it('unknown module:action pairs -> 400; duplicates -> 409', async () => {
    for (const body of [{ policy: reviewer.policy, permission: 'versioning:start' }, { policy: reviewer.policy, module: 'files', action: 'view' }, { policy: reviewer.policy }]) {
      const res = await t.req('POST', '/app-permissions', body);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
    const [{ id }] = await q<{ id: number }>("select id from svc_app_permissions where policy = $1", [reviewer.policy]);
    expect((await t.req('PATCH', `/app-permissions/${id}`, { module: 'versioning', action: 'participate' })).status).toBe(400);
    const dup = await t.req('POST', '/app-permissions', { policy: reviewer.policy, permission: 'workflow:view' });
    expect(dup.status).toBe(409);
    expect(dup.body.errors[0].extensions.code).toBe('RECORD_NOT_UNIQUE');
  });

  it('non-admins cannot grant, change, revoke or list app permissions', async () => {
    const before = await q('select id, module, action from svc_app_permissions order by id');
    expect(await t.req('POST', '/app-permissions', { policy: reviewer.policy, permission: 'versioning:manage' }, { token: 'reviewer' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('GET', '/app-permissions', undefined, { token: 'reviewer' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('DELETE', `/app-permissions/${before[0].id}`, undefined, { token: 'reviewer' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await q('select id, module, action from svc_app_permissions order by id')).toEqual(before);
  });
});
