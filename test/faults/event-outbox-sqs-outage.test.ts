/** Action events survive an SQS outage, for real: the split topology (test/split/harness.ts: a functions process
 * and a container process, the SQS test server, Redis) with an extension whose action hook appends each run to a
 * file. A stream of creates goes through the functions half; the SQS server is stopped for 30 s in the middle of it
 * and brought back on the same port (with the messages it had accepted, as SQS keeps them). The functions half's
 * sends fail meanwhile; the writes still commit, and their events wait in the outbox for the container's relay.
 * Afterwards every committed create's hook has run exactly once. Without the outbox the events whose send failed
 * are gone. */
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqs, type SqsServer } from '../helpers/sqs-server.ts';
import { SPLIT_ENABLED, SPLIT_SKIP_REASON, startSplit, until, type Split } from '../split/harness.ts';
import { sleep, withPg } from './harness.ts';

interface Run { event: string; collection: string; keys: unknown[]; eventId: string }

const OUTAGE_MS = 30_000;
let split: Split | undefined;
/** The server brought back after the outage (the harness closes only the one it started). */
let restarted: SqsServer | undefined;
let dir: string;
let witness: string;

function runs(): Run[] {
  if (!existsSync(witness)) return [];
  return readFileSync(witness, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Run);
}

describe.skipIf(!SPLIT_ENABLED)(`action events: SQS down for 30 s under a stream of writes${SPLIT_ENABLED ? '' : ` (skipped: ${SPLIT_SKIP_REASON})`}`, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-outbox-sqs-'));
    witness = join(dir, 'runs.jsonl');
    split = await startSplit({
      env: {
        EXTENSIONS_PATH: 'test/faults/extensions', EVENT_WITNESS_FILE: witness,
        EVENTS_RELAY_INTERVAL: '200ms', EVENTS_RELAY_GRACE: '2s', EVENTS_RELAY_RETRY_MAX_DELAY: '2s',
      },
      async prepare(url) {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        try {
          await c.query('create table notes (id serial primary key, title text)');
          await c.query("insert into svc_collections (collection, accountability) values ('notes', 'all')");
        } finally {
          await c.end();
        }
      },
    });
  }, 180_000);

  afterAll(async () => {
    await split?.close();
    await restarted?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the hook of every committed change exactly once once SQS is back', async () => {
    const s = split!;
    let stop = false;
    let acked = 0;
    let ackedDuringOutage = 0;
    let outage = false;
    const writers = [0, 1, 2].map(async (w) => {
      for (let i = 0; !stop; i++) {
        const res = await s.req('POST', '/items/notes', { body: { title: `sqs ${w}-${i}` } }).catch(() => null);
        if (res?.status === 200) {
          acked += 1;
          if (outage) ackedDuringOutage += 1;
        }
        await sleep(100);
      }
    });

    await until(() => acked >= 15, 30_000, 'writes before the outage');
    const port = Number(new URL(s.sqs.endpoint).port);
    const state = s.sqs.state;
    await s.sqs.close();
    outage = true;
    await sleep(OUTAGE_MS);
    outage = false;
    restarted = await startSqs({ port, restore: state });
    const afterOutage = acked;
    await until(() => acked >= afterOutage + 15, 60_000, 'writes after the outage');
    stop = true;
    await Promise.all(writers);
    // The writes went on while SQS was down: committed, and answered.
    expect(ackedDuringOutage).toBeGreaterThan(10);

    const ids = await withPg(s.database.url, async (c) => (await c.query('select id from notes order by id')).rows.map((r) => r.id as number));
    expect(ids.length).toBeGreaterThanOrEqual(acked);
    const createdOnce = () => {
      const all = runs();
      return ids.every((id) => all.some((r) => r.event === 'items.create' && r.keys.includes(id)));
    };
    await until(createdOnce, 120_000, 'a hook run for every committed create');
    // A second delivery of anything would show up by now (the relay scans every 200 ms).
    await sleep(3000);
    const creates = runs().filter((r) => r.event === 'items.create' && r.collection === 'notes');
    for (const id of ids) expect(creates.filter((r) => r.keys.length === 1 && r.keys[0] === id), `create ${id}`).toHaveLength(1);
    expect(creates).toHaveLength(ids.length);

    await until(async () => withPg(s.database.url, async (c) => (await c.query('select count(*)::int as n from svc_event_outbox')).rows[0].n === 0),
      30_000, 'the outbox to be pruned');
  }, 300_000);
});
