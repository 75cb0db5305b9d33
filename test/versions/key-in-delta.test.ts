/** A primary key in a version's delta (issue 24, point 11; SPEC.md > Versions: "the primary key always keeps its
 * real value"): POST /versions accepts it and keeps the delta as sent, while the preview, save's answer and
 * promote ignore it, for an existing auto-increment item and for new content with a client-chosen key. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { EDITOR_PERMISSIONS, principal, q, versionsApp } from './setup.ts';

let t: TestApp;
const editor = { token: 'key-editor' };

beforeAll(async () => {
  t = await versionsApp();
  await principal(t, 'key-editor', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:create']);
});
afterAll(() => t.close());

describe('a primary key in the delta', () => {
  it('existing item: accepted, kept as sent, the real key wins on preview, save and promote', async () => {
    const [{ n: before }] = await q<{ n: number }>(t, 'select count(*)::int as n from posts');
    const others = await q(t, 'select * from posts where id <> 1 order by id');
    const created = await t.req('POST', '/versions', { key: 'with-key', collection: 'posts', item: '1', delta: { id: 999, title: 'Keyed draft' } }, editor);
    expect(created.status).toBe(200);
    const id = created.body.data as string;
    expect((await t.req('GET', `/versions/${id}?fields=delta`, undefined, editor)).body.data.delta).toEqual({ id: 999, title: 'Keyed draft' });

    const preview = await t.req('GET', `/items/posts/1?version=${id}&fields=id,title`, undefined, editor);
    expect(preview.body.data).toEqual({ id: 1, title: 'Keyed draft' });

    const saved = await t.req('POST', `/versions/${id}/save`, { id: 5, views: 7 }, editor);
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ id: 1, title: 'Keyed draft', views: 7 });

    expect((await t.req('POST', `/versions/${id}/promote`, undefined, editor)).status).toBe(204);
    expect(await q(t, 'select id, title, views from posts where id = 1')).toEqual([{ id: 1, title: 'Keyed draft', views: 7 }]);
    // No row took the delta's keys (5 exists, 999 does not), none was created.
    expect(await q(t, 'select * from posts where id <> 1 order by id')).toEqual(others);
    const [{ n: after }] = await q<{ n: number }>(t, 'select count(*)::int as n from posts');
    expect(after).toBe(before);
  });

  it('new content: the version item becomes the key, not the one in the delta', async () => {
    const item = randomUUID();
    const other = randomUUID();
    const created = await t.req('POST', '/versions', { key: 'new-with-key', collection: 'articles', item, delta: { id: other, title: 'Fresh' } }, editor);
    expect(created.status).toBe(200);
    const id = created.body.data as string;
    const preview = await t.req('GET', `/items/articles/${item}?version=${id}&fields=id,title`, undefined, editor);
    expect(preview.body.data).toEqual({ id: item, title: 'Fresh' });
    expect((await t.req('POST', `/versions/${id}/promote`, undefined, editor)).status).toBe(204);
    expect(await q(t, 'select id, title from articles where id in ($1, $2)', [item, other])).toEqual([{ id: item, title: 'Fresh' }]);
  });

  it('a delta of only the key has nothing to promote (400 empty_delta), the item unchanged', async () => {
    const created = await t.req('POST', '/versions', { key: 'only-key', collection: 'posts', item: '2', delta: { id: 2 } }, editor);
    expect(created.status).toBe(200);
    const [row] = await q(t, 'select * from posts where id = 2');
    const res = await t.req('POST', `/versions/${created.body.data}/promote`, undefined, editor);
    expect([res.status, res.body.errors?.[0]?.extensions?.reason]).toEqual([400, 'empty_delta']);
    expect((await q(t, 'select * from posts where id = 2'))[0]).toEqual(row);
  });
});
