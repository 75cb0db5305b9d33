/** Notify rows of the benchmark (keys n, o), on their own database (svc_bench_notify) and a local smtp-server:
 *
 *   (n) notifications sent per second by 1 notify worker (the outbox: claim with SKIP LOCKED, send, record) against
 *       nodemailer sending the same messages straight to the same server (pooled transport, same concurrency:
 *       FILES_MAX_UPLOAD_CONCURRENCY, default 5). Ratio = worker/direct msgs/s (target >= 0.8).
 *   (o) the same with 2 workers (two Services, each its own pool and SMTP connections) over one batch of logs.
 *
 * BENCH_NOTIFY_MESSAGES messages per measurement (default 2000); the direct run, then the worker run, each after a
 * warm-up of 10%. Everything runs in this process (the SMTP server too), so the event loop is shared alike.
 * Run alone with `BENCH_SCENARIOS=n,o npm run bench`. */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { loadConfig } from '../../core/config.ts';
import { openDatabase, run } from '../../core/db/database.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { htmlToText } from '../../core/notify/channels/text.ts';
import { createServices, type Services } from '../../core/services.ts';
import { startSmtpOn } from '../notify/outbox-helpers.ts';
import { withDatabase } from './shared.ts';

export const NOTIFY_SCENARIO_KEYS = ['n', 'o'] as const;

const here = dirname(fileURLToPath(import.meta.url));
const DB = 'svc_bench_notify';

const html = (i: number) => `<html><body><h1>Order ${i}</h1><p>${'Thank you for your order. '.repeat(20)}</p><p><a href="https://example.com/o/${i}">https://example.com/o/${i}</a></p></body></html>`;

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
  const config = loadConfig(env);
  const setup = await openDatabase({ databaseUrl: url });
  await migrateToLatest(setup);
  const rows: Row[] = [];
  const services: Services[] = [];
  try {
    const direct = async (count: number): Promise<number> => {
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, pool: true, maxConnections: concurrency, maxMessages: Infinity });
      const send = (i: number) => transport.sendMail({ from: 'bench@example.com', to: `d${i}@example.com`, subject: `Order ${i}`, html: html(i), text: htmlToText(html(i)) });
      for (let i = 0; i < Math.ceil(count / 10); i += concurrency) await Promise.all(Array.from({ length: concurrency }, (_, k) => send(i + k)));
      const t0 = performance.now();
      let next = 0;
      await Promise.all(Array.from({ length: concurrency }, async () => { while (next < count) await send(next++); }));
      const secs = (performance.now() - t0) / 1000;
      transport.close();
      return count / secs;
    };
    const viaWorkers = async (workers: number, count: number): Promise<number> => {
      while (services.length < workers) services.push(await createServices(config, { skipMigrations: true }));
      const used = services.slice(0, workers);
      const batch = async (m: number) => {
        await run(setup.db, `insert into svc_notify_logs (status, channel, recipients, subject_rendered, content_rendered)
          select 'pending', 'email', json_build_array('w' || g || '@example.com'), 'Order ' || g, $1 from generate_series(1, $2::int) g`, [html(0), m]);
        const before = used.reduce((s, x) => s + x.notify.sent, 0);
        const t0 = performance.now();
        for (const s of used) s.notify.wake();
        while (used.reduce((s, x) => s + x.notify.sent, 0) - before < m) await new Promise((r) => setTimeout(r, 5));
        await Promise.all(used.map((s) => s.notify.idle())); // outcomes written too
        return (performance.now() - t0) / 1000;
      };
      await batch(Math.ceil(count / 10));
      const secs = await batch(count);
      const [{ left }] = await run<{ left: number }>(setup.db, "select count(*)::int as left from svc_notify_logs where status <> 'sent'");
      if (left) throw new Error(`${left} logs not sent`);
      return count / secs;
    };
    for (const key of keys) {
      const workers = key === 'n' ? 1 : 2;
      log(`(${key}) ${n} messages: nodemailer direct, then ${workers} worker(s)`);
      const directPerSec = await direct(n);
      const workerPerSec = await viaWorkers(workers, n);
      const row: Row = { key, name: `notifications sent/s, ${workers} worker${workers > 1 ? 's' : ''} vs nodemailer direct`, workers, messages: n, workerPerSec, directPerSec, ratio: workerPerSec / directPerSec };
      rows.push(row);
      log(`(${key}) worker ${workerPerSec.toFixed(0)} msg/s, direct ${directPerSec.toFixed(0)} msg/s, ratio ${row.ratio.toFixed(2)}`);
    }
  } finally {
    for (const s of services) await s.close();
    await setup.close();
    await smtp.close();
    await admin(settings.adminUrl, `drop database if exists ${DB} with (force)`);
  }
  const meta = { date: new Date().toISOString(), cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, concurrency, loadAverageAtStart: load0.toFixed(2), loadAverageAtEnd: loadavg()[0].toFixed(2), received: smtp.messages.length };
  const md = [
    '| scenario | worker msgs/s | nodemailer direct msgs/s | ratio (worker/direct) |',
    '|---|---:|---:|---:|',
    ...rows.map((r) => `| (${r.key}) ${r.name} | ${r.workerPerSec.toFixed(0)} | ${r.directPerSec.toFixed(0)} | ${r.ratio.toFixed(2)} |`),
    '',
    `Run ${meta.date}: ${rows[0]?.messages ?? 0} messages per measurement (after a 10% warm-up), ${concurrency} sends in flight per worker and for nodemailer (pooled SMTP, ${concurrency} connections); the SMTP server (smtp-server) and the workers share one Node process; it and Postgres share ${meta.cores} x ${meta.cpu} (1-min load ${meta.loadAverageAtStart} before, ${meta.loadAverageAtEnd} after). Node ${meta.node}.`,
  ].join('\n');
  console.log(md);
  writeFileSync(join(here, 'results-notify.md'), md + '\n');
  writeFileSync(join(here, 'results-notify.json'), JSON.stringify({ meta, scenarios: rows }, null, 2) + '\n');
}
