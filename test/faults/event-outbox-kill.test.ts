/** Action events survive a SIGKILL between commit and send, for real: a standalone server process (Postgres) with an
 * extension whose action hooks append each run to a file takes a stream of creates and updates, each acknowledged
 * (committed), while TEST_EVENTS_PAUSE_BEFORE_SEND holds every send after commit; the process is SIGKILLed in that
 * window, before any hook ran. A new process on the same database (no pause) relays the outbox: every committed
 * change's hook runs exactly once, and the outbox is empty afterwards. Without the outbox the events lived only in
 * the killed process's memory and no hook ever runs for them. */
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../helpers/app.ts';
import { call, until } from '../split/harness.ts';
import { notesDatabase, PG_SKIP, PG_URL, sleep, spawnServer, withPg, type FaultServer } from './harness.ts';

interface Run { event: string; collection: string; keys: unknown[]; eventId: string; pid: number }

let database: TestDatabase;
let server: FaultServer | undefined;
let dir: string;

function runs(file: string): Run[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Run);
}

describe.skipIf(!PG_URL)(`action events: SIGKILL between commit and send${PG_SKIP}`, () => {
  beforeAll(async () => {
    database = await notesDatabase(10);
    dir = mkdtempSync(join(tmpdir(), 'svc-outbox-kill-'));
  }, 150_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs every committed change\'s action hook exactly once after a restart', async () => {
    const witness = join(dir, 'runs.jsonl');
    const env = { EXTENSIONS_PATH: 'test/faults/extensions', EVENT_WITNESS_FILE: witness, EVENTS_RELAY_INTERVAL: '200ms', EVENTS_RELAY_GRACE: '30s' };
    server = await spawnServer({ databaseUrl: database.url!, env: { ...env, TEST_EVENTS_PAUSE_BEFORE_SEND: '1h' } });

    // Creates and updates, four at a time; each answered 200 has committed.
    const created: number[] = [];
    const updated: number[] = [];
    const started = Date.now();
    await Promise.all([0, 1, 2, 3].map(async (w) => {
      for (let i = 0; i < 8; i++) {
        const res = await call(server!.url, 'POST', '/items/notes', { body: { title: `kill ${w}-${i}` } });
        expect(res.status).toBe(200);
        created.push(res.body.data);
        const target = w * 2 + (i % 2) + 1;
        const patched = await call(server!.url, 'PATCH', `/items/notes/${target}`, { body: { title: `patched ${w}-${i}` } });
        expect(patched.status).toBe(200);
        if (!updated.includes(target)) updated.push(target);
      }
    }));
    // Still inside the grace period: neither the paused send nor the relay of this process has sent anything.
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(runs(witness)).toEqual([]);
    server.proc.kill('SIGKILL');
    await server.exited;

    server = await spawnServer({ databaseUrl: database.url!, env });
    const createdOnce = (list: Run[]) => created.every((id) => list.some((r) => r.event === 'items.create' && r.keys.includes(id)));
    await until(() => createdOnce(runs(witness)) && runs(witness).filter((r) => r.event === 'items.update').length >= 32, 90_000, 'the relayed hooks');
    // Anything relayed twice would show up by now (the relay scans every 200 ms).
    await sleep(2000);

    const all = runs(witness);
    expect(all.every((r) => r.pid === server!.proc.pid), 'every hook ran in the restarted process').toBe(true);
    for (const id of created) {
      expect(all.filter((r) => r.event === 'items.create' && r.collection === 'notes' && r.keys.length === 1 && r.keys[0] === id), `create ${id}`).toHaveLength(1);
    }
    // 32 updates were acknowledged, each its own event: each ran once.
    const updates = all.filter((r) => r.event === 'items.update');
    expect(updates).toHaveLength(32);
    expect(new Set(updates.map((r) => r.eventId)).size).toBe(32);
    expect(new Set(updates.flatMap((r) => r.keys))).toEqual(new Set(updated));
    expect(new Set(all.map((r) => r.eventId)).size).toBe(all.length);

    await withPg(database.url!, async (c) => {
      const { rows } = await c.query('select count(*)::int as n from svc_event_outbox');
      expect(rows[0].n, 'delivered events are pruned').toBe(0);
    });
  }, 240_000);
});
