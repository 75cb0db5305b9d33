/** Cost of the HTTP metrics (METRICS_ENABLED): the same primary-key read, GET /items/posts/{id}, against two
 * service processes on one database, one with METRICS_ENABLED=false and one with METRICS_ENABLED=true (the
 * middleware of functions/http/metrics-middleware.ts, default process metrics registered). Measured alternately,
 * BENCH_ROUNDS rounds (default 4) in ABBA order (off/on, on/off, ...), with autocannon, and averaged, so load from other work on the machine
 * falls on both sides alike. Ratio = on/off req/s (target >= 0.95: under 5% cost). On a machine shared with other
 * work req/s swings by tens of percent from run to run, so the service process's own CPU time per request
 * (user + system from /proc/<pid>/stat over the measured seconds) is reported too: it hardly depends on what else
 * runs, and on/off of it is the cost of the metrics per request.
 *
 * Run alone: `npx tsx test/bench/metrics.ts` (BENCH_DATABASE_URL is the admin connection, default
 * postgres://postgres@127.0.0.1:5432/postgres; database svc_bench_metrics is created and dropped; ports 8066/8067).
 * Knobs: BENCH_DURATION (10 s), BENCH_WARMUP (2 s), BENCH_CONNECTIONS (10), BENCH_ROUNDS (4), BENCH_POSTS (2000).
 * Writes test/bench/results-metrics.md and results-metrics.json.
 *
 * Before the A/B it measures the middleware alone, in process and without sockets or a database (a Hono app with
 * the route /items/:collection/:pk answering a small JSON body, BENCH_MICRO_REQUESTS app.request calls (50,000)
 * with and without it, in 20 alternating slices, median per side): microseconds added per request, a figure that machine load
 * disturbs far less than req/s. */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { createHttpMetrics } from '../../core/metrics/http-metrics.ts';
import { metricsMiddleware } from '../../functions/http/metrics-middleware.ts';
import type { AppEnv } from '../../functions/http/env.ts';
import { startServer, type ServerProcess } from './processes.ts';
import { withDatabase, query, fmt } from './shared.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const DATABASE = 'svc_bench_metrics';

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

const settings = {
  adminUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  duration: envInt('BENCH_DURATION', 10),
  warmup: envInt('BENCH_WARMUP', 2),
  connections: envInt('BENCH_CONNECTIONS', 10),
  rounds: envInt('BENCH_ROUNDS', 4),
  posts: envInt('BENCH_POSTS', 2000),
  microRequests: envInt('BENCH_MICRO_REQUESTS', 50_000),
};

/** Microseconds per app.request with and without the metrics middleware (median of 20 alternating slices each). */
async function micro(): Promise<{ offUs: number; onUs: number; addedUs: number }> {
  const build = (withMetrics: boolean) => {
    const app = new Hono<AppEnv>();
    if (withMetrics) app.use('*', metricsMiddleware(createHttpMetrics({ enabled: true, namePrefix: 'bench_' })));
    app.use('*', async (_c, next) => { await next(); });
    app.get('/items/:collection/:pk', (c) => c.json({ data: { id: Number(c.req.param('pk')), title: 'Post', status: 'published' } }));
    return app;
  };
  const apps = [build(false), build(true)];
  const time = async (app: Hono<AppEnv>, n: number) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await (await app.request(`/items/posts/${i % 100}`)).arrayBuffer();
    return ((performance.now() - t0) * 1000) / n;
  };
  for (const app of apps) await time(app, 5000);
  // Many short alternating slices and the median of each side: a burst of load from elsewhere on the machine
  // spoils a few slices of both sides, not one whole side.
  const slices: number[][] = [[], []];
  const sliceSize = Math.max(1000, Math.floor(settings.microRequests / 20));
  for (let done = 0; done < settings.microRequests; done += sliceSize) {
    for (let side = 0; side < 2; side++) slices[side].push(await time(apps[side], sliceSize));
  }
  const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  const best = slices.map(median);
  return { offUs: best[0], onUs: best[1], addedUs: best[1] - best[0] };
}

function log(message: string) {
  console.log(`[bench:metrics] ${message}`);
}

interface Side { requestsPerSec: number; p50Ms: number; p99Ms: number; requests: number; non2xx: number; errors: number; cpuUsPerRequest: number }

/** CPU time (user + system) a process has used, in microseconds, from /proc (Linux); null elsewhere. */
function cpuMicros(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the command name, in clock ticks.
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / CLOCK_TICKS);
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100;

async function measure(server: ServerProcess, path: string, headers: Record<string, string>): Promise<Side> {
  const run = (duration: number) => autocannon({ url: server.baseUrl, connections: settings.connections, duration, requests: [{ method: 'GET', path, headers }] });
  await run(settings.warmup);
  const cpuBefore = cpuMicros(server.child.pid!);
  const r = await run(settings.duration);
  const cpuAfter = cpuMicros(server.child.pid!);
  const cpuUsPerRequest = cpuBefore === null || cpuAfter === null || !r.requests.total ? NaN : (cpuAfter - cpuBefore) / r.requests.total;
  return { requestsPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, requests: r.requests.total, non2xx: r.non2xx, errors: r.errors + r.timeouts, cpuUsPerRequest };
}

function mean(sides: Side[]): Side {
  const avg = (f: (s: Side) => number) => sides.reduce((a, s) => a + f(s), 0) / sides.length;
  const sum = (f: (s: Side) => number) => sides.reduce((a, s) => a + f(s), 0);
  return {
    requestsPerSec: avg((s) => s.requestsPerSec), p50Ms: avg((s) => s.p50Ms), p99Ms: avg((s) => s.p99Ms),
    requests: sum((s) => s.requests), non2xx: sum((s) => s.non2xx), errors: sum((s) => s.errors),
    cpuUsPerRequest: avg((s) => s.cpuUsPerRequest),
  };
}

async function main(): Promise<void> {
  const dbUrl = withDatabase(settings.adminUrl, DATABASE);
  const email = 'bench-metrics@example.com';
  const password = `bench-${randomBytes(9).toString('hex')}`;
  const secret = randomBytes(32).toString('hex');
  const started: ServerProcess[] = [];
  const loadBefore = Number(loadavg()[0].toFixed(2));
  const m = await micro();
  log(`in process: ${fmt(m.offUs, 1)} us/request without, ${fmt(m.onUs, 1)} us with the middleware: ${fmt(m.addedUs, 1)} us added`);
  await query(settings.adminUrl, `drop database if exists ${DATABASE} with (force)`);
  await query(settings.adminUrl, `create database ${DATABASE}`);
  try {
    const env = (metrics: boolean) => ({
      DATABASE_URL: dbUrl, ADMIN_EMAIL: email, ADMIN_PASSWORD: password, SECRET: secret, LOG_LEVEL: 'warn', NODE_ENV: 'production',
      RATE_LIMITER_ENABLED: 'false', ACCESS_TOKEN_TTL: '12h', METRICS_ENABLED: String(metrics),
    });
    // The first process migrates, bootstraps and seeds; the second starts on the seeded database (each process
    // caches the schema in memory: no shared store here).
    const off = await startServer({ name: 'service-metrics-off', cwd: root, script: 'container/main.ts', port: 8066, env: env(false) });
    started.push(off);

    const token = `bench-admin-${randomBytes(12).toString('hex')}`;
    await query(dbUrl, 'update svc_users set token = $1 where email = $2', [token, email]);
    const headers = { authorization: `Bearer ${token}` };
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(off.baseUrl + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`);
      return text ? (JSON.parse(text) as { data: unknown }).data : undefined;
    };
    const pk = { field: 'id', type: 'integer', meta: { hidden: true }, schema: { is_primary_key: true, has_auto_increment: true } };
    const field = (name: string, type: string) => ({ field: name, type, meta: { interface: 'input' }, schema: {} });
    await api('POST', '/collections', { collection: 'posts', meta: {}, schema: { name: 'posts' }, fields: [pk, field('title', 'string'), field('body', 'text'), field('status', 'string'), field('views', 'integer')] });
    for (let done = 0; done < settings.posts; done += 500) {
      const n = Math.min(500, settings.posts - done);
      await api('POST', '/items/posts', Array.from({ length: n }, (_, i) => ({ title: `Post ${done + i}`, body: 'Lorem ipsum dolor sit amet. '.repeat(8), status: 'published', views: done + i })));
    }
    await query(dbUrl, 'vacuum analyze posts');
    const on = await startServer({ name: 'service-metrics-on', cwd: root, script: 'container/main.ts', port: 8067, env: env(true) });
    started.push(on);
    const id = Math.ceil(settings.posts / 2);
    const path = `/items/posts/${id}`;

    // Pre-flight: both answer the same record; the metrics side serves /server/metrics, the other 404s.
    const answers = await Promise.all([off, on].map(async (s) => {
      const res = await fetch(s.baseUrl + path, { headers });
      if (res.status !== 200) throw new Error(`pre-flight: ${s.name} ${path} -> ${res.status}`);
      return res.text();
    }));
    if (answers[0] !== answers[1]) throw new Error(`pre-flight: the two services answer differently:\n${answers[0]}\n${answers[1]}`);
    const disabled = await fetch(`${off.baseUrl}/server/metrics`, { headers });
    if (disabled.status !== 404) throw new Error(`pre-flight: metrics-off service answered /server/metrics with ${disabled.status}`);
    log(`seeded ${settings.posts} posts; measuring GET ${path}, ${settings.rounds} rounds (ABBA), ${settings.warmup} s warm-up + ${settings.duration} s each, ${settings.connections} connections`);

    const rounds: Side[][] = [[], []];
    for (let i = 0; i < settings.rounds; i++) {
      // ABBA order: off first in even rounds, on first in odd ones, so neither side always follows the other.
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      for (const side of order) rounds[side].push(await measure(side === 0 ? off : on, path, headers));
      log(`round ${i + 1}: off ${fmt(rounds[0][i].requestsPerSec)} req/s (${fmt(rounds[0][i].cpuUsPerRequest)} us CPU/request), on ${fmt(rounds[1][i].requestsPerSec)} req/s (${fmt(rounds[1][i].cpuUsPerRequest)} us CPU/request)`);
    }
    const [offSide, onSide] = rounds.map(mean);
    const ratio = offSide.requestsPerSec ? onSide.requestsPerSec / offSide.requestsPerSec : 0;
    const cpuRatio = onSide.cpuUsPerRequest / offSide.cpuUsPerRequest;
    const share = m.addedUs / offSide.cpuUsPerRequest;

    // The metrics side really recorded the reads.
    const scraped = await (await fetch(`${on.baseUrl}/server/metrics`, { headers })).text();
    const line = scraped.split('\n').find((l) => l.startsWith('svc_http_requests_total{') && l.includes('route="/items/:collection/:pk"') && l.includes('status_code="200"'));
    const recorded = line ? Number(line.split(' ').pop()) : 0;
    if (recorded < onSide.requests) throw new Error(`metrics side recorded ${recorded} pk reads, autocannon sent at least ${onSide.requests}`);

    const meta = {
      date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
      duration: settings.duration, warmup: settings.warmup, connections: settings.connections, rounds: settings.rounds,
      loadAverageBefore: loadBefore, loadAverageAfter: Number(loadavg()[0].toFixed(2)),
    };
    const table = [
      '| GET /items/posts/{id} (admin, Postgres) | METRICS_ENABLED=false | METRICS_ENABLED=true | ratio on/off |',
      '|---|---|---|---:|',
      `| req/s (mean of ${settings.rounds} rounds) | ${fmt(offSide.requestsPerSec)} | ${fmt(onSide.requestsPerSec)} | ${fmt(ratio, 3)} (target >= 0.95) |`,
      `| service process CPU per request (user + system, /proc) | ${fmt(offSide.cpuUsPerRequest)} us | ${fmt(onSide.cpuUsPerRequest)} us | ${fmt(cpuRatio, 3)} (cost ${fmt((cpuRatio - 1) * 100, 1)}%) |`,
      `| p50 / p99 latency | ${fmt(offSide.p50Ms, 1)} / ${fmt(offSide.p99Ms, 1)} ms | ${fmt(onSide.p50Ms, 1)} / ${fmt(onSide.p99Ms, 1)} ms | |`,
      `| requests (non-2xx, errors) | ${offSide.requests} (${offSide.non2xx}, ${offSide.errors}) | ${onSide.requests} (${onSide.non2xx}, ${onSide.errors}) | |`,
      `| middleware alone, in process (us/request, median of 20 alternating slices, ${settings.microRequests} requests per side) | ${fmt(m.offUs, 1)} | ${fmt(m.onUs, 1)} | +${fmt(m.addedUs, 1)} us = ${fmt(share * 100, 1)}% of a pk read's ${fmt(offSide.cpuUsPerRequest)} us of CPU |`,
    ].join('\n');
    const perRound = rounds[0].map((o, i) => `${fmt(o.requestsPerSec)} / ${fmt(rounds[1][i].requestsPerSec)}`).join('; ');
    const notes = `Run ${meta.date}: ${meta.rounds} alternating rounds (off/on req/s per round: ${perRound}), ${meta.warmup} s warm-up + ${meta.duration} s each, ${meta.connections} connections; ${meta.cpu} x ${meta.cores}, Node ${meta.node}; 1-min load average ${meta.loadAverageBefore} before, ${meta.loadAverageAfter} after. The metrics side recorded ${recorded} pk reads.`;
    console.log(`\n${table}\n\n${notes}\n`);
    writeFileSync(join(here, 'results-metrics.md'), `# Metrics overhead benchmark\n\nGenerated by \`npx tsx test/bench/metrics.ts\`; do not edit by hand.\n\n${table}\n\n${notes}\n`);
    writeFileSync(join(here, 'results-metrics.json'), JSON.stringify({ meta, off: offSide, on: onSide, ratio, cpuRatio, micro: { ...m, shareOfPkRead: share }, rounds: { off: rounds[0], on: rounds[1] } }, null, 2) + '\n');
    log('wrote test/bench/results-metrics.md and results-metrics.json');
  } finally {
    for (const p of started.splice(0)) await p.stop().catch(() => undefined);
    await query(settings.adminUrl, `drop database if exists ${DATABASE} with (force)`).catch(() => undefined);
  }
}

await main();
