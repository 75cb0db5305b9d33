/** A list's LIMIT and OFFSET are written into the statement text (core/query/compile-select.ts `page`): a bound
 * limit kept Postgres from ever settling on a generic plan of the prepared list statement, so every list request
 * was planned again. The text carries only validated integers, and each limit gets its own text. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { statementsOn } from '../helpers/statements.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services, { seed: true });
});
afterAll(async () => { await t.close(); });

const list = async (query: string) => {
  let body: any;
  const sql = await statementsOn(['posts'], async () => { body = (await t.req('GET', `/items/posts?${query}`)).body; });
  return { ids: (body.data as { id: number }[]).map((r) => r.id), sql };
};

describe('list pages', () => {
  it('write limit and offset into the text and page as before', async () => {
    const all = await list('sort=id&fields=id&limit=-1');
    expect(all.ids.length).toBeGreaterThan(3);
    const page = await list('sort=id&fields=id&limit=2&offset=1');
    expect(page.ids).toEqual(all.ids.slice(1, 3));
    expect(page.sql).toHaveLength(1);
    expect(page.sql[0]).toMatch(/ limit 2 offset 1\)/);
    expect(page.sql[0]).not.toMatch(/limit \$\d/);
    const other = await list('sort=id&fields=id&limit=3&offset=1');
    expect(other.ids).toEqual(all.ids.slice(1, 4));
    expect(other.sql[0]).toMatch(/ limit 3 offset 1\)/);
  });

  it('a limit that is not a row count is refused before any SQL', async () => {
    for (const bad of ['limit=2;drop', 'limit=1.5', 'offset=-3', 'limit=9999999999999999999']) {
      const res = await t.req('GET', `/items/posts?${bad}`);
      expect(res.status, bad).toBe(400);
    }
  });
});
