/** Single-item writes (POST, PATCH, DELETE /items/{c}[/{pk}] with a flat payload) are one statement each, the row,
 * its activity and its revision chained in CTEs, and the statement text is the same for every key, so Postgres
 * runs it as a prepared statement with a generic plan (a single key is matched with `=`, not `= any(array)`,
 * whose generic plan never wins and would be planned again on every request). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { statementsOn } from '../helpers/statements.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
});
afterAll(async () => { await t.close(); });

/** Statements on the written tables while fn runs. */
const statements = (fn: () => Promise<unknown>) => statementsOn(['posts', 'svc_activity', 'svc_revisions'], fn);

describe('single-item writes', () => {
  it('create, update and delete of one item: one statement each, the same text for every item', async () => {
    const created: number[] = [];
    const creates = await statements(async () => {
      for (const title of ['one', 'two']) {
        const res = await t.req('POST', '/items/posts', { title, views: 1 });
        expect(res.status).toBe(200);
        created.push(res.body.data);
      }
    });
    expect(creates).toHaveLength(2);
    expect(creates[1]).toBe(creates[0]);

    const updates = await statements(async () => {
      for (const key of created) expect((await t.req('PATCH', `/items/posts/${key}`, { title: `t${key}`, views: key })).status).toBe(200);
    });
    expect(updates).toHaveLength(2);
    expect(updates[1]).toBe(updates[0]);
    expect(updates[0]).not.toMatch(/any\(/);

    const deletes = await statements(async () => {
      expect((await t.req('DELETE', `/items/posts/${created[0]}`)).status).toBe(204);
    });
    expect(deletes).toHaveLength(1);
    expect(deletes[0]).not.toMatch(/any\(/);

    const rows = await q('select id, title, views from posts where id = any($1) order by id', [created]);
    expect(rows).toEqual([{ id: created[1], title: `t${created[1]}`, views: created[1] }]);
    const revisions = await q<{ item: string; delta: unknown }>(
      `select r.item, r.delta from svc_revisions r join svc_activity a on a.id = r.activity
       where a.action = 'update' and r.collection = 'posts' and r.item = any($1) order by r.id`, [created.map(String)]);
    expect(revisions).toEqual(created.map((k) => ({ item: String(k), delta: { title: `t${k}`, views: k } })));
  });

  it('a batch create whose items set the same columns: one statement, the same text for 3 and 50 items, the same rows as single creates', async () => {
    const item = (i: number) => ({
      title: `same ${i} \u00e9 "q"`, views: i, rating: i % 2 ? '12.50' : 7, published_on: '2024-02-03T04:05:06.789+02:00',
      publish_date: '2024-02-29', publish_time: '13:14', local_dt: '2024-02-03T04:05:06', uid: '6f1c5b4e-8a2d-4c3b-9e7f-1a2b3c4d5e6f',
      labels: ['a', 'b'], meta: i % 3 ? { i, nested: [1, 'x', null] } : 'plain', big: '9007199254740993', status: null,
    });
    let few: number[] = [];
    let many: number[] = [];
    const fewText = await statements(async () => { few = (await t.req('POST', '/items/posts', [1, 2, 3].map(item))).body.data; });
    const manyText = await statements(async () => { many = (await t.req('POST', '/items/posts', Array.from({ length: 50 }, (_, i) => item(i)))).body.data; });
    expect(fewText).toHaveLength(1);
    expect(manyText).toEqual(fewText);
    expect(fewText[0]).toMatch(/json_populate_recordset/);
    expect(many).toHaveLength(50);
    for (let i = 1; i < many.length; i++) expect(many[i]).toBeGreaterThan(many[i - 1]);

    const singles: number[] = [];
    for (const i of [1, 2, 3]) singles.push((await t.req('POST', '/items/posts', item(i))).body.data);
    const columns = 'title, views, rating::text, published_on::text, publish_date::text, publish_time::text, local_dt::text, uid, labels, meta::text, big::text, status';
    const read = (keys: number[]) => q(`select ${columns} from posts where id = any($1) order by id`, [keys]);
    expect(await read(few)).toEqual(await read(singles));
    const revisions = (keys: number[]) => q<{ data: any; delta: unknown }>(
      'select data, delta from svc_revisions where collection = $1 and item = any($2) order by id', ['posts', keys.map(String)]);
    const strip = (rows: { data: any; delta: unknown }[]) => rows.map((r) => ({ ...r, data: { ...r.data, id: undefined } }));
    expect(strip(await revisions(few))).toEqual(strip(await revisions(singles)));
  });

  it('a new item with new O2M children: one insert for the children, each with its activity and revision', async () => {
    const children = [{ text: 'c1', user_name: 'a' }, { text: 'c2', user_name: 'b' }, { text: 'c3', user_name: 'c' }];
    let key = 0;
    const written = await statementsOn(['comments'], async () => {
      const res = await t.req('POST', '/items/posts', { title: 'with comments', comments: children });
      expect(res.status).toBe(200);
      key = res.body.data;
    });
    expect(written.filter((sql) => /insert into "comments"/.test(sql))).toHaveLength(1);
    const rows = await q<{ id: string; text: string }>('select id, text from comments where post = $1 order by text', [key]);
    expect(rows.map((r) => r.text)).toEqual(['c1', 'c2', 'c3']);
    const revisions = await q<{ item: string; delta: any }>(
      `select r.item, r.delta from svc_revisions r join svc_activity a on a.id = r.activity
       where a.action = 'create' and r.collection = 'comments' and r.item = any($1) order by r.delta->>'text'`, [rows.map((r) => r.id)]);
    expect(revisions.map((r) => [r.item, r.delta.text, r.delta.post])).toEqual(rows.map((r) => [r.id, r.text, key]));
  });

  it('a missing key is still FORBIDDEN for update and delete', async () => {
    expect((await t.req('PATCH', '/items/posts/987654', { title: 'x' })).status).toBe(403);
    expect((await t.req('DELETE', '/items/posts/987654')).status).toBe(403);
  });
});
