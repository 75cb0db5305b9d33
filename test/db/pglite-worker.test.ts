/** The embedded engine runs in a worker thread (core/db/pglite-worker.ts): a slow statement leaves the event loop
 * free, results keep their JS types, errors keep their Postgres fields, and a dead worker fails calls at once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import type { Worker } from 'node:worker_threads';
import { openDatabase, run, type Database } from '../../core/db/database.ts';
import { EngineStoppedError, PgliteWorker } from '../../core/db/pglite-worker.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_EMAIL } from '../helpers/template.ts';

const embedded = !process.env.TEST_DATABASE_URL;

/** Runs work while a 10 ms interval notes the longest gap between its ticks (the event loop's longest stall). */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number; workMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  const t0 = performance.now();
  try {
    const value = await work();
    const workMs = performance.now() - t0;
    await new Promise((resolve) => setTimeout(resolve, 30));
    return { value, stallMs, workMs };
  } finally {
    clearInterval(timer);
  }
}

describe.skipIf(!embedded)('embedded engine in a worker thread', () => {
  let database: Database;

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: null, inMemory: true });
    await run(database.db, "create table slow_t (id serial primary key, body text)");
    // ~1 MB of text a LIKE with a long pattern has to scan with backtracking: over a second of engine work.
    await run(database.db, "insert into slow_t (body) select repeat('a', 20000) from generate_series(1, 40)");
  });
  afterAll(async () => {
    await database?.close();
  });

  it('a slow statement does not stall the event loop', async () => {
    const { value, stallMs, workMs } = await longestStall(() => run<{ n: number }>(database.db,
      'select count(*)::int as n from slow_t where body like $1', [`%${'a'.repeat(1000)}b%`]));
    expect(value).toEqual([{ n: 0 }]);
    // Meaningful only if the statement took clearly longer than the stall allowed.
    expect(workMs).toBeGreaterThan(500);
    expect(stallMs).toBeLessThan(Math.min(150, workMs / 3));
  }, 120_000);

  it('rows keep their types: Date, bigint, Uint8Array, parsed JSON, numeric as text; affected rows', async () => {
    // The same answers as PGlite gives in this thread.
    const direct = await PGlite.create();
    const both = async (text: string, params: unknown[]) => {
      const [row] = await run(database.db, text, params);
      expect(row).toEqual((await direct.query(text, params)).rows[0]);
      return row;
    };
    const [echo] = [await both('select $1::timestamptz as t, $2::bytea as b, $3::jsonb as j, $4::int8 as big, $5::int8 as small',
      [new Date('2020-05-06T00:00:00Z'), Buffer.from([9, 8]), JSON.stringify({ a: 1 }), 9007199254740993n, 5n])];
    expect(echo).toEqual({ t: new Date('2020-05-06T00:00:00Z'), b: new Uint8Array([9, 8]), j: { a: 1 }, big: 9007199254740993n, small: 5 });
    await direct.close();
    const [row] = await run(database.db, `select '2024-01-02T03:04:05Z'::timestamptz as t, 9007199254740993::int8 as big,
      '\\x0102'::bytea as b, '{"k":[1,"x"]}'::jsonb as j, 1.50::numeric as n, 7 as i, true as ok, null as z, $1::text as p`, ['p']);
    expect(row).toEqual({ t: new Date('2024-01-02T03:04:05Z'), big: 9007199254740993n, b: new Uint8Array([1, 2]),
      j: { k: [1, 'x'] }, n: '1.50', i: 7, ok: true, z: null, p: 'p' });
    expect(row.t).toBeInstanceOf(Date);
    expect(row.b).toBeInstanceOf(Uint8Array);
    const updated = await database.db.updateTable('slow_t').set({ body: 'b' }).where('id', '<=', 3).executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(3n);
    // Parameterless text on the simple protocol: the last statement's result.
    const res = await sql.raw('select 1 as a; select 2 as b').execute(database.db);
    expect(res.rows).toEqual([{ b: 2 }]);
  });

  it('an error keeps its Postgres fields', async () => {
    await run(database.db, 'create table uniq_t (id int primary key, email text constraint uniq_t_email unique)');
    await run(database.db, "insert into uniq_t values (1, 'a')");
    const err = await run(database.db, 'insert into uniq_t values ($1, $2)', [2, 'a']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      code: '23505', message: 'duplicate key value violates unique constraint "uniq_t_email"', detail: 'Key (email)=(a) already exists.',
      constraint: 'uniq_t_email', table: 'uniq_t', schema: 'public', severity: 'ERROR',
    });
    // The session is usable afterwards, inside and outside a transaction.
    const inTrx = await database.db.transaction().execute(async (trx) => {
      await run(trx, "insert into uniq_t values (3, 'c')");
      return run(trx, 'select count(*)::int as n from uniq_t');
    });
    expect(inTrx).toEqual([{ n: 2 }]);
  });

  it('the dump loads into a new database (the test template path)', async () => {
    const dump = await database.dump!();
    expect(dump).toBeInstanceOf(Blob);
    const copy = await openDatabase({ databaseUrl: null, loadDataDir: new Blob([Buffer.from(await dump.arrayBuffer())]) });
    try {
      expect(await run(copy.db, 'select count(*)::int as n from uniq_t')).toEqual([{ n: 2 }]);
      await run(copy.db, 'create extension if not exists pg_trgm');
      expect(await run(copy.db, "select similarity('abc', 'abd') > 0 as trgm, current_setting('TimeZone') as tz")).toEqual([{ trgm: true, tz: 'UTC' }]);
    } finally {
      await copy.close();
    }
  });

  it('calls after close fail at once instead of waiting', async () => {
    const other = await openDatabase({ databaseUrl: null, inMemory: true });
    await other.close();
    await other.close();
    await expect(run(other.db, 'select 1')).rejects.toThrow(/embedded database engine stopped|destroyed/);
  });
});

describe.skipIf(!embedded)('a dead engine thread', () => {
  it('fails the waiting call and every later one with a clear error', async () => {
    const engine = await PgliteWorker.start({ startParams: [] });
    await engine.exec("create table t (body text); insert into t select repeat('a', 20000) from generate_series(1, 40)");
    const slow = engine.query('select count(*) from t where body like $1', [`%${'a'.repeat(1000)}b%`]);
    await (engine as unknown as { worker: Worker }).worker.terminate();
    await expect(slow).rejects.toThrow(/^The embedded database engine stopped \(its thread exited with code \d+\)/);
    await expect(engine.query('select 1', [])).rejects.toBeInstanceOf(EngineStoppedError);
    await engine.close();
  }, 60_000);
});

describe.skipIf(!embedded)('embedded engine in a worker thread, through the API', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('/server/ping answers while a slow statement runs', async () => {
    const db = t.services.database.db;
    await run(db, 'create table slow_api (id serial primary key, body text)');
    await run(db, "insert into slow_api (body) select repeat('a', 20000) from generate_series(1, 40)");
    const slow = run(db, 'select count(*)::int as n from slow_api where body like $1', [`%${'a'.repeat(1000)}b%`]);
    let done = false;
    const t0 = performance.now();
    void slow.finally(() => { done = true; });
    const pings: number[] = [];
    while (!done) {
      const p0 = performance.now();
      const res = await t.req('GET', '/server/ping', undefined, { token: null });
      expect(res.status).toBe(200);
      pings.push(performance.now() - p0);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const workMs = performance.now() - t0;
    expect(await slow).toEqual([{ n: 0 }]);
    expect(workMs).toBeGreaterThan(500);
    expect(pings.length).toBeGreaterThan(3);
    expect(Math.max(...pings)).toBeLessThan(Math.min(150, workMs / 3));
  }, 120_000);

  it('a unique violation through the API is still 409 RECORD_NOT_UNIQUE with its field', async () => {
    const res = await t.req('POST', '/users', { email: ADMIN_EMAIL.toUpperCase(), password: 'x-password-1' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errors: [{ message: 'Value has to be unique', extensions: { code: 'RECORD_NOT_UNIQUE', collection: 'svc_users', field: 'email' } }] });
  });
});
