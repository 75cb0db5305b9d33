/** `search` on a collection without its trigram index (issue 32): the plan Postgres picks for `?search=word&limit=25`
 * must not rest on whether ANALYZE's sample happened to hold the word. A bare `ILIKE '%word%'` on a column with
 * statistics is estimated from the histogram: a word in none of its entries gets the 0.01 % floor, and with
 * `order by id limit 25` the whole table is then scanned and sorted, also for a word in 0.25 % of the rows, where
 * walking the key stops after ~10,000 rows. compileSearch wraps the OR in `coalesce(..., false)` (no statistics:
 * the default selectivity), so the key walk is planned whatever the word; the rows are those of the bare ILIKE.
 * With the collection's search index the bare predicate is kept, so the trigram index serves it. Runs on PGlite
 * and, with TEST_DATABASE_URL, on a Postgres server; the table is analysed with the default statistics target. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { compileList } from '../../core/query/compile-select.ts';
import { planRead } from '../../core/query/plan.ts';
import { searchIndexName } from '../../core/schema/ddl/indexes.ts';
import { createTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { ALL, planContext } from './schema-fixture.ts';

const ROWS = 20_000;
let t: TestApp & { database: TestDatabase };

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.req('POST', '/collections', {
    collection: 'articles', schema: {}, meta: {},
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'title', type: 'string' },
      { field: 'body', type: 'text' },
      { field: 'status', type: 'string' },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  // "narwhal" in 0.25 % of titles, "quokka" in 0.01 % of bodies, "Ärger" in 0.05 % of bodies (non-ASCII); some
  // titles and bodies NULL. Every title is different, so none is a most common value.
  await run(t.services.database.db, `
    insert into articles (title, body, status)
    select case when n % 50 = 0 then null else 'Entry ' || n || case when n % 400 = 7 then ' about the Narwhal' else '' end end,
      case when n % 30 = 0 then null else repeat('words of filler text ', 1 + n % 5)
        || case when n % 10000 = 11 then 'a quokka' when n % 2000 = 13 then 'viel Ärger' else '' end end,
      (array['published', 'draft', 'archived'])[1 + n % 3]
    from generate_series(1, ${ROWS}) n`);
  await run(t.services.database.db, 'analyze articles');
}, 120_000);
afterAll(async () => { await t?.close(); });

async function compiled(search: string) {
  const schema = await t.services.schema.get();
  const plan = planRead(planContext(ALL, { schema }), 'articles', { fields: ['id'], search, limit: 25 });
  return compileList(plan.select!, plan.meta);
}

async function planOf(search: string): Promise<string> {
  const { sql, params } = await compiled(search);
  const rows = await run<{ 'QUERY PLAN': string }>(t.services.database.db, `explain ${sql}`, params);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

async function searchIds(search: string): Promise<number[]> {
  const res = await t.req('GET', `/items/articles?search=${encodeURIComponent(search)}&fields=id&limit=25`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((r: { id: number }) => r.id);
}

async function reference(search: string): Promise<number[]> {
  const rows = await run<{ id: number }>(t.services.database.db, `select id from articles
    where title ilike $1 or body ilike $1 or status ilike $1 order by id limit 25`, [`%${search}%`]);
  return rows.map((r) => r.id);
}

describe('search without the trigram index', () => {
  it.each(['narwhal', 'quokka', 'not-in-any-row'])('walks the primary key for "%s" at the default statistics (no scan and sort)', async (word) => {
    const plan = await planOf(word);
    expect(plan).toMatch(/Index Scan using \S*articles_pkey/);
    expect(plan).not.toMatch(/Sort|Seq Scan/);
  });

  // Whether "äRGER" finds "Ärger" is the database collation's lower() (ILIKE's either way): compared, not pinned.
  it.each(['narwhal', 'NARWHAL', 'quokka', 'Ärger', 'äRGER', 'filler', 'not-in-any-row'])('finds the rows of a bare ILIKE for "%s"', async (word) => {
    const want = await reference(word);
    expect(await searchIds(word)).toEqual(want);
    if (word === 'narwhal' || word === 'filler') expect(want).toHaveLength(25);
    if (word === 'quokka') expect(want).toHaveLength(2);
    if (word === 'Ärger') expect(want).toHaveLength(10);
  });
});

describe('search with the trigram index', () => {
  it('keeps the bare predicate, which the index serves', async () => {
    const res = await t.req('PATCH', '/collections/articles', { meta: { search_index: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await run(t.services.database.db, 'analyze articles');
    const { sql } = await compiled('quokka');
    expect(sql).toContain('where (t0."title" ilike $1 or t0."body" ilike $1 or t0."status" ilike $1) order by');
    expect(await planOf('quokka')).toContain(searchIndexName('articles'));
    for (const word of ['narwhal', 'quokka', 'äRGER']) expect(await searchIds(word)).toEqual(await reference(word));
  });
});
