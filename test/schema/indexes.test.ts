/** Indexes through the API (issue 13): `schema.is_indexed` / `schema.is_unique` on POST and PATCH /fields and in
 * POST /collections, reported from pg_index; a refused unique index leaves nothing behind; the opt-in trigram
 * search index (`meta.search_index`) follows the text columns and serves the compiled `search` predicate. On a
 * Postgres server, an index build does not hold up writes to the table. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { buildFieldIndexes, searchIndexName } from '../../core/schema/ddl/indexes.ts';
import { compileSearch } from '../../core/query/compile-filter.ts';
import { SqlBuilder } from '../../core/query/sql-builder.ts';
import { createTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';

let t: TestApp & { database: TestDatabase };
beforeAll(async () => {
  t = await createTestApp();
  const res = await t.req('POST', '/collections', {
    collection: 'books', schema: {}, meta: {},
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'isbn', type: 'string', schema: { is_unique: true } },
      { field: 'shelf', type: 'integer', schema: { is_indexed: true } },
      { field: 'title', type: 'string' },
      { field: 'blurb', type: 'text' },
      { field: 'pages', type: 'integer' },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});
afterAll(async () => { await t.close(); });

interface IndexRow { name: string; unique: boolean; valid: boolean; method: string; columns: string[] }

async function indexesOf(table: string): Promise<IndexRow[]> {
  return run<IndexRow>(t.services.database.db, `
    select ic.relname as name, i.indisunique as unique, i.indisvalid as valid, am.amname as method,
      array(select a.attname::text from unnest(i.indkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n order by k.o) as columns
    from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_class tc on tc.oid = i.indrelid and tc.relname = $1
    join pg_am am on am.oid = ic.relam where not i.indisprimary order by ic.relname`, [table]);
}

async function schemaOf(collection: string, field: string): Promise<Record<string, unknown>> {
  const res = await t.req('GET', `/fields/${collection}/${field}`);
  expect(res.status).toBe(200);
  return res.body.data.schema;
}

describe('is_indexed and is_unique', () => {
  it('creates them with the collection and reports them from the catalogue', async () => {
    expect(await schemaOf('books', 'isbn')).toMatchObject({ is_unique: true, is_indexed: true });
    expect(await schemaOf('books', 'shelf')).toMatchObject({ is_unique: false, is_indexed: true });
    expect(await schemaOf('books', 'title')).toMatchObject({ is_unique: false, is_indexed: false });
    expect(await schemaOf('books', 'id')).toMatchObject({ is_unique: true, is_indexed: true, is_primary_key: true });
    const all = await t.req('GET', '/fields/books');
    expect(all.body.data.find((f: { field: string }) => f.field === 'shelf').schema.is_indexed).toBe(true);
    const names = (await indexesOf('books')).map((i) => i.columns.join(','));
    expect(names.sort()).toEqual(['isbn', 'shelf']);
  });

  it('adds and drops a plain index with PATCH, and on a new field with POST', async () => {
    await run(t.services.database.db, "insert into books (isbn, title, pages) select 'i' || n, 't' || n, n from generate_series(1, 50) n");
    const on = await t.req('PATCH', '/fields/books/pages', { schema: { is_indexed: true } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.data.schema).toMatchObject({ is_indexed: true, is_unique: false });
    expect(await indexesOf('books')).toContainEqual(expect.objectContaining({ columns: ['pages'], unique: false, valid: true, method: 'btree' }));

    const off = await t.req('PATCH', '/fields/books/pages', { schema: { is_indexed: false } });
    expect(off.body.data.schema.is_indexed).toBe(false);
    expect((await indexesOf('books')).some((i) => i.columns[0] === 'pages')).toBe(false);

    const added = await t.req('POST', '/fields/books', { field: 'code', type: 'string', schema: { is_indexed: true } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.data.schema.is_indexed).toBe(true);
    const uniqueAdded = await t.req('POST', '/fields/books', { field: 'sku', type: 'string', schema: { is_unique: true } });
    expect(uniqueAdded.body.data.schema).toMatchObject({ is_unique: true, is_indexed: true });
  });

  it('makes a column unique and back, with PATCH', async () => {
    const on = await t.req('PATCH', '/fields/books/title', { schema: { is_unique: true } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.data.schema).toMatchObject({ is_unique: true, is_indexed: true });
    const dup = await t.req('POST', '/items/books', { isbn: 'x-1', title: 't1' });
    expect(dup.body.errors[0].extensions.code).toBe('RECORD_NOT_UNIQUE');
    const off = await t.req('PATCH', '/fields/books/title', { schema: { is_unique: false } });
    expect(off.body.data.schema).toMatchObject({ is_unique: false, is_indexed: false });
    expect((await t.req('POST', '/items/books', { isbn: 'x-2', title: 't1' })).status).toBe(200);
  });

  it('refuses a unique index the data breaks with 400 and leaves no index behind', async () => {
    // title now holds "t1" twice
    const res = await t.req('PATCH', '/fields/books/title', { schema: { is_unique: true } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect(res.body.errors[0].message).toContain('"t1"');
    expect((await indexesOf('books')).some((i) => i.columns[0] === 'title')).toBe(false);
    expect(await schemaOf('books', 'title')).toMatchObject({ is_unique: false });
    const withDefault = await t.req('POST', '/fields/books', { field: 'edition', type: 'integer', schema: { is_unique: true, default_value: 1 } });
    expect(withDefault.status).toBe(400);
    expect((await t.req('GET', '/fields/books/edition')).status).toBe(404);
  });

  it('drops an index build that failed (a duplicate written after the check) instead of leaving it INVALID', async () => {
    await expect(buildFieldIndexes(t.services.database.db, [{ collection: 'books', field: 'title', unique: true }]))
      .rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    expect((await indexesOf('books')).filter((i) => i.columns[0] === 'title')).toEqual([]);
  });

  it('refuses non-boolean flags', async () => {
    const res = await t.req('PATCH', '/fields/books/pages', { schema: { is_indexed: 'yes' } });
    expect(res.status).toBe(400);
  });
});

describe('search index (meta.search_index)', () => {
  const searchRows = async (text: string) =>
    (await t.req('GET', `/items/books?search=${encodeURIComponent(text)}&fields=id&sort=id&limit=-1`)).body.data.map((r: { id: number }) => r.id);

  it('builds a trigram GIN index over the searchable text columns and keeps the results', async () => {
    await run(t.services.database.db, "update books set blurb = 'a tale of the zephyr wind' where pages % 7 = 0");
    const before = await searchRows('zephyr');
    expect(before.length).toBeGreaterThan(0);
    const res = await t.req('PATCH', '/collections/books', { meta: { search_index: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.meta.search_index).toBe(true);
    const index = (await indexesOf('books')).find((i) => i.name === searchIndexName('books'));
    expect(index).toMatchObject({ method: 'gin', valid: true, columns: ['isbn', 'title', 'blurb', 'code', 'sku'] });
    expect(await searchRows('zephyr')).toEqual(before);
    expect(await searchRows('ZEPH')).toEqual(before);
  });

  it('serves the compiled search predicate from the index', async () => {
    const schema = await t.services.schema.get();
    const books = schema.collections.books;
    const fields = Object.values(books.fields).filter((f) => ['isbn', 'title', 'blurb', 'code', 'sku'].includes(f.field));
    const b = new SqlBuilder();
    const where = compileSearch(b, 't0', { text: 'zephyr', fields, indexed: books.searchIndex === true });
    const db = t.services.database.db;
    const plan = await db.transaction().execute(async (trx) => {
      await run(trx, 'set local enable_seqscan = off');
      return run<{ 'QUERY PLAN': string }>(trx, `explain select t0.id from books as t0 where ${where}`, b.params);
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain(searchIndexName('books'));
  });

  it('follows added and dropped text fields, and goes away when switched off', async () => {
    expect((await t.req('POST', '/fields/books', { field: 'subtitle', type: 'string' })).status).toBe(200);
    let index = (await indexesOf('books')).find((i) => i.name === searchIndexName('books'));
    expect(index?.columns).toEqual(['isbn', 'title', 'blurb', 'code', 'sku', 'subtitle']);
    expect((await t.req('DELETE', '/fields/books/blurb')).status).toBe(204);
    index = (await indexesOf('books')).find((i) => i.name === searchIndexName('books'));
    expect(index?.columns).toEqual(['isbn', 'title', 'code', 'sku', 'subtitle']);
    const off = await t.req('PATCH', '/collections/books', { meta: { search_index: false } });
    expect(off.body.data.meta.search_index).toBe(false);
    expect((await indexesOf('books')).some((i) => i.method === 'gin')).toBe(false);
  });

  it('can be asked for when the collection is created', async () => {
    const res = await t.req('POST', '/collections', {
      collection: 'notes', schema: {}, meta: { search_index: true },
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }, { field: 'body', type: 'text' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.meta.search_index).toBe(true);
    expect((await indexesOf('notes')).find((i) => i.method === 'gin')?.columns).toEqual(['body']);
  });
});

const pgUrl = process.env.TEST_DATABASE_URL;

describe.runIf(pgUrl)('index builds on a Postgres server', () => {
  it('do not block inserts into the table while they run (CREATE INDEX CONCURRENTLY)', async () => {
    const db = t.services.database.db;
    expect((await t.req('POST', '/collections', {
      collection: 'events', schema: {}, meta: {},
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }, { field: 'tag', type: 'text' }],
    })).status).toBe(200);
    await run(db, "insert into events (tag) select repeat(md5(n::text), 4) from generate_series(1, 300000) n");
    const watcher = new pg.Client({ connectionString: t.database.url! });
    await watcher.connect();
    try {
      const building = t.req('PATCH', '/fields/events/tag', { schema: { is_indexed: true } });
      let seen = false;
      for (let i = 0; i < 400 && !seen; i++) {
        const { rows } = await watcher.query("select 1 from pg_stat_progress_create_index p join pg_class c on c.oid = p.relid where c.relname = 'events'");
        seen = rows.length > 0;
        if (!seen) await new Promise((r) => setTimeout(r, 10));
      }
      expect(seen).toBe(true);
      const started = Date.now();
      for (let i = 0; i < 20; i++) {
        const res = await t.req('POST', '/items/events', { tag: 'written during the build' });
        expect(res.status).toBe(200);
      }
      const insertMs = Date.now() - started;
      const { rows: still } = await watcher.query("select phase from pg_stat_progress_create_index p join pg_class c on c.oid = p.relid where c.relname = 'events'");
      expect(still.length, 'the build was over before the inserts were done: nothing was shown').toBe(1);
      expect(insertMs).toBeLessThan(2000);
      const res = await building;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.schema.is_indexed).toBe(true);
      const { rows: count } = await watcher.query("select count(*)::int as n from events where tag = 'written during the build'");
      expect(count[0].n).toBe(20);
    } finally {
      await watcher.end();
    }
  }, 60_000);
});
