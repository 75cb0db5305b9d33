/** Database connection loss under load, for real: while workers read and write through a server process, the
 * test terminates every backend of its database again and again (pg_terminate_backend, as a restart or failover
 * does), then makes the database refuse connections for a while. Every request is answered in bounded time with
 * 200 or 503 SERVICE_UNAVAILABLE (no driver text, never a 500), the pool recovers without a restart, and
 * GET /server/health reports the outage (503, status error) and the recovery (200, status ok). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../helpers/app.ts';
import { call, until, type CallResult } from '../split/harness.ts';
import { type FaultServer, notesDatabase, PG_SKIP, PG_URL, sleep, spawnServer, terminateBackends, withPg } from './harness.ts';

let database: TestDatabase;
let server: FaultServer;

/** A request that must be answered within 10 s; its status, or what went wrong. */
async function timed(method: string, path: string, body?: unknown): Promise<{ status: number; ms: number; res?: CallResult; error?: string }> {
  const started = Date.now();
  try {
    const res = await call(server.url, method, path, { body, timeoutMs: 10_000 });
    return { status: res.status, ms: Date.now() - started, res };
  } catch (err) {
    return { status: 0, ms: Date.now() - started, error: (err as Error).message };
  }
}

function unexpectedOf(r: Awaited<ReturnType<typeof timed>>): boolean {
  if (r.status === 200) return false;
  const error = r.res?.body?.errors?.[0];
  return r.status !== 503 || error?.extensions?.code !== 'SERVICE_UNAVAILABLE' || !r.res?.headers['retry-after']
    || /terminat|connection|ECONN|pg|postgres/i.test(error.message ?? '');
}

describe.skipIf(!PG_URL)(`database connection loss under load${PG_SKIP}`, () => {
  beforeAll(async () => {
    database = await notesDatabase(20);
    server = await spawnServer({ databaseUrl: database.url! });
  }, 150_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('answers 200 or a clean 503 in bounded time while backends are terminated again and again', async () => {
    const results: Array<Awaited<ReturnType<typeof timed>>> = [];
    const health: Array<Awaited<ReturnType<typeof timed>>> = [];
    let stop = false;
    const load: Array<() => Promise<Awaited<ReturnType<typeof timed>>>> = [
      () => timed('GET', '/items/notes?limit=5'),
      () => timed('GET', '/items/notes/1'),
      () => timed('POST', '/items/notes', { title: 'one' }),
      () => timed('POST', '/items/notes', [{ title: 'x' }, { title: 'y' }, { title: 'z' }]),
      () => timed('PATCH', '/items/notes/2', { title: 'changed' }),
      () => timed('GET', '/users/me'),
    ];
    const workers = load.map(async (request) => { while (!stop) results.push(await request()); });
    const prober = (async () => { while (!stop) { health.push(await timed('GET', '/server/health')); await sleep(100); } })();

    let killed = 0;
    for (let round = 0; round < 8; round++) {
      await sleep(250);
      killed += await terminateBackends(database.url!);
    }
    await sleep(300);
    stop = true;
    await Promise.all([...workers, prober]);

    expect(killed).toBeGreaterThan(0);
    expect(server.proc.exitCode, server.output()).toBeNull();
    expect(results.filter(unexpectedOf).map((r) => ({ status: r.status, error: r.error, body: r.res?.text }))).toEqual([]);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 503).length, 'some request met a terminated connection').toBeGreaterThan(0);
    expect(Math.max(...results.map((r) => r.ms))).toBeLessThan(10_000);
    expect(health.every((h) => h.status === 200 || h.status === 503)).toBe(true);
    expect(server.output()).not.toMatch(/Unhandled|uncaught/i);
  });

  it('reports the outage in /server/health while the database refuses connections, then the recovery, without a restart', async () => {
    const pid = server.proc.pid;
    const name = new URL(database.url!).pathname.slice(1);
    await withPg(PG_URL!, async (admin) => {
      await admin.query(`alter database ${name} allow_connections false`);
      try {
        await terminateBackends(database.url!);
        const down = await until(async () => {
          const h = await timed('GET', '/server/health');
          return h.status === 503 ? h : null;
        }, 5000, 'health to report the outage');
        expect(down.res!.body).toMatchObject({ status: 'error', checks: { database: [{ status: 'error' }] } });
        expect(down.ms).toBeLessThan(4000);
        const read = await timed('GET', '/items/notes?limit=1');
        expect(read.status).toBe(503);
        expect(read.res!.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
        const write = await timed('POST', '/items/notes', { title: 'during outage' });
        expect(write.status).toBe(503);
      } finally {
        await admin.query(`alter database ${name} allow_connections true`);
      }
    });
    const up = await until(async () => {
      const h = await timed('GET', '/server/health');
      return h.status === 200 ? h : null;
    }, 5000, 'health to report the recovery');
    expect(up.res!.body).toEqual({ status: 'ok' });
    for (let i = 0; i < 5; i++) {
      expect((await timed('GET', '/items/notes?limit=1')).status).toBe(200);
      expect((await timed('POST', '/items/notes', { title: `after ${i}` })).status).toBe(200);
    }
    expect(server.proc.pid).toBe(pid);
    expect(server.proc.exitCode).toBeNull();
    await withPg(database.url!, async (c) => {
      expect((await c.query("select count(*)::int as n from notes where title = 'during outage'")).rows[0].n).toBe(0);
    });
  });
});
