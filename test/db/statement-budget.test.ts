/** The statement budget (issue 24, point 6). A Postgres server cancels any statement over DB_STATEMENT_TIMEOUT
 * (503 with a clear message, never a hang), while schema changes, admin exports and migrations get longer; the
 * budget costs no statement per request. The embedded engine can't cancel a statement, so the `_regex` forms whose
 * cost has no useful bound (backreferences, lookaround, nested repetition) are refused with 400 on both engines, and
 * /server/ping keeps answering while such a request is made. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, run } from '../../core/db/database.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { observeStatements } from '../../core/db/statement-observers.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_TOKEN, withDatabase } from '../helpers/template.ts';

const PG_URL = process.env.TEST_DATABASE_URL;

const filterQuery = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;

async function createCollection(t: TestApp, collection: string, fields: { field: string; type: string }[]): Promise<void> {
  const res = await t.req('POST', '/collections', {
    collection, schema: {}, meta: {},
    fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }, ...fields],
  });
  expect(res.status).toBe(200);
}

describe('_regex patterns whose cost has no useful bound are refused (400) before any SQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await createCollection(t, 'docs', [{ field: 'title', type: 'string' }]);
    // 150 rows on which a backreference pattern is slow: seconds on the embedded engine before the refusal existed.
    const items = Array.from({ length: 150 }, () => ({ title: `${'ab'.repeat(15)}cx` }));
    items.push({ title: 'a1c' }, { title: 'Zürich 2024' }, { title: 'back\\1slash' });
    expect((await t.req('POST', '/items/docs', items)).status).toBe(200);
    await createPrincipal(t.services, { token: 'reader', permissions: [{ collection: 'docs', action: 'read' }] });
  });
  afterAll(async () => { await t.close(); });

  const refused: [string, string, RegExp][] = [
    ['a backreference', '^(.*)(.*)(.*)(.*)\\4\\3\\2\\1cx$', /backreference \(\\4\)/],
    ['a backreference after an escaped backslash', '(a)\\\\\\1', /backreference \(\\1\)/],
    ['a named backreference', '(?<x>a)\\k<x>', /named backreference/],
    ['a lookahead', '(?=.*c)', /lookahead or lookbehind constraint \(\(\?=\)/],
    ['a negative lookahead', 'a(?!b)', /lookahead or lookbehind/],
    ['a lookbehind', '(?<=a)b', /lookahead or lookbehind constraint \(\(\?<=\)/],
    ['a negative lookbehind', '(?<!a)b', /lookahead or lookbehind/],
    ['bounded repetitions that multiply past the limit', '((((a|b){1,255}){1,255}){1,255}){1,255}c', /repeats too much/],
    ['one large bound over an alternation', '(a|b){1,999}', /repeats too much/],
    ['quantifiers nested four deep', '((((a|b)+)+)+)+c', /nests quantifiers more than 3 deep/],
    ['basic syntax (its bounds are written \\{m,n\\})', '(?b)a\\{1,255\\}', /basic regular expression syntax/],
  ];
  for (const [what, pattern, message] of refused) {
    it(`refuses ${what}: ${pattern}`, async () => {
      const res = await t.req('GET', `/items/docs?${filterQuery({ title: { _regex: pattern } })}`, undefined, { token: 'reader' });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_QUERY');
      expect(res.body.errors[0].message).toMatch(/^"_regex" on field "title" /);
      expect(res.body.errors[0].message).toMatch(message);
    });
  }

  it('refuses them inside relational and logical filters and through GraphQL too', async () => {
    const nested = await t.req('GET', `/items/docs?${filterQuery({ _or: [{ id: { _eq: 1 } }, { title: { _regex: '(a)\\1' } }] })}`, undefined, { token: 'reader' });
    expect(nested.status).toBe(400);
    expect(nested.body.errors[0].extensions.code).toBe('INVALID_QUERY');
    const gql = await t.req('POST', '/graphql', { query: 'query { docs(filter: { title: { _regex: "(?=.*c)" } }) { id } }' }, { token: 'reader' });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('INVALID_QUERY');
    expect(gql.body.errors[0].message).toMatch(/lookahead or lookbehind/);
  });

  const accepted: [string, string, string[]][] = [
    ['plain', '^a.c$', ['a1c']],
    ['classes and bounds', '^[[:alpha:]ü]+ [0-9]{4}$', ['Zürich 2024']],
    ['an escaped backslash followed by a digit (no backreference)', 'back\\\\1', ['back\\1slash']],
    ['quantifiers three deep within the expansion limit', '^(((ab){1,5})+)+cx$', [`${'ab'.repeat(15)}cx`]],
    ['a non-capturing group and a lazy quantifier', '^(?:a|Z)\\D*?\\d', ['a1c', 'Zürich 2024']],
    ['a literal pattern (***=)', '***=(a)\\1', []],
  ];
  for (const [what, pattern, titles] of accepted) {
    it(`accepts ${what}: ${pattern}`, async () => {
      const res = await t.req('GET', `/items/docs?${filterQuery({ title: { _regex: pattern } })}&fields=title&limit=-1`, undefined, { token: 'reader' });
      expect(res.status).toBe(200);
      expect([...new Set(res.body.data.map((r: { title: string }) => r.title))].sort()).toEqual([...titles].sort());
    });
  }

  it('answers a backreference request at once, and /server/ping meanwhile, instead of holding the embedded engine', async () => {
    // Warm the caches the request path uses, so the filtered read reaches the database within the timer's 100 ms.
    expect((await t.req('GET', '/items/docs?limit=1', undefined, { token: 'reader' })).status).toBe(200);
    const started = Date.now();
    const heavy = t.req('GET', `/items/docs?${filterQuery({ title: { _regex: '^(.*)(.*)(.*)(.*)\\4\\3\\2\\1cx$' } })}`, undefined, { token: 'reader' })
      .then((r) => ({ status: r.status, ms: Date.now() - started }));
    // A timer cannot fire while a statement runs on the embedded engine (synchronously, in this process).
    const ping = new Promise<{ status: number; ms: number }>((resolve, reject) => {
      setTimeout(() => {
        t.req('GET', '/server/ping', undefined, { token: null }).then((r) => resolve({ status: r.status, ms: Date.now() - started }), reject);
      }, 100);
    });
    const [h, p] = await Promise.all([heavy, ping]);
    expect(p.status).toBe(200);
    expect(p.ms).toBeLessThan(1000);
    expect(h.status).toBe(400);
    expect(h.ms).toBeLessThan(1000);
  });
});

describe.skipIf(!PG_URL)('on a Postgres server', () => {
  const BUDGET_MS = 300;
  const IDLE_MS = 1000;
  let t: Awaited<ReturnType<typeof createTestApp>>;
  let side: pg.Client;
  beforeAll(async () => {
    t = await createTestApp({
      env: { DB_STATEMENT_TIMEOUT: `${BUDGET_MS}ms`, DB_LONG_STATEMENT_TIMEOUT: '60s', DB_IDLE_IN_TRANSACTION_TIMEOUT: `${IDLE_MS}ms` },
    });
    side = new pg.Client({ connectionString: t.database.url! });
    await side.connect();
    await createCollection(t, 'big', [{ field: 'body', type: 'text' }]);
    await createCollection(t, 'locked', [{ field: 'title', type: 'string' }]);
    // 2,000 rows of 20 kB: the regex below finds no match in ~2 s on a 2026 server core (1,000 rows took 1.02 s),
    // well over the budget. Written by a side connection, which has no budget.
    await side.query("insert into big (body) select repeat('ab', 10000) || 'c' from generate_series(1, 2000)");
    await side.query('analyze big');
    await createPrincipal(t.services, { token: 'reader', permissions: [{ collection: 'big', action: 'read' }, { collection: 'locked', action: 'read' }] });
  });
  afterAll(async () => {
    await side?.end();
    await t?.close();
  });

  // Accepted by the regex rules (linear per row), yet slow over 20 MB of text.
  const SLOW_FILTER = filterQuery({ body: { _regex: 'a[ab]{250}[ab]{250}[ab]{240}c' } });

  /** Holds a lock on `table` from the side connection for holdMs while fn runs; fn's statements wait for it. */
  async function whileLocked<T>(table: string, mode: string, holdMs: number, fn: () => Promise<T>): Promise<T> {
    await side.query('begin');
    await side.query(`lock table "${table}" in ${mode} mode`);
    const release = new Promise<void>((resolve) => setTimeout(() => { side.query('rollback').then(() => resolve(), () => resolve()); }, holdMs));
    try {
      return await fn();
    } finally {
      await release;
    }
  }

  it('gives every pooled connection the budget as its statement_timeout', async () => {
    const [row] = await run<{ statement_timeout: string }>(t.services.database.db, 'show statement_timeout');
    expect(row.statement_timeout).toBe(`${BUDGET_MS}ms`);
  });

  it('gives every pooled connection the idle budget as its idle_in_transaction_session_timeout', async () => {
    const [row] = await run<{ idle_in_transaction_session_timeout: string }>(t.services.database.db, 'show idle_in_transaction_session_timeout');
    expect(row.idle_in_transaction_session_timeout).toBe(`${IDLE_MS / 1000}s`);
  });

  it('lets an import whose upload pauses longer than the idle budget finish: the long budget covers its idle time too', async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode('title\npaused 1\n'));
        // The import's transaction is open meanwhile, waiting for the rest of the upload.
        await new Promise((r) => setTimeout(r, IDLE_MS * 2.5));
        controller.enqueue(encoder.encode('paused 2\n'));
        controller.close();
      },
    });
    const res = await t.app.request('/utils/import/locked', {
      method: 'POST', body, duplex: 'half',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
    } as RequestInit);
    expect(res.status, await res.clone().text()).toBe(200);
    const [row] = await run<{ n: number }>(t.services.database.db, "select count(*)::int as n from locked where title like 'paused %'");
    expect(row.n).toBe(2);
    const shows = await Promise.all(Array.from({ length: 5 }, () => run<{ v: string }>(t.services.database.db, 'select current_setting($1) as v', ['idle_in_transaction_session_timeout'])));
    expect(shows.map(([r]) => r.v)).toEqual(Array(5).fill(`${IDLE_MS / 1000}s`));
  });

  it('cancels a slow read at the budget: 503 SERVICE_UNAVAILABLE with Retry-After and a clear message, no driver text', async () => {
    const started = Date.now();
    const res = await t.req('GET', `/items/big?${SLOW_FILTER}&fields=id`, undefined, { token: 'reader' });
    const ms = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.body.errors).toEqual([{
      message: 'The request took too long in the database and was cancelled; nothing was changed. '
        + 'Try again later, or ask for less (a narrower filter, fewer rows or fields).',
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    }]);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(ms).toBeGreaterThanOrEqual(BUDGET_MS - 50);
    expect(ms).toBeLessThan(1500);
    // The pool's connection is fine afterwards.
    expect((await t.req('GET', '/items/big?limit=1&fields=id', undefined, { token: 'reader' })).status).toBe(200);
  });

  it('cancels a slow GraphQL query at the budget with the same message', async () => {
    const query = 'query { big(filter: { body: { _regex: "a[ab]{250}[ab]{250}[ab]{240}c" } }) { id } }';
    const started = Date.now();
    const res = await t.req('POST', '/graphql', { query }, { token: 'reader' });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(res.body)).toBe('SERVICE_UNAVAILABLE');
    expect(res.body.errors[0].message).toMatch(/^The request took too long in the database and was cancelled; nothing was changed\./);
  });

  it('cancels a statement waiting for a lock at the budget, not when the lock is released', async () => {
    const res = await whileLocked('locked', 'access exclusive', 3000, async () => {
      const started = Date.now();
      const r = await t.req('GET', '/items/locked', undefined, { token: 'reader' });
      return { ...r, ms: Date.now() - started };
    });
    expect(res.status).toBe(503);
    expect(res.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.ms).toBeLessThan(2000);
  });

  it('cancels a write over the budget as well, and keeps nothing of it', async () => {
    const res = await whileLocked('locked', 'exclusive', 3000, () => t.req('POST', '/items/locked', { title: 'late' }));
    expect(res.status).toBe(503);
    expect(res.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    const [row] = await run<{ n: number }>(t.services.database.db, "select count(*)::int as n from locked where title = 'late'");
    expect(row.n).toBe(0);
  });

  it("lets an administrator's export run past the ordinary budget; anyone else's is cut at it", async () => {
    const admin = await t.req('GET', `/utils/export/big?${SLOW_FILTER}&fields=id`);
    expect(admin.status).toBe(200);
    expect(admin.body).toEqual([]);
    const reader = await t.req('GET', `/utils/export/big?${SLOW_FILTER}&fields=id`, undefined, { token: 'reader' });
    expect(reader.status).toBe(503);
    expect(reader.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    // Sorted by another field: the cursor path in one snapshot.
    const sorted = await t.req('GET', `/utils/export/big?${SLOW_FILTER}&fields=id&sort=body`);
    expect(sorted.status).toBe(200);
    expect(sorted.body).toEqual([]);
  });

  it('lets a schema change wait past the ordinary budget (here for a lock a long read holds), and restores the budget after', async () => {
    const started = Date.now();
    const res = await whileLocked('locked', 'access share', 1200, () => t.req('POST', '/fields/locked', { field: 'extra', type: 'string', schema: { is_indexed: true } }));
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1100);
    // The index was built after commit on a session of its own (CREATE INDEX CONCURRENTLY); that connection is back
    // in the pool with the ordinary budget.
    const shows = await Promise.all(Array.from({ length: 5 }, () => run<{ statement_timeout: string }>(t.services.database.db, 'show statement_timeout')));
    expect(shows.map(([r]) => r.statement_timeout)).toEqual(Array(5).fill(`${BUDGET_MS}ms`));
    expect((await t.req('GET', `/items/big?${SLOW_FILTER}&fields=id`, undefined, { token: 'reader' })).status).toBe(503);
  });

  it('lets an index build after a schema change wait past the ordinary budget, on a session of its own', async () => {
    // SHARE conflicts with CREATE INDEX CONCURRENTLY, not with the schema change's own transaction (which only reads
    // the table), so the wait is the build's, outside any transaction.
    const started = Date.now();
    const res = await whileLocked('locked', 'share', 1200, () => t.req('PATCH', '/fields/locked/title', { schema: { is_indexed: true } }));
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1100);
    const fields = await t.req('GET', '/fields/locked/title');
    expect(fields.body.data.schema.is_indexed).toBe(true);
    const shows = await Promise.all(Array.from({ length: 5 }, () => run<{ statement_timeout: string }>(t.services.database.db, 'show statement_timeout')));
    expect(shows.map(([r]) => r.statement_timeout)).toEqual(Array(5).fill(`${BUDGET_MS}ms`));
  });

  it('lets an import wait past the ordinary budget', async () => {
    const res = await whileLocked('locked', 'exclusive', 1200, async () => {
      const r = await t.app.request('/utils/import/locked', {
        method: 'POST', body: 'title\nimported 1\nimported 2\n',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
      });
      return { status: r.status, text: await r.text() };
    });
    expect(res.status, res.text).toBe(200);
    const [row] = await run<{ n: number }>(t.services.database.db, "select count(*)::int as n from locked where title like 'imported %'");
    expect(row.n).toBe(2);
  });

  it('costs no statement per request: reads and writes send nothing about the budget', async () => {
    const seen: string[] = [];
    const stop = observeStatements((sql) => seen.push(sql));
    try {
      const created = await t.req('POST', '/items/locked', { title: 'one' });
      expect(created.status).toBe(200);
      expect((await t.req('GET', '/items/locked?filter[title][_eq]=one', undefined, { token: 'reader' })).status).toBe(200);
      expect((await t.req('PATCH', `/items/locked/${created.body.data}`, { title: 'two' })).status).toBe(200);
    } finally {
      stop();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((sql) => /statement_timeout/i.test(sql))).toEqual([]);
  });

  it('runs migrations without the budgets, e.g. while another process holds the migration lock', async () => {
    const name = `svc_budget_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = withDatabase(PG_URL!, name);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    const database = await openDatabase({ databaseUrl: url, poolMax: 2, statementTimeoutMs: 200, idleInTransactionTimeoutMs: 700 });
    try {
      // Kysely's migration lock (an advisory lock), as a process migrating at the same moment holds it.
      await holder.query("select pg_advisory_lock('3853314791062309107'::bigint)");
      const started = Date.now();
      const migrating = migrateToLatest(database);
      await new Promise((r) => setTimeout(r, 800));
      await holder.query("select pg_advisory_unlock('3853314791062309107'::bigint)");
      await migrating;
      expect(Date.now() - started).toBeGreaterThanOrEqual(800);
      const [row] = await run<{ n: number }>(database.db, "select count(*)::int as n from svc_migrations");
      expect(row.n).toBeGreaterThan(0);
      const [show] = await run<{ statement_timeout: string }>(database.db, 'show statement_timeout');
      expect(show.statement_timeout).toBe('200ms');
      const [idle] = await run<{ idle_in_transaction_session_timeout: string }>(database.db, 'show idle_in_transaction_session_timeout');
      expect(idle.idle_in_transaction_session_timeout).toBe('700ms');
    } finally {
      await database.close();
      await holder.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});

describe('only migrations run without a budget', () => {
  const ROOT = resolve(import.meta.dirname, '../..');
  const walk = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    return e.isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
  const sources = ['core', 'functions', 'container'].flatMap((dir) => walk(dir));
  const matching = (re: RegExp) => sources.filter((f) => re.test(readFileSync(join(ROOT, f), 'utf8'))).sort();

  it('opens database connections only through the pool, whose connections start with the budgets', () => {
    // Among the files that use the Postgres client (an LDAP client is a `new Client(` too).
    const usesPg = new Set(matching(/from\s+'pg'/));
    expect(matching(/new\s+(pg\.)?(Pool|Client)\s*\(/).filter((f) => usesPg.has(f))).toEqual(['core/db/pg-driver.ts']);
    expect(matching(/\bcreatePool\s*\(/)).toEqual(['core/db/database.ts', 'core/db/pg-driver.ts']);
  });

  it('changes statement_timeout or idle_in_transaction_session_timeout only in core/db/statement-budget.ts', () => {
    expect(matching(/(\bset\b|\breset\b|set_config\s*\(\s*')\s*(local\s+)?(statement_timeout|idle_in_transaction_session_timeout)/i))
      .toEqual(['core/db/statement-budget.ts']);
  });

  it('gives no budget (0) only to migrations', () => {
    expect(matching(/onSessionWithTimeout\([^,]+,\s*0\s*,/)).toEqual(['core/db/migrate.ts']);
  });
});
