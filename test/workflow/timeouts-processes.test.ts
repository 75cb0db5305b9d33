/** Exactly once across processes (DESIGN.md > Durable jobs): two real server processes (container/main.ts) on one
 * Postgres database scan for workflow timeouts every 100 ms. Expired steps of every timeout action are made due
 * at once; each fires exactly once: one action row, one notification, one status change. Needs a Postgres server
 * (TEST_DATABASE_URL): two processes cannot share the embedded PGlite. */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneTestDatabase, createTestApp, type TestDatabase } from '../helpers/app.ts';
import { testEnv } from '../helpers/template.ts';
import { run } from '../../core/db/database.ts';
import { buildWorkflow, draft, instanceOf, role, submit, user, type App } from './setup.ts';
import { freePort } from '../helpers/free-port.ts';

const pgUrl = process.env.TEST_DATABASE_URL;
const PER_ACTION = 5;
const ACTIONS = ['auto-approve', 'auto-reject', 'escalate', 'notify'] as const;

let database: TestDatabase;
let t: App;
const servers: { proc: ChildProcess; output: string }[] = [];
const users: Record<string, string> = {};

async function startServer(): Promise<void> {
  const port = await freePort();
  const entry = { proc: null as unknown as ChildProcess, output: '' };
  entry.proc = spawn(process.execPath, ['--import', 'tsx', 'container/main.ts'], {
    env: {
      ...process.env, ...testEnv(),
      DATABASE_URL: database.url!, DB_POOL_MAX: '4', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error',
      REDIS_URL: '', SVC_MODE: 'container', WORKFLOW_TIMEOUT_INTERVAL: '100ms',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  entry.proc.stdout!.on('data', (d) => { entry.output += d; });
  entry.proc.stderr!.on('data', (d) => { entry.output += d; });
  servers.push(entry);
  const deadline = Date.now() + 60_000;
  while (!entry.output.includes('listening on')) {
    if (entry.proc.exitCode !== null) throw new Error(`server exited: ${entry.output}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${entry.output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!pgUrl)('workflow timeouts with two container processes', () => {
  beforeAll(async () => {
    database = await cloneTestDatabase();
    t = await createTestApp({ database });
    await run(t.services.database.db, `create table docs (id uuid primary key, title varchar(255) not null, slug varchar(64), body text,
      status varchar(32) default 'draft', category varchar(32), priority integer default 0, reviewer uuid, reviewed boolean default false);
      insert into svc_collections (collection, singleton, accountability) values ('docs', false, 'all');`);
    await t.services.schema.invalidate();
    users.editor = await user(t, (await role(t, 'editors', ['versioning:create', 'workflow:start'])).role, 'editor');
    const reviewers = (await role(t, 'reviewers', ['workflow:participate'])).role;
    users.r1 = await user(t, reviewers, 'r1');
    users.lead = await user(t, reviewers, 'lead');
    await Promise.all([startServer(), startServer()]);
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) {
      if (s.proc.exitCode === null) {
        s.proc.kill('SIGTERM');
        await new Promise((r) => s.proc.once('exit', r));
      }
    }
    await t?.close();
    await database?.drop();
  });

  it('each expired step fires exactly once', async () => {
    const steps: { action: string; instance: string; version: string; step: string }[] = [];
    for (const action of ACTIONS) {
      await run(t.services.database.db, 'update svc_workflows set active = false');
      await buildWorkflow(t, {
        name: `timeout-${action}`,
        steps: [
          { key: 'start', type: 'start' },
          { key: 'review', type: 'approval', assign_type: 'user', assign_value: users.r1, timeout_minutes: 60, timeout_action: action, options: { escalate_to: { user: users.lead } } },
          { key: 'done', type: 'end' },
        ],
        transitions: [['start', 'review', 'always'], ['review', 'done', 'approve']],
      });
      for (let i = 0; i < PER_ACTION; i++) {
        const item = crypto.randomUUID();
        const version = await draft(t, 'editor', { title: `${action} ${i}` }, item);
        expect((await submit(t, 'editor', version)).status).toBe(200);
        const instance = await instanceOf(t, version);
        const [is] = await run<{ id: string }>(t.services.database.db, "select id from svc_workflow_instance_steps where instance_id = $1 and status = 'active'", [instance.id]);
        steps.push({ action, instance: instance.id, version, step: is.id });
      }
    }
    // Nothing is due yet; now every step becomes due at once, and both processes race for them.
    await run(t.services.database.db, "update svc_workflow_instance_steps set timeout_at = now() - interval '1 minute' where id = any($1::uuid[])", [steps.map((s) => s.step)]);
    const db = t.services.database.db;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const [left] = await run<{ n: number }>(db, `select count(*)::int as n from svc_workflow_instance_steps
        where id = any($1::uuid[]) and timeout_fired_at is null`, [steps.map((s) => s.step)]);
      if (left.n === 0) break;
      if (Date.now() > deadline) throw new Error(`timeouts did not fire: ${servers.map((s) => s.output).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Let both processes scan a few more times: a double firing would show up now.
    await new Promise((r) => setTimeout(r, 1000));

    for (const s of steps) {
      const actions = await run<{ kind: string }>(db, 'select kind from svc_workflow_actions where instance_id = $1', [s.instance]);
      const [instance] = await run<{ status: string }>(db, 'select status from svc_workflow_instances where id = $1', [s.instance]);
      const [version] = await run<{ status: string }>(db, 'select status from svc_versions where id = $1', [s.version]);
      const [revisions] = await run<{ n: number }>(db, 'select count(*)::int as n from svc_revisions where version = $1', [s.version]);
      const [overdue] = await run<{ n: number }>(db, "select count(*)::int as n from svc_notifications where item = (select item from svc_versions where id = $1) and subject like 'Overdue:%'", [s.version]);
      const [escalated] = await run<{ n: number }>(db, "select count(*)::int as n from svc_notifications where item = (select item from svc_versions where id = $1) and subject like 'Escalated%'", [s.version]);
      const expected = {
        'auto-approve': { kinds: ['approve'], instance: 'approved', version: 'approved', revisions: 1, overdue: 0, escalated: 0 },
        'auto-reject': { kinds: ['reject'], instance: 'rejected', version: 'rejected', revisions: 0, overdue: 0, escalated: 0 },
        escalate: { kinds: ['escalate'], instance: 'running', version: 'pending', revisions: 0, overdue: 0, escalated: 1 },
        notify: { kinds: [], instance: 'running', version: 'pending', revisions: 0, overdue: 1, escalated: 0 },
      }[s.action]!;
      expect({ kinds: actions.map((a) => a.kind), instance: instance.status, version: version.status, revisions: revisions.n, overdue: overdue.n, escalated: escalated.n }, s.action)
        .toEqual(expected);
    }
    const [approvals] = await run<{ n: number }>(db, `select count(*)::int as n from svc_workflow_instance_steps s, json_array_elements(s.approvals)
      where s.id = any($1::uuid[])`, [steps.filter((s) => s.action === 'auto-approve').map((s) => s.step)]);
    expect(approvals.n).toBe(PER_ACTION);
    // The processes' own reports: together they fired each step once.
    const fired = servers.map((srv) => [...srv.output.matchAll(/workflow timeouts: (\d+) fired/g)].reduce((n, m) => n + Number(m[1]), 0));
    expect(fired.reduce((a, b) => a + b, 0)).toBe(steps.length);
  }, 120_000);
});
