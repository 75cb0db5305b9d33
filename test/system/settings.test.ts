/** GET/PATCH /settings and the read-only /activity and /revisions. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
let appUser: string;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const FORBIDDEN = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] };

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  appUser = (await createPrincipal(t.services, { token: 'set-app', appAccess: true, permissions: [{ collection: 'posts', action: 'create' }] })).user;
  await createPrincipal(t.services, { token: 'set-plain', permissions: [] });
});
afterAll(async () => t?.close());

describe('settings', () => {
  it('admins and app users read it; plain and anonymous callers do not', async () => {
    expect(await t.req('GET', '/settings?fields=id,project_name')).toMatchObject({ status: 200, body: { data: { id: 1, project_name: expect.any(String) } } });
    expect((await t.req('GET', '/settings?fields=auth_login_attempts', undefined, { token: 'set-app' })).body).toEqual({ data: { auth_login_attempts: 25 } });
    expect(await t.req('GET', '/settings', undefined, { token: 'set-plain' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('GET', '/settings', undefined, { token: null })).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  it('PATCH is admin-only and answers the settings', async () => {
    expect(await t.req('PATCH', '/settings', { project_name: 'x' }, { token: 'set-app' })).toMatchObject({ status: 403, body: FORBIDDEN });
    const res = await t.req('PATCH', '/settings?fields=project_name,project_color', { project_name: 'Renamed', project_color: '#000000' });
    expect(res.body).toEqual({ data: { project_name: 'Renamed', project_color: '#000000' } });
    expect((await t.req('PATCH', '/settings', { nope: 1 })).status).toBe(400);
    expect((await t.req('PATCH', '/settings', [1])).status).toBe(400);
  });

  it('changing public_role takes effect on the next anonymous request', async () => {
    const reader = await createPrincipal(t.services, { token: 'set-public-candidate', permissions: [{ collection: 'posts', action: 'read', fields: ['id'] }] });
    expect((await t.req('GET', '/items/posts?fields=id&limit=1', undefined, { token: null })).status).toBe(403);
    const [{ public_role: before }] = await q<{ public_role: string }>('select public_role from svc_settings');
    expect((await t.req('PATCH', '/settings', { public_role: reader.role })).status).toBe(200);
    expect(await t.req('GET', '/items/posts?fields=id&limit=1', undefined, { token: null })).toMatchObject({ status: 200, body: { data: [{ id: 1 }] } });
    await t.req('PATCH', '/settings', { public_role: before });
    expect((await t.req('GET', '/items/posts?fields=id&limit=1', undefined, { token: null })).status).toBe(403);
  });
});

describe('activity and revisions', () => {
  it('are listed with the query language; app users see only their own activity', async () => {
    const created = await t.req('POST', '/items/posts', { title: 'Tracked' }, { token: 'set-app' });
    const id = String(created.body.data);
    const mine = await t.req('GET', `/activity?fields=action,collection,item,user&filter[item][_eq]=${id}&filter[collection][_eq]=posts`, undefined, { token: 'set-app' });
    expect(mine.body).toEqual({ data: [{ action: 'create', collection: 'posts', item: id, user: appUser }] });
    await t.req('PATCH', '/items/posts/1', { title: 'By admin' });
    const others = await t.req('GET', '/activity?fields=id&filter[item][_eq]=1&filter[collection][_eq]=posts', undefined, { token: 'set-app' });
    expect(others.body).toEqual({ data: [] });
    const all = await t.req('GET', '/activity?fields=action,item&filter[collection][_eq]=posts&sort=-id&limit=1&meta=filter_count');
    expect(all.body).toEqual({ data: [{ action: 'update', item: '1' }], meta: { filter_count: 2 } });
    const [{ id: activityId }] = await q<{ id: number }>("select id from svc_activity where item = '1' and collection = 'posts'");
    expect((await t.req('GET', `/activity/${activityId}?fields=action`)).body).toEqual({ data: { action: 'update' } });
    expect((await t.req('GET', `/activity/${activityId}`, undefined, { token: 'set-plain' })).status).toBe(403);
    const rev = await t.req('GET', `/revisions?fields=activity,delta&filter[activity][_eq]=${activityId}`);
    expect(rev.body).toEqual({ data: [{ activity: activityId, delta: { title: 'By admin' } }] });
    expect((await t.req('GET', '/revisions', undefined, { token: 'set-app' })).status).toBe(403);
  });

  it('are read-only: no write routes exist', async () => {
    for (const [method, path] of [['POST', '/activity'], ['PATCH', '/activity/1'], ['DELETE', '/activity/1'], ['POST', '/revisions'], ['DELETE', '/revisions']]) {
      const res = await t.req(method, path, method === 'DELETE' ? undefined : {});
      expect(res.status).toBe(404);
    }
    expect(Number((await q('select count(*)::int as n from svc_activity'))[0].n)).toBeGreaterThan(0);
  });
});
