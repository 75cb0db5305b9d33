/** A user's own in-app notifications (svc_notifications): app users move their own notifications between the inbox
 * and the archive without an explicit permission, one by key, several by keys, or all by a query (the Studio's bell);
 * nobody else's, no other field, not without the app panel, not as the public or through a share token. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
let owner: string;
let other: string;
let apiOnly: string;
let shareToken: string;

async function notify(recipient: string, subject: string): Promise<number> {
  const [row] = await run<{ id: number }>(t.services.database.db,
    "insert into svc_notifications (recipient, subject, message, collection, item) values ($1, $2, 'Body', 'posts', '1') returning id", [recipient, subject]);
  return row.id;
}

async function statusOf(id: number): Promise<string> {
  const [row] = await run<{ status: string }>(t.services.database.db, 'select status from svc_notifications where id = $1', [id]);
  return row.status;
}

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services, { seed: true });
  ({ user: owner } = await createPrincipal(t.services, { token: 'notice-owner', permissions: [{ collection: 'posts', action: 'read' }], appAccess: true }));
  ({ user: other } = await createPrincipal(t.services, { token: 'notice-other', permissions: [{ collection: 'posts', action: 'read' }], appAccess: true }));
  ({ user: apiOnly } = await createPrincipal(t.services, { token: 'notice-api-only', permissions: [{ collection: 'posts', action: 'read' }] }));
  const { role } = await createPrincipal(t.services, { token: 'notice-share-role', permissions: [{ collection: 'posts', action: 'read' }], appAccess: true });
  const share = randomUUID();
  await run(t.services.database.db, "insert into svc_shares (id, collection, item, role) values ($1, 'posts', '1', $2)", [share, role]);
  shareToken = (await t.req('POST', '/shares/auth', { share }, { token: null })).body.data.access_token;
});
afterAll(async () => { await t.close(); });

describe('own notifications', () => {
  it('the recipient archives one by key, several by keys, and moves one back to the inbox', async () => {
    const [a, b, c] = [await notify(owner, 'A'), await notify(owner, 'B'), await notify(owner, 'C')];
    const one = await t.req('PATCH', `/notifications/${a}`, { status: 'archived' }, { token: 'notice-owner' });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.data).toMatchObject({ id: a, status: 'archived', recipient: owner });
    const many = await t.req('PATCH', '/notifications', { keys: [b, c], data: { status: 'archived' } }, { token: 'notice-owner' });
    expect(many.status, JSON.stringify(many.body)).toBe(200);
    expect(await Promise.all([a, b, c].map(statusOf))).toEqual(['archived', 'archived', 'archived']);
    expect((await t.req('PATCH', `/notifications/${b}`, { status: 'inbox' }, { token: 'notice-owner' })).status).toBe(200);
    expect(await statusOf(b)).toBe('inbox');
  });

  it('archiving everything by query touches only the caller\'s own inbox', async () => {
    const mine = [await notify(owner, 'Mine 1'), await notify(owner, 'Mine 2')];
    const theirs = await notify(other, 'Theirs');
    const res = await t.req('PATCH', '/notifications', { query: { filter: { status: { _eq: 'inbox' } }, limit: -1 }, data: { status: 'archived' } }, { token: 'notice-owner' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await Promise.all(mine.map(statusOf))).toEqual(['archived', 'archived']);
    expect(await statusOf(theirs)).toBe('inbox');
    const [{ count }] = await run<{ count: number }>(t.services.database.db,
      "select count(*)::int as count from svc_notifications where recipient = $1 and status = 'inbox'", [owner]);
    expect(count).toBe(0);
    // Nothing left to archive is no error.
    const again = await t.req('PATCH', '/notifications', { query: { filter: { status: { _eq: 'inbox' } }, limit: -1 }, data: { status: 'archived' } }, { token: 'notice-owner' });
    expect(again.status, JSON.stringify(again.body)).toBeLessThan(300);
  });

  it('another user may not change the owner\'s notifications, nor mix them with their own', async () => {
    const id = await notify(owner, 'Private');
    const own = await notify(other, 'Theirs too');
    expect((await t.req('PATCH', `/notifications/${id}`, { status: 'archived' }, { token: 'notice-other' })).status).toBe(403);
    expect((await t.req('PATCH', '/notifications', { keys: [id, own], data: { status: 'archived' } }, { token: 'notice-other' })).status).toBe(403);
    const byQuery = await t.req('PATCH', '/notifications', { query: { filter: { id: { _eq: id } } }, data: { status: 'archived' } }, { token: 'notice-other' });
    expect(byQuery.status).toBeLessThan(300);
    expect(await statusOf(id)).toBe('inbox');
    expect(await statusOf(own)).toBe('inbox');
    // And reads stay their own.
    const read = await t.req('GET', '/notifications?fields=id,recipient&limit=-1', undefined, { token: 'notice-other' });
    expect(read.body.data.every((n: { recipient: string }) => n.recipient === other)).toBe(true);
  });

  it('only the status changes, and only to inbox or archived', async () => {
    const id = await notify(owner, 'Keep me');
    for (const data of [{ subject: 'Changed' }, { status: 'archived', subject: 'Changed' }, { recipient: other }, { status: 'deleted' }]) {
      const res = await t.req('PATCH', `/notifications/${id}`, data, { token: 'notice-owner' });
      expect(res.status, JSON.stringify(data)).toBeGreaterThanOrEqual(400);
    }
    const [row] = await run<{ subject: string; recipient: string; status: string }>(t.services.database.db,
      'select subject, recipient, status from svc_notifications where id = $1', [id]);
    expect(row).toEqual({ subject: 'Keep me', recipient: owner, status: 'inbox' });
  });

  it('a user without the app panel, the public and a share token may not', async () => {
    const id = await notify(owner, 'Guarded');
    const apiOwn = await notify(apiOnly, 'API only');
    expect((await t.req('PATCH', `/notifications/${apiOwn}`, { status: 'archived' }, { token: 'notice-api-only' })).status).toBe(403);
    for (const token of [null, shareToken]) {
      const res = await t.req('PATCH', `/notifications/${id}`, { status: 'archived' }, { token });
      expect([401, 403]).toContain(res.status);
      const q = await t.req('PATCH', '/notifications', { query: { filter: { status: { _eq: 'inbox' } } }, data: { status: 'archived' } }, { token });
      expect([401, 403]).toContain(q.status);
    }
    expect(await statusOf(id)).toBe('inbox');
    expect(await statusOf(apiOwn)).toBe('inbox');
  });

  it('the admin may change anyone\'s', async () => {
    const id = await notify(other, 'By admin');
    expect((await t.req('PATCH', `/notifications/${id}`, { status: 'archived' })).status).toBe(200);
    expect(await statusOf(id)).toBe('archived');
  });
});
