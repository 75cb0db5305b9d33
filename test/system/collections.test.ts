/** /notifications, /comments, /translations, /shares, /presets: CRUD through the real app, permissions for
 * non-admins (explicit records and the built-in app_access grants), automatic fields, hashed share passwords. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
let adminId: string;
let app: { user: string; role: string; policy: string };
let plain: { user: string; role: string; policy: string };
let other: { user: string; role: string; policy: string };
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const FORBIDDEN = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] };

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  [{ id: adminId }] = await q<{ id: string }>("select id from svc_users where email = 'admin@example.com'");
  app = await createPrincipal(t.services, { token: 'sys-app', appAccess: true, permissions: [] });
  plain = await createPrincipal(t.services, { token: 'sys-plain', permissions: [] });
  other = await createPrincipal(t.services, { token: 'sys-other', appAccess: true, permissions: [] });
});
afterAll(async () => t?.close());

describe('notifications', () => {
  it('admin creates, reads, updates and deletes; writes answer the record', async () => {
    const created = await t.req('POST', '/notifications?fields=recipient,subject,status', { recipient: app.user, subject: 'Hi', message: 'Body' });
    expect(created).toMatchObject({ status: 200, body: { data: { recipient: app.user, subject: 'Hi', status: 'inbox' } } });
    const [{ id }] = await q<{ id: number }>('select id from svc_notifications where subject = $1', ['Hi']);
    expect(await t.req('GET', `/notifications/${id}?fields=id,subject`)).toMatchObject({ status: 200, body: { data: { id, subject: 'Hi' } } });
    const patched = await t.req('PATCH', `/notifications/${id}?fields=status`, { status: 'archived' });
    expect(patched).toMatchObject({ status: 200, body: { data: { status: 'archived' } } });
    expect((await t.req('DELETE', `/notifications/${id}`)).status).toBe(204);
    expect(await q('select id from svc_notifications where id = $1', [id])).toEqual([]);
  });

  it('recipient (and subject) are required', async () => {
    const res = await t.req('POST', '/notifications', { subject: 'x' });
    expect(res).toEqual({ status: 400, headers: expect.anything(), body: { errors: [{ message: 'Invalid payload. "recipient" is required.', extensions: { code: 'INVALID_PAYLOAD', collection: 'svc_notifications', field: 'recipient' } }] } });
  });

  it('an app user reads only its own notifications; a plain user none', async () => {
    await t.req('POST', '/notifications', [{ recipient: app.user, subject: 'mine' }, { recipient: other.user, subject: 'theirs' }]);
    const mine = await t.req('GET', '/notifications?fields=subject,recipient', undefined, { token: 'sys-app' });
    expect(mine.body).toEqual({ data: [{ subject: 'mine', recipient: app.user }] });
    const [{ id }] = await q<{ id: number }>("select id from svc_notifications where subject = 'theirs'");
    expect(await t.req('GET', `/notifications/${id}`, undefined, { token: 'sys-app' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('GET', '/notifications', undefined, { token: 'sys-plain' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('GET', '/notifications', undefined, { token: null })).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  it('non-admins cannot write without an explicit permission', async () => {
    const res = await t.req('POST', '/notifications', { recipient: app.user, subject: 'spoof' }, { token: 'sys-app' });
    expect(res).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await q("select id from svc_notifications where subject = 'spoof'")).toEqual([]);
  });
});

describe('comments', () => {
  it('stamps user_created and date_created on create, user_updated on update, ignoring sent values', async () => {
    const res = await t.req('POST', '/comments?fields=id,comment,user_created,date_created', { collection: 'posts', item: '1', comment: 'Nice', user_created: app.user });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ comment: 'Nice', user_created: adminId });
    expect(Date.now() - Date.parse(res.body.data.date_created)).toBeLessThan(60_000);
    const id = res.body.data.id;
    const grant = await createPrincipal(t.services, { token: 'sys-commenter', appAccess: true, permissions: [
      { collection: 'svc_comments', action: 'update', fields: ['comment'] }, { collection: 'svc_comments', action: 'read' },
    ] });
    const patched = await t.req('PATCH', `/comments/${id}?fields=comment,user_created,user_updated`, { comment: 'Edited' }, { token: 'sys-commenter' });
    expect(patched.body).toEqual({ data: { comment: 'Edited', user_created: adminId, user_updated: grant.user } });
  });

  it('comment, collection and item are required', async () => {
    const res = await t.req('POST', '/comments', { collection: 'posts' });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => e.extensions.field)).toEqual(['item', 'comment']);
  });

  it('batch update and delete on the collection path', async () => {
    const created = await t.req('POST', '/comments?fields=id', [
      { collection: 'posts', item: '2', comment: 'a' }, { collection: 'posts', item: '2', comment: 'b' },
    ]);
    const ids = created.body.data.map((r: any) => r.id);
    const patched = await t.req('PATCH', '/comments?fields=comment', { keys: ids, data: { comment: 'c' } });
    expect(patched.body).toEqual({ data: [{ comment: 'c' }, { comment: 'c' }] });
    expect((await t.req('DELETE', '/comments', { query: { filter: { item: { _eq: '2' } } } })).status).toBe(204);
    expect(await q("select id from svc_comments where item = '2'")).toEqual([]);
  });
});

describe('translations', () => {
  it('CRUD, unique language+key, read for app users (shared) but not for plain users', async () => {
    const res = await t.req('POST', '/translations?fields=language,key,value', { language: 'en-US', key: 'hello', value: 'Hello' });
    expect(res.body).toEqual({ data: { language: 'en-US', key: 'hello', value: 'Hello' } });
    const dup = await t.req('POST', '/translations', { language: 'en-US', key: 'hello', value: 'Again' });
    expect(dup.status).toBe(409);
    expect((await t.req('GET', '/translations?fields=key', undefined, { token: 'sys-app' })).body).toEqual({ data: [{ key: 'hello' }] });
    expect((await t.req('GET', '/translations', undefined, { token: 'sys-plain' })).status).toBe(403);
    expect((await t.req('PATCH', '/translations', [{ id: res.body.data.id ?? 'x', value: 'y' }], { token: 'sys-app' })).status).toBe(403);
  });
});

describe('shares', () => {
  it('hashes the password and never returns it in clear; app users read their own shares', async () => {
    const res = await t.req('POST', '/shares?fields=id,password,user_created', { collection: 'posts', item: '1', password: 'sesame', name: 'mine' });
    expect(res.body.data).toMatchObject({ password: '**********', user_created: adminId });
    const [row] = await q<{ password: string }>('select password from svc_shares where id = $1', [res.body.data.id]);
    expect(row.password).toMatch(/^\$argon2/);
    await q('insert into svc_shares (id, collection, item, user_created) values (gen_random_uuid(), $1, $2, $3)', ['posts', '2', app.user]);
    const own = await t.req('GET', '/shares?fields=item,user_created', undefined, { token: 'sys-app' });
    expect(own.body).toEqual({ data: [{ item: '2', user_created: app.user }] });
    const searched = await t.req('GET', '/shares?search=sesame&fields=id');
    expect(searched.body).toEqual({ data: [] });
  });

  it('collection and item are required', async () => {
    expect((await t.req('POST', '/shares', { name: 'x' })).status).toBe(400);
  });
});

describe('presets', () => {
  it('app users read own and global presets, create their own only', async () => {
    await q(`insert into svc_presets ("user", role, collection, bookmark) values
      ($1, null, 'posts', 'own'), ($2, null, 'posts', 'foreign'), (null, $3, 'posts', 'my role'), (null, $4, 'posts', 'other role'), (null, null, 'posts', 'global')`,
    [app.user, other.user, app.role, plain.role]);
    const list = await t.req('GET', '/presets?fields=bookmark&sort=id', undefined, { token: 'sys-app' });
    expect(list.body).toEqual({ data: [{ bookmark: 'own' }, { bookmark: 'my role' }, { bookmark: 'global' }] });

    const created = await t.req('POST', '/presets?fields=user,bookmark', { collection: 'posts', bookmark: 'new' }, { token: 'sys-app' });
    expect(created.body).toEqual({ data: { user: app.user, bookmark: 'new' } });
    const foreign = await t.req('POST', '/presets', { collection: 'posts', user: other.user, bookmark: 'x' }, { token: 'sys-app' });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0].extensions).toEqual({ code: 'INVALID_PAYLOAD', field: 'user', type: '_eq' });
    const global = await t.req('POST', '/presets', { collection: 'posts', user: null, bookmark: 'x' }, { token: 'sys-app' });
    expect(global.status).toBe(400);
    expect(await q("select id from svc_presets where bookmark = 'x'")).toEqual([]);
    expect((await t.req('DELETE', '/presets', { query: { filter: {} } }, { token: 'sys-app' })).status).toBe(403);
  });
});

describe('routing', () => {
  it('/items/svc_* stays admin-only even where a system endpoint allows the read', async () => {
    expect(await t.req('GET', '/items/svc_translations', undefined, { token: 'sys-app' })).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  it('unknown keys are FORBIDDEN as Directus answers', async () => {
    expect((await t.req('GET', '/notifications/999999')).status).toBe(403);
    expect((await t.req('GET', '/comments/not-a-uuid')).status).toBe(403);
  });

  it('nested reads into svc_users follow permissions: own row with limited fields for app users', async () => {
    await q('insert into svc_notifications (recipient, subject) values ($1, $2)', [app.user, 'nested']);
    const res = await t.req('GET', '/notifications?fields=subject,recipient.email,recipient.id&filter[subject][_eq]=nested', undefined, { token: 'sys-app' });
    expect(res.body).toEqual({ data: [{ subject: 'nested', recipient: { email: 'sys-app@example.com', id: app.user } }] });
    // Fields outside the permission are removed from the nested record, as at the top level.
    const secret = await t.req('GET', '/notifications?fields=recipient.id,recipient.token,recipient.password&filter[subject][_eq]=nested', undefined, { token: 'sys-app' });
    expect(secret.body).toEqual({ data: [{ recipient: { id: app.user } }] });
    // A plain user (no app_access) has no built-in read of svc_users.
    await q('insert into svc_permissions (policy, collection, action, fields) values ($1, $2, $3, $4)', [plain.policy, 'svc_notifications', 'read', '["*"]']);
    await t.services.schema.invalidate();
    const denied = await t.req('GET', '/notifications?fields=recipient.email&limit=1', undefined, { token: 'sys-plain' });
    expect(denied).toMatchObject({ status: 403, body: FORBIDDEN });
  });
});
