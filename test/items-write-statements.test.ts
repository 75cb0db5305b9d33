/** Single-item writes (POST, PATCH, DELETE /items/{c}[/{pk}] with a flat payload) are one statement each, the row,
 * its activity and its revision chained in CTEs, and the statement text is the same for every key, so Postgres
 * runs it as a prepared statement with a generic plan (a single key is matched with `=`, not `= any(array)`,
 * whose generic plan never wins and would be planned again on every request). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../core/db/database.ts';
import { observeStatements } from '../core/db/statement-observers.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { createContentModel } from './helpers/fixtures.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
});
afterAll(async () => { await t.close(); });

async function statements(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const stop = observeStatements((sql) => { if (/"?\b(posts|svc_activity|svc_revisions)\b/.test(sql)) seen.push(sql); });
  try {
    await fn();
  } finally {
    stop();
  }
  return seen;
}

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

  it('a missing key is still FORBIDDEN for update and delete', async () => {
    expect((await t.req('PATCH', '/items/posts/987654', { title: 'x' })).status).toBe(403);
    expect((await t.req('DELETE', '/items/posts/987654')).status).toBe(403);
  });
});
