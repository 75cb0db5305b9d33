/** Notify rows of the benchmark (keys n, o), on their own database (svc_bench_notify) and a local smtp-server:
 *
 *   (n) notifications sent per second by 1 notify worker process (the outbox: claim with SKIP LOCKED, send, record)
 *       against 1 nodemailer process sending the same messages straight to the same server (pooled transport, same
 *       concurrency: FILES_MAX_UPLOAD_CONCURRENCY, default 5). Ratio = worker/direct msgs/s (target >= 0.8).
 *   (o) the same with 2 worker processes over one batch of logs, against 2 nodemailer processes sharing the same
 *       number of messages (half each, 5 in flight each).
 *
 * Each worker and each nodemailer sender is its own Node process (test/bench/notify-child.ts: the worker through
 * createServices on the bench database, only the notify worker running; no HTTP server), spawned afresh per row and
 * timed by this process from its command (`wake` / `send`) to the last answer (workers: every outcome written). The
 * SMTP server runs in this process, which otherwise only reads the children's reports. BENCH_NOTIFY_MESSAGES
 * messages per measurement (default 2000); the direct run, then the worker run, each after a warm-up of 10% in the
 * same processes.
 * Run alone with `BENCH_SCENARIOS=n,o npm run bench`. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase, run } from '../../core/db/database.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { startSmtpOn } from '../notify/outbox-helpers.ts';
import { benchHtml } from './notify-html.ts';
import { withDatabase } from './shared.ts';

export const NOTIFY_SCENARIO_KEYS = ['n', 'o'] as const;

const here = dirname(fileURLToPath(import.meta.url));
const DB = 'svc_bench_notify';

const childFile = join(here, 'notify-child.ts');

interface Child { sent: number; send(line: string): void; next(line: string): Promise<void>; end(): Promise<void>; kill(): void }

/** Spawns test/bench/notify-child.ts and resolves once it printed `ready`. */
async function spawnChild(args: string[], env: NodeJS.ProcessEnv, all: Set<Child>): Promise<Child> {
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', childFile, ...args], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiters = new Map<string, (() => void)[]>();
  let exited = false;
  const child: Child = {
    sent: 0,
    send: (line) => { proc.stdin!.write(line + '\n'); },
    next: (line) => new Promise<void>((resolve, reject) => {
      if (exited) { reject(new Error(`notify-child ${args[0]} exited`)); return; }
      waiters.set(line, [...(waiters.get(line) ?? []), resolve]);
      proc.once('exit', (code) => reject(new Error(`notify-child ${args[0]} exited (${code}) before ${line}`)));
    }),
    end: () => new Promise<void>((resolve) => {
      all.delete(child);
      if (exited) { resolve(); return; }
      const timer = setTimeout(() => proc.kill(), 10_000);
      proc.once('exit', () => { clearTimeout(timer); resolve(); });
      proc.stdin!.end();
    }),
    kill: () => { if (!exited) proc.kill(); },
  };
  all.add(child);
  proc.once('exit', () => { exited = true; });
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    if (line.startsWith('sent ')) { child.sent = Number(line.slice(5)); return; }
    const w = waiters.get(line);
    if (w?.length) w.shift()!();
  });
  await child.next('ready');
  return child;
}

async function admin(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try { await c.query(sql); } finally { await c.end(); }
}

interface Row { key: string; name: string; workers: number; messages: number; workerPerSec: number; directPerSec: number; ratio: number }

export async function runNotifyBench(keys: readonly string[], settings: { adminUrl: string }): Promise<void> {
  const n = Number(process.env.BENCH_NOTIFY_MESSAGES ?? 2000);
  const concurrency = Number(process.env.FILES_MAX_UPLOAD_CONCURRENCY ?? 5);
  const log = (m: string) => console.log(`[bench notify] ${m}`);
  const load0 = loadavg()[0];
  await admin(settings.adminUrl, `drop database if exists ${DB} with (force)`);
  await admin(settings.adminUrl, `create database ${DB}`);
  const url = withDatabase(settings.adminUrl, DB);
  const smtp = await startSmtpOn(0);
  const env = {
    DATABASE_URL: url, SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn', ADMIN_EMAIL: 'bench@example.com', ADMIN_PASSWORD: `b-${randomBytes(8).toString('hex')}`,
    EMAIL_SMTP_HOST: '127.0.0.1', EMAIL_SMTP_PORT: String(smtp.port), EMAIL_FROM: 'bench@example.com', FILES_MAX_UPLOAD_CONCURRENCY: String(concurrency),
    NOTIFY_SCAN_INTERVAL: '1h',
  };
  const setup = await openDatabase({ databaseUrl: url });
  await migrateToLatest(setup);
  const rows: Row[] = [];
  const children = new Set<Child>();
  const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env };
  try {
    /** `procs` nodemailer processes, `count` messages split between them; seconds from `send` to the last `done`. */
    const direct = async (procs: number, count: number): Promise<number> => {
      const used = await Promise.all(Array.from({ length: procs }, () => spawnChild(['direct', String(smtp.port), String(concurrency)], childEnv, children)));
      try {
        const round = async (m: number, offset: number) => {
          const t0 = performance.now();
          const share = Math.ceil(m / procs);
          await Promise.all(used.map((c, k) => { const waiting = c.next('done'); c.send(`send ${Math.min(share, m - k * share)} ${offset + k * share}`); return waiting; }));
          return (performance.now() - t0) / 1000;
        };
        await round(Math.ceil(count / 10), 1_000_000);
        return count / await round(count, 0);
      } finally {
        for (const c of used) await c.end();
      }
    };
    /** `workers` worker processes over one batch of `count` logs; seconds from `wake` until all are sent and recorded. */
    const viaWorkers = async (workers: number, count: number): Promise<number> => {
      const used = await Promise.all(Array.from({ length: workers }, () => spawnChild(['worker'], childEnv, children)));
      try {
        const total = () => used.reduce((s, c) => s + c.sent, 0);
        const batch = async (m: number) => {
          await run(setup.db, `insert into svc_notify_logs (status, channel, recipients, subject_rendered, content_rendered)
            select 'pending', 'email', json_build_array('w' || g || '@example.com'), 'Order ' || g, $1 from generate_series(1, $2::int) g`, [benchHtml(0), m]);
          const before = total();
          const t0 = performance.now();
          for (const c of used) c.send('wake');
          while (total() - before < m) await new Promise((r) => setTimeout(r, 5));
          await Promise.all(used.map((c) => { const waiting = c.next('idle'); c.send('idle'); return waiting; })); // outcomes written too
          return (performance.now() - t0) / 1000;
        };
        await batch(Math.ceil(count / 10));
        const secs = await batch(count);
        const [{ left }] = await run<{ left: number }>(setup.db, "select count(*)::int as left from svc_notify_logs where status <> 'sent'");
        if (left) throw new Error(`${left} logs not sent`);
        return count / secs;
      } finally {
        for (const c of used) await c.end();
      }
    };
    for (const key of keys) {
      const workers = key === 'n' ? 1 : 2;
      log(`(${key}) ${n} messages: ${workers} nodemailer process(es), then ${workers} worker process(es)`);
      const directPerSec = await direct(workers, n);
      const workerPerSec = await viaWorkers(workers, n);
      const row: Row = { key, name: `notifications sent/s, ${workers} worker process${workers > 1 ? 'es' : ''} vs ${workers} nodemailer process${workers > 1 ? 'es' : ''}`, workers, messages: n, workerPerSec, directPerSec, ratio: workerPerSec / directPerSec };
      rows.push(row);
      log(`(${key}) worker ${workerPerSec.toFixed(0)} msg/s, direct ${directPerSec.toFixed(0)} msg/s, ratio ${row.ratio.toFixed(2)}`);
    }
  } finally {
    for (const c of children) c.kill();
    await setup.close();
    await smtp.close();
    await admin(settings.adminUrl, `drop database if exists ${DB} with (force)`);
  }
  const meta = { date: new Date().toISOString(), cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, concurrency, loadAverageAtStart: load0.toFixed(2), loadAverageAtEnd: loadavg()[0].toFixed(2), received: smtp.messages.length, layout: 'one Node process per worker and per nodemailer sender; smtp-server in the bench process' };
  const md = [
    '| scenario | worker msgs/s | nodemailer direct msgs/s | ratio (worker/direct) |',
    '|---|---:|---:|---:|',
    ...rows.map((r) => `| (${r.key}) ${r.name} | ${r.workerPerSec.toFixed(0)} | ${r.directPerSec.toFixed(0)} | ${r.ratio.toFixed(2)} |`),
    '',
    `Run ${meta.date}: ${rows[0]?.messages ?? 0} messages per measurement (after a 10% warm-up), ${concurrency} sends in flight per worker and for nodemailer (pooled SMTP, ${concurrency} connections); each worker and each nodemailer sender its own Node process (spawned per row), the SMTP server (smtp-server) in the bench process; these, Postgres and any other load share ${meta.cores} x ${meta.cpu} (1-min load ${meta.loadAverageAtStart} before, ${meta.loadAverageAtEnd} after). Node ${meta.node}.`,
  ].join('\n');
  console.log(md);
  writeFileSync(join(here, 'results-notify.md'), md + '\n');
  writeFileSync(join(here, 'results-notify.json'), JSON.stringify({ meta, scenarios: rows }, null, 2) + '\n');
}
