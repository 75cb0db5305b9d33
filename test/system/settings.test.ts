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

describe('settings refused before anything is written', () => {
  // Each payload is refused with the field it names; a good value of each is taken.
  const CASES: { name: string; payload: Record<string, unknown>; field: string; message: RegExp }[] = [
    { name: 'a password policy that is not a regular expression', payload: { auth_password_policy: '/^(.{8,}$/' }, field: 'auth_password_policy', message: /not a valid regular expression/ },
    { name: 'a bare pattern that does not compile', payload: { auth_password_policy: '[a-' }, field: 'auth_password_policy', message: /not a valid regular expression/ },
    { name: 'presets that are not a list', payload: { storage_asset_presets: { key: 'x' } }, field: 'storage_asset_presets', message: /must be a list/ },
    { name: 'a preset without a key', payload: { storage_asset_presets: [{ width: 10 }] }, field: 'storage_asset_presets', message: /needs a key/ },
    { name: 'a preset key of the built-in ones', payload: { storage_asset_presets: [{ key: 'system-small-cover', width: 10 }] }, field: 'storage_asset_presets', message: /reserved/ },
    { name: 'two presets with one key', payload: { storage_asset_presets: [{ key: 'card', width: 10 }, { key: 'card', width: 20 }] }, field: 'storage_asset_presets', message: /Two presets/ },
    { name: 'a preset no asset request could use', payload: { storage_asset_presets: [{ key: 'card', fit: 'squash' }] }, field: 'storage_asset_presets', message: /Preset "card": invalid "fit"/ },
    { name: 'a preset wider than the transform limit', payload: { storage_asset_presets: [{ key: 'huge', width: 60000 }] }, field: 'storage_asset_presets', message: /"width"/ },
    { name: 'a color that is not hex', payload: { project_color: 'purple' }, field: 'project_color', message: /hex color/ },
    { name: 'login attempts below one', payload: { auth_login_attempts: 0 }, field: 'auth_login_attempts', message: /at least 1/ },
    { name: 'an email domain list with an address', payload: { public_registration_email_filter: ['example.com', 'ada@example.org'] }, field: 'public_registration_email_filter', message: /"ada@example.org" is not an email domain/ },
  ];
  it.each(CASES)('refuses $name (400, the field named, nothing written)', async ({ payload, field, message }) => {
    const before = (await t.req('GET', '/settings')).body.data;
    const res = await t.req('PATCH', '/settings', { project_name: 'Not written', ...payload });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ extensions: { code: 'INVALID_PAYLOAD', field } });
    expect(res.body.errors[0].message).toMatch(message);
    expect((await t.req('GET', '/settings')).body.data).toEqual(before);
  });

  it('names every refused field at once', async () => {
    const res = await t.req('PATCH', '/settings', { project_color: 'x', auth_login_attempts: -1 });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { extensions: { field: string } }) => e.extensions.field).sort()).toEqual(['auth_login_attempts', 'project_color']);
  });

  it('takes good values: a policy, presets, a color, no login limit, domains or a filter object', async () => {
    const res = await t.req('PATCH', '/settings?fields=auth_password_policy,storage_asset_presets,project_color,auth_login_attempts,public_registration_email_filter', {
      auth_password_policy: '/^.{8,}$/', storage_asset_presets: [{ key: 'card', fit: 'cover', width: 400, height: 300, quality: 80, format: 'webp', withoutEnlargement: true }],
      project_color: '#0A7', auth_login_attempts: null, public_registration_email_filter: ['example.com', '@example.org'],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ auth_password_policy: '/^.{8,}$/', project_color: '#0A7', auth_login_attempts: null });
    expect((await t.req('PATCH', '/settings', { public_registration_email_filter: { email: { _ends_with: '@example.com' } } })).status).toBe(200);
    await t.req('PATCH', '/settings', { auth_password_policy: null, auth_login_attempts: 25, public_registration_email_filter: null });
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
