/** Exactly once across processes (DESIGN.md > Durable jobs): two real container processes (container/main.ts) on one
 * Postgres database (and one Redis, when REDIS_URL is set) scan for due schedules every 100 ms. Many publish and
 * unpublish schedules fall due at once and one process is killed (SIGKILL) while they run; each schedule still runs
 * exactly once: one promotion, one revision, one update in activity per item. Then the other process stops too, a
 * schedule falls due while nothing runs, and the killed process, started again, runs it at its first scan. Needs a
 * Postgres server (TEST_DATABASE_URL): two processes cannot share the embedded PGlite. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, cloneTestDatabase, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { PG_SKIP, spawnServer, type FaultServer } from '../faults/harness.ts';
import { principal } from '../versions/setup.ts';

const PUBLISH = 40;
const UNPUBLISH = 10;

let database: TestDatabase;
let t: TestApp;
const servers: FaultServer[] = [];
const namespace = `sched-${randomBytes(4).toString('hex')}`;

const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const item = (i: number) => `eeeeeeee-0000-4000-8000-${String(i).padStart(12, '0')}`;
const inHour = () => new Date(Date.now() + 3600_000).toISOString();

function start(): Promise<FaultServer> {
  return spawnServer({
    databaseUrl: database.url!, mode: 'container',
    env: { PUBLISH_SCHEDULE_INTERVAL: '100ms', REDIS_URL: process.env.REDIS_URL ?? '', REDIS_NAMESPACE: namespace },
  }).then((s) => { servers.push(s); return s; });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: timed out\n${servers.map((s) => s.output()).join('\n---\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const statusCount = async (ids: string[], status: string) =>
  (await q<{ n: number }>('select count(*)::int as n from svc_schedules where id = any($1::uuid[]) and status = $2', [ids, status]))[0].n;

describe.skipIf(!process.env.TEST_DATABASE_URL)(`publish schedules with two container processes${PG_SKIP}`, () => {
  const publish: { id: string; version: string; item: string }[] = [];
  const unpublish: { id: string; item: string }[] = [];

  beforeAll(async () => {
    database = await cloneTestDatabase();
    t = await createTestApp({ database });
    await q(`create table docs (id uuid primary key, title varchar(255), status varchar(32) default 'published');
      insert into svc_collections (collection, singleton, accountability) values ('docs', false, 'all');`);
    await q("insert into docs (id, title) select ('eeeeeeee-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, 'Doc ' || g from generate_series(1, $1::int) g", [PUBLISH + UNPUBLISH + 1]);
    await t.services.schema.invalidate();
    await principal(t, 'proc-editor', [{ collection: 'docs', action: 'read' }, { collection: 'docs', action: 'update' }], ['versioning:view', 'versioning:create']);
    const as = { token: 'proc-editor' };
    for (let i = 1; i <= PUBLISH; i++) {
      const v = await t.req('POST', '/versions', { key: 'next', collection: 'docs', item: item(i), delta: { title: `Published ${i}` } }, as);
      expect(v.status, JSON.stringify(v.body)).toBe(200);
      const s = await t.req('POST', '/schedules', { action: 'publish', version: v.body.data, scheduled_at: inHour() }, as);
      expect(s.status, JSON.stringify(s.body)).toBe(200);
      publish.push({ id: s.body.data, version: v.body.data, item: item(i) });
    }
    for (let i = PUBLISH + 1; i <= PUBLISH + UNPUBLISH; i++) {
      const s = await t.req('POST', '/schedules', { action: 'unpublish', collection: 'docs', item: item(i), scheduled_at: inHour() }, as);
      expect(s.status, JSON.stringify(s.body)).toBe(200);
      unpublish.push({ id: s.body.data, item: item(i) });
    }
    await Promise.all([start(), start()]);
  }, 180_000);

  afterAll(async () => {
    for (const s of servers) await s.stop();
    await t?.close();
    await database?.drop();
  });

  it('many schedules due at once, one process killed meanwhile: each runs exactly once', async () => {
    const ids = [...publish.map((p) => p.id), ...unpublish.map((u) => u.id)];
    // Nothing is due yet; now every schedule is, and both processes race for them.
    await q("update svc_schedules set scheduled_at = now() - interval '1 second' where id = any($1::uuid[])", [ids]);
    await waitFor('a first part ran', async () => (await statusCount(ids, 'done')) >= 8);
    await servers[0].stop();
    await waitFor('every schedule ran', async () => (await statusCount(ids, 'done')) === ids.length);
    // Let the survivor scan a few more times: a second run would show now.
    await new Promise((r) => setTimeout(r, 600));

    for (const p of publish) {
      const [doc] = await q('select title, status from docs where id = $1', [p.item]);
      expect(doc, p.item).toEqual({ title: `Published ${Number(p.item.slice(-12))}`, status: 'published' });
      const [revisions] = await q<{ n: number }>('select count(*)::int as n from svc_revisions where version = $1', [p.version]);
      const [updates] = await q<{ n: number }>("select count(*)::int as n from svc_activity where collection = 'docs' and item = $1 and action = 'update'", [p.item]);
      const [version] = await q('select status from svc_versions where id = $1', [p.version]);
      expect({ revisions: revisions.n, updates: updates.n, version: version.status }, p.item).toEqual({ revisions: 1, updates: 1, version: 'approved' });
    }
    for (const u of unpublish) {
      const [doc] = await q('select status from docs where id = $1', [u.item]);
      const [updates] = await q<{ n: number }>("select count(*)::int as n from svc_activity where collection = 'docs' and item = $1 and action = 'update'", [u.item]);
      expect({ status: doc.status, updates: updates.n }, u.item).toEqual({ status: 'draft', updates: 1 });
    }
    const rows = await q('select status, error, ran_at from svc_schedules where id = any($1::uuid[])', [ids]);
    expect(rows.filter((r) => r.status !== 'done' || r.error !== null || r.ran_at === null)).toEqual([]);
  }, 120_000);

  it('a schedule that falls due while every process is down runs at the next start, once', async () => {
    const doc = item(PUBLISH + UNPUBLISH + 1);
    const v = await t.req('POST', '/versions', { key: 'late', collection: 'docs', item: doc, delta: { title: 'Published late' } }, { token: 'proc-editor' });
    const s = await t.req('POST', '/schedules', { action: 'publish', version: v.body.data, scheduled_at: inHour() }, { token: 'proc-editor' });
    expect(s.status).toBe(200);
    // The other process stops as well (gracefully: a scan under way finishes first).
    servers[1].proc.kill('SIGTERM');
    expect((await servers[1].exited).code).toBe(0);
    await q("update svc_schedules set scheduled_at = now() - interval '1 second' where id = $1", [s.body.data]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusCount([s.body.data], 'scheduled')).toBe(1);

    const restarted = await start();
    await waitFor('the late schedule ran', async () => (await statusCount([s.body.data], 'done')) === 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(await q('select title from docs where id = $1', [doc])).toEqual([{ title: 'Published late' }]);
    expect(await q<{ n: number }>('select count(*)::int as n from svc_revisions where version = $1', [v.body.data])).toEqual([{ n: 1 }]);
    expect(restarted.output()).toMatch(/publish schedules: 1 done, 0 failed/);
  }, 120_000);
});
