import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { hashPassword } from '../../core/auth/passwords.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
let role: string;

const anon = { token: null } as const;
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const shareAuth = (body: unknown, headers: Record<string, string> = {}) => t.req('POST', '/shares/auth', body, { token: null, headers });
const forbidden = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] };
const invalidCredentials = { errors: [{ message: 'Invalid user credentials.', extensions: { code: 'INVALID_CREDENTIALS' } }] };

async function addShare(fields: { item?: string; collection?: string; password?: string; date_start?: Date; date_end?: Date; max_uses?: number; times_used?: number } = {}) {
  const id = randomUUID();
  await run(t.services.database.db, `insert into svc_shares (id, collection, item, role, password, date_start, date_end, max_uses, times_used)
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
    id, fields.collection ?? 'posts', fields.item ?? '1', role, fields.password ? await hashPassword(fields.password) : null,
    fields.date_start ?? null, fields.date_end ?? null, fields.max_uses ?? null, fields.times_used ?? 0,
  ]);
  return id;
}

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services, { seed: true });
  // The share's role may read and write posts and authors: the share itself narrows that to one post, reads only.
  ({ role } = await createPrincipal(t.services, {
    token: 'share-role-user',
    permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'author'] },
      { collection: 'posts', action: 'update' },
      { collection: 'posts', action: 'create' },
      { collection: 'authors', action: 'read' },
    ],
  }));
});
afterAll(async () => { await t.close(); });

describe('POST /shares/auth', () => {
  it('returns tokens as Directus; the access token reads the shared item only, with the role\'s fields', async () => {
    const share = await addShare();
    const res = await shareAuth({ share });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['access_token', 'expires', 'refresh_token']);
    expect(res.body.data.expires).toBe(15 * 60 * 1000);
    const claims = JSON.parse(Buffer.from(res.body.data.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ role, share, share_scope: { collection: 'posts', item: '1' }, app_access: false, admin_access: false });
    expect(claims.id).toBeUndefined();
    const token = res.body.data.access_token;

    const one = await t.req('GET', '/items/posts/1', undefined, { token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ data: { id: 1, title: expect.any(String), author: expect.anything() } });
    const list = await t.req('GET', '/items/posts?fields=id&sort=id', undefined, { token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [{ id: 1 }] });
    // A filter cannot widen the scope.
    const widened = await t.req('GET', '/items/posts?fields=id&filter[id][_neq]=1', undefined, { token });
    expect(widened.body).toEqual({ data: [] });

    const [{ times_used }] = await run<{ times_used: number }>(t.services.database.db, 'select times_used from svc_shares where id = $1', [share]);
    expect(times_used).toBe(1);
    const [session] = await run<{ user: string | null; share: string }>(t.services.database.db,
      'select "user", share from svc_sessions where token = $1', [res.body.data.refresh_token]);
    expect(session).toEqual({ user: null, share });
  });

  it('refuses other items and collections (403) and every write (403), changing nothing', async () => {
    const { body: { data } } = await shareAuth({ share: await addShare() });
    const token = data.access_token;
    expect(await t.req('GET', '/items/posts/2', undefined, { token })).toMatchObject({ status: 403, body: forbidden });
    expect(await t.req('GET', '/items/authors', undefined, { token })).toMatchObject({ status: 403, body: forbidden });
    const before = await run(t.services.database.db, 'select id, title from posts order by id');
    expect(await t.req('PATCH', '/items/posts/1', { title: 'hacked' }, { token })).toMatchObject({ status: 403, body: forbidden });
    expect(await t.req('POST', '/items/posts', { title: 'new' }, { token })).toMatchObject({ status: 403, body: forbidden });
    expect(await t.req('DELETE', '/items/posts/1', undefined, { token })).toMatchObject({ status: 403, body: forbidden });
    expect(await run(t.services.database.db, 'select id, title from posts order by id')).toEqual(before);
    // No user behind a share.
    const me = await t.req('GET', '/auth/me', undefined, { token });
    expect(me.status).toBe(401);
  });

  it('checks the password: wrong or missing -> 401 INVALID_CREDENTIALS, right -> tokens', async () => {
    const share = await addShare({ password: 'share-secret' });
    expect(await shareAuth({ share, password: 'wrong' })).toMatchObject({ status: 401, body: invalidCredentials });
    expect(await shareAuth({ share })).toMatchObject({ status: 401, body: invalidCredentials });
    expect((await shareAuth({ share, password: 'share-secret' })).status).toBe(200);
    const [{ times_used }] = await run<{ times_used: number }>(t.services.database.db, 'select times_used from svc_shares where id = $1', [share]);
    expect(times_used).toBe(1);
  });

  it('refuses shares outside their dates, used up or unknown (401 INVALID_CREDENTIALS)', async () => {
    const hour = 3_600_000;
    const expired = await addShare({ date_end: new Date(Date.now() - hour) });
    const notYet = await addShare({ date_start: new Date(Date.now() + hour) });
    const usedUp = await addShare({ max_uses: 2, times_used: 2 });
    for (const share of [expired, notYet, usedUp, randomUUID()]) {
      expect(await shareAuth({ share })).toMatchObject({ status: 401, body: invalidCredentials });
    }
    const current = await addShare({ date_start: new Date(Date.now() - hour), date_end: new Date(Date.now() + hour) });
    expect((await shareAuth({ share: current })).status).toBe(200);
  });

  it('counts uses up to max_uses', async () => {
    const share = await addShare({ max_uses: 2 });
    expect((await shareAuth({ share })).status).toBe(200);
    expect((await shareAuth({ share })).status).toBe(200);
    expect(code(await shareAuth({ share }))).toBe('INVALID_CREDENTIALS');
    const [{ times_used }] = await run<{ times_used: number }>(t.services.database.db, 'select times_used from svc_shares where id = $1', [share]);
    expect(times_used).toBe(2);
  });

  it('rejects malformed bodies with 400 INVALID_PAYLOAD', async () => {
    for (const body of [undefined, {}, { share: 'not-a-uuid' }, { share: 42 }, { share: randomUUID(), password: 1 }, { share: randomUUID(), mode: 'x' }]) {
      const res = await shareAuth(body);
      expect({ status: res.status, code: code(res) }).toEqual({ status: 400, code: 'INVALID_PAYLOAD' });
    }
  });

  it('share sessions refresh into share tokens and are revoked by logout', async () => {
    const share = await addShare();
    const { body: { data } } = await shareAuth({ share });
    const refreshed = await t.req('POST', '/auth/refresh', { refresh_token: data.refresh_token }, anon);
    expect(refreshed.status).toBe(200);
    const claims = JSON.parse(Buffer.from(refreshed.body.data.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ share, role, share_scope: { collection: 'posts', item: '1' } });
    expect((await t.req('GET', '/items/posts/1', undefined, { token: refreshed.body.data.access_token })).status).toBe(200);
    expect((await t.req('POST', '/auth/logout', { refresh_token: refreshed.body.data.refresh_token }, anon)).status).toBe(204);
    expect(code(await t.req('POST', '/auth/refresh', { refresh_token: refreshed.body.data.refresh_token }, anon))).toBe('TOKEN_REVOKED');
  });

  it('session mode: the share token in the session cookie, revoked with its session', async () => {
    const share = await addShare();
    const res = await shareAuth({ share, mode: 'session' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['expires']);
    const cookie = /svc_session_token=([^;]+);/.exec(res.headers.get('set-cookie')!)![1];
    const read = await t.req('GET', '/items/posts/1?fields=id', undefined, { token: null, headers: { cookie: `svc_session_token=${cookie}` } });
    expect(read.body).toEqual({ data: { id: 1 } });
    await run(t.services.database.db, 'delete from svc_sessions where share = $1', [share]);
    const after = await t.req('GET', '/items/posts/1', undefined, { token: null, headers: { cookie: `svc_session_token=${cookie}` } });
    expect(after.status).toBe(401);
    expect(code(after)).toBe('TOKEN_REVOKED');
  });

  it('a forged share token (other scope, re-signed with a wrong key) is 401 INVALID_TOKEN', async () => {
    const { body: { data } } = await shareAuth({ share: await addShare() });
    const [h, p, s] = data.access_token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.share_scope = { collection: 'authors', item: '1' };
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    const res = await t.req('GET', '/items/authors/1', undefined, { token: forged });
    expect(res.status).toBe(401);
    expect(code(res)).toBe('INVALID_TOKEN');
  });
});
