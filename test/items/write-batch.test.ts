/** Batch writes (POST /items/{c} with an array, PATCH /items/{c} with an array or keys) run a constant number
 * of statements whatever the batch size, and still write every row, activity and revision as per-item writes do. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { statementsOn } from '../helpers/statements.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const count = async (sql: string, params: unknown[] = []) => Number((await q<{ n: number }>(`select count(*)::int as n from ${sql}`, params))[0].n);

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
});
afterAll(async () => { await t.close(); });

/** Statements on the written tables while fn runs. */
const statements = (fn: () => Promise<unknown>) => statementsOn(['posts', 'svc_activity', 'svc_revisions'], fn);

const posts = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({
  title: `${tag} ${i}`, views: i, ...(i % 3 === 0 ? { status: 'published' } : {}), ...(i % 4 === 0 ? { meta: { i } } : {}),
}));

describe('batch create', () => {
  it('writes 100 items, their activity and revisions in as many statements as 3 items', async () => {
    await t.req('POST', '/items/posts', posts(2, 'warm'));
    let small: any;
    let large: any;
    const few = await statements(async () => { small = await t.req('POST', '/items/posts', posts(3, 'few')); });
    const many = await statements(async () => { large = await t.req('POST', '/items/posts', posts(100, 'many')); });
    expect(small.status).toBe(200);
    expect(large.status).toBe(200);
    expect(many.length).toBe(few.length);
    // One statement: the multi-row insert with its activity and revisions chained in CTEs.
    expect(many).toHaveLength(1);
    expect(many[0]).toMatch(/insert into "posts"/);

    const keys = large.body.data as number[];
    expect(keys).toHaveLength(100);
    const rows = await q('select id, title, views, status, meta from posts where id = any($1) order by id', [keys]);
    // Keys answer in payload order; columns an item leaves out get their defaults.
    for (const [i, key] of keys.entries()) {
      const row = rows.find((r: any) => r.id === key);
      expect(row).toMatchObject({ title: `many ${i}`, views: i, status: i % 3 === 0 ? 'published' : 'draft', meta: i % 4 === 0 ? { i } : null });
    }
    expect(await count(`svc_activity where collection = 'posts' and action = 'create' and item = any($1)`, [keys.map(String)])).toBe(100);
    const revisions = await q(`select item, delta, data from svc_revisions where collection = 'posts' and item = any($1)`, [keys.map(String)]);
    expect(revisions).toHaveLength(100);
    for (const r of revisions) {
      const i = keys.indexOf(Number(r.item));
      expect(r.delta).toEqual(posts(100, 'many')[i]);
      expect(r.data).toMatchObject({ id: keys[i], title: `many ${i}`, views: i });
    }
  });

  it('items that set the same columns: each revision delta is its item, json as JSON, secrets masked', async () => {
    const items = Array.from({ length: 6 }, (_, i) => ({ title: `same ${i}`, views: i, meta: { i, tags: ['a', `b${i}`], note: 'quote " and \\ slash' } }));
    let res: any;
    const written = await statements(async () => { res = await t.req('POST', '/items/posts', items); });
    expect(res.status).toBe(200);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/json_populate_recordset/);
    const keys = res.body.data as number[];
    const revisions = await q(`select item, delta from svc_revisions where collection = 'posts' and item = any($1)`, [keys.map(String)]);
    expect(revisions).toHaveLength(6);
    for (const r of revisions) expect(r.delta).toEqual(items[keys.indexOf(Number(r.item))]);

    const authors = Array.from({ length: 4 }, (_, i) => ({ name: `Keeper ${i}`, secret: `hunter-${i}` }));
    const made = await t.req('POST', '/items/authors', authors);
    expect(made.status).toBe(200);
    const ids = made.body.data as number[];
    const stored = await q(`select id, secret from authors where id = any($1)`, [ids]);
    for (const row of stored) expect(row.secret).toMatch(/^\$argon2/);
    const authorRevisions = await q(`select item, delta, data from svc_revisions where collection = 'authors' and item = any($1)`, [ids.map(String)]);
    expect(authorRevisions).toHaveLength(4);
    for (const r of authorRevisions) {
      expect(r.delta).toEqual({ name: authors[ids.indexOf(Number(r.item))].name, secret: '**********' });
      expect(r.data).not.toHaveProperty('secret');
    }
  });

  it('writes nothing when any item is invalid', async () => {
    const before = await count('posts');
    const activity = await count('svc_activity');
    const payload = posts(50, 'bad');
    (payload[37] as Record<string, unknown>).views = 'many';
    const res = await t.req('POST', '/items/posts', payload);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect(await count('posts')).toBe(before);
    expect(await count('svc_activity')).toBe(activity);
  });

  it('items with nested relational payloads are still written with their relations', async () => {
    const res = await t.req('POST', '/items/posts', [
      { title: 'nested a', author: { name: 'Nested author' } },
      { title: 'nested b', comments: [{ id: '7d9c3a38-8f7e-4bbc-9a39-5d0a4f3b2f11', text: 'first' }] },
    ]);
    expect(res.status).toBe(200);
    const [a, b] = res.body.data;
    const [row] = await q('select p.title, a.name from posts p join authors a on a.id = p.author where p.id = $1', [a]);
    expect(row).toEqual({ title: 'nested a', name: 'Nested author' });
    expect(await count('comments where post = $1', [b])).toBe(1);
  });

  it('a batch too big for one statement is written in chunks inside one transaction', async () => {
    // 3,100 items x 10 columns = 31,000 parameters, over the one-statement budget.
    const wide = Array.from({ length: 3100 }, (_, i) => ({ title: `wide ${i}`, body: 'b', status: 'draft', views: i, rating: '1.5', labels: 'x,y', big: String(i), publish_date: '2024-01-02', publish_time: '10:00:00', local_dt: '2024-01-02T10:00:00' }));
    const res = await t.req('POST', '/items/posts', wide);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3100);
    const rows = await q(`select id, views from posts where title like 'wide %'`);
    expect(rows).toHaveLength(3100);
    expect(rows.every((r: any) => res.body.data[r.views] === r.id)).toBe(true);
    expect(await count(`svc_revisions where collection = 'posts' and item = any($1)`, [res.body.data.map(String)])).toBe(3100);
  });

});

describe('batch update', () => {
  it('an array of items with their own keys and columns: constant statements, each row its own values', async () => {
    const created = (await t.req('POST', '/items/posts', posts(100, 'upd'))).body.data as number[];
    const change = (keys: number[]) => keys.map((id, i) => (i % 2 ? { id, title: `changed ${id}` } : { id, views: 1000 + i, meta: { id } }));
    let small: any;
    let large: any;
    const few = await statements(async () => { small = await t.req('PATCH', '/items/posts', change(created.slice(0, 3))); });
    const many = await statements(async () => { large = await t.req('PATCH', '/items/posts', change(created)); });
    expect(small.status).toBe(200);
    expect(large.status).toBe(200);
    expect(large.body.data).toEqual(created);
    expect(many.length).toBe(few.length);
    // The UPDATE of each set of columns and the activity + revisions flush.
    expect(many.length).toBeLessThanOrEqual(3);

    const rows = await q('select id, title, views, meta from posts where id = any($1)', [created]);
    for (const [i, id] of created.entries()) {
      const row = rows.find((r: any) => r.id === id);
      if (i % 2) expect(row).toMatchObject({ title: `changed ${id}`, views: i });
      else expect(row).toMatchObject({ title: `upd ${i}`, views: 1000 + i, meta: { id } });
    }
    const revisions = await q(`select r.item, r.delta, r.data from svc_revisions r join svc_activity a on a.id = r.activity
      where a.action = 'update' and r.collection = 'posts' and r.item = any($1)`, [created.map(String)]);
    expect(revisions).toHaveLength(100 + 3);
    // The first three items were changed twice, with the same values.
    for (const r of revisions) {
      const id = Number(r.item);
      const i = created.indexOf(id);
      expect(r.delta).toEqual(i % 2 ? { title: `changed ${id}` } : { views: 1000 + i, meta: { id } });
      expect(r.data).toMatchObject({ id });
    }
  });

  it('a missing key fails the whole batch', async () => {
    const [a] = (await t.req('POST', '/items/posts', posts(1, 'keep'))).body.data as number[];
    const res = await t.req('PATCH', '/items/posts', [{ id: a, title: 'never' }, { id: 99999999, title: 'never' }]);
    expect(res.status).toBe(403);
    expect((await q('select title from posts where id = $1', [a]))[0].title).toBe('keep 0');
  });

  it('keys + data: constant statements', async () => {
    const created = (await t.req('POST', '/items/posts', posts(100, 'keys'))).body.data as number[];
    const few = await statements(() => t.req('PATCH', '/items/posts', { keys: created.slice(0, 3), data: { status: 'archived' } }));
    const many = await statements(() => t.req('PATCH', '/items/posts', { keys: created, data: { status: 'archived' } }));
    expect(many, JSON.stringify([few, many])).toHaveLength(few.length);
    expect(await count(`posts where id = any($1) and status = 'archived'`, [created])).toBe(100);
  });
});

describe('edge cases', () => {
  it('empty batch and a collection without revisions', async () => {
    expect((await t.req('POST', '/items/posts', [])).body).toEqual({ data: [] });
    await q(`update svc_collections set accountability = 'activity' where collection = 'tags'`);
    await t.services.schema.invalidate();
    const res = await t.req('POST', '/items/tags', [{ id: 'batch-a', label: 'A' }, { id: 'batch-b' }]);
    expect(res.body.data).toEqual(['batch-a', 'batch-b']);
    expect(await count(`svc_activity where collection = 'tags' and item in ('batch-a', 'batch-b')`)).toBe(2);
    expect(await count(`svc_revisions where collection = 'tags' and item in ('batch-a', 'batch-b')`)).toBe(0);
  });
});
