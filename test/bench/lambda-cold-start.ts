/** Lambda cold start: fresh `node` processes (no tsx), each importing a bundle (scripts/build-lambda.ts) and answering
 * API Gateway v2 events through its exported `handler` (test/bench/lambda-child.mjs):
 *   1. GET /server/ping — the first event: creates the instance's services and loads the extensions (which reads
 *      and records them in the database: the first database connection is opened here);
 *   2. GET /items/bench_articles — the first event reading user data (schema overview load, access, the query).
 * Three variants, interleaved run by run so they share the machine's load:
 *   - raw: test/bench/lambda-raw.ts, the least a Hono + Kysely + pg Lambda does for the same events (the reference);
 *   - service, minimal: the real bundle with the test configuration (no Redis, rate limits off, in-process queue);
 *   - service, production: as infra/ deploys it: REDIS_URL with RATE_LIMITER_ENABLED and RATE_LIMITER_STORE=shared,
 *     SQS_QUEUE_URL (the SQS test server), PUBLIC_URL, NODE_ENV=production.
 * Reported: median and p90 from process start to bundle imported and to each event answered, with and without the
 * database connect (and the Redis connect), each timed separately in the same process, and CPU time.
 *
 *   npx tsx test/bench/lambda-cold-start.ts [runs=10]
 *
 * BENCH_DATABASE_URL (else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres): the server on which a
 * bench database is created (cloned from the test template when there is one, else migrated by a first run) and
 * dropped at the end. BENCH_REDIS_URL (else REDIS_URL, else redis://127.0.0.1:6379). Writes test/bench/results-lambda.md. */
import { execFile } from 'node:child_process';
import { loadavg, cpus } from 'node:os';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { buildLambda, mb } from '../../scripts/build-lambda.ts';
import { startSqs } from '../helpers/sqs-server.ts';
import { ADMIN_EMAIL, ADMIN_TOKEN, PG_TEMPLATE_DB, testEnv, withDatabase } from '../helpers/template.ts';

const RUNS = Number(process.argv[2] ?? 10);
const BASE = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `svc_bench_lambda_${process.pid}`;
const CHILD = resolve('test/bench/lambda-child.mjs');

const REDIS = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface ChildResult {
  startMs: number; startCpuMs: number; importMs: number; importCpuMs: number; connectMs: number | null; redisConnectMs: number | null;
  steps: { atMs: number; cpuMs: number; statusCode?: number; error?: unknown }[];
}

function child(bundle: string, env: Record<string, string>, steps: unknown[]): Promise<ChildResult> {
  return new Promise((ok, fail) => {
    execFile(process.execPath, [CHILD, bundle, JSON.stringify(steps)], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => (err ? fail(new Error(`${err.message}\n${stderr}`)) : ok(JSON.parse(stdout.trim().split('\n').pop()!) as ChildResult)));
  });
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: BASE });
  await c.connect();
  try { return await fn(c); } finally { await c.end(); }
}

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}
const fmt = (v: number) => `${v.toFixed(0)} ms`;

const loadStart = loadavg().map((l) => l.toFixed(1)).join(', ');
const out = await buildLambda();
const raw = await buildLambda(resolve('.build/lambda-raw'), resolve('test/bench/lambda-raw.ts'));
console.log(`bundle ${out.outfile}: ${out.bytes} bytes (${mb(out.bytes)}) at a cold start, ${out.totalBytes} bytes (${mb(out.totalBytes)}) in all; raw reference ${raw.bytes} bytes`);
const url = withDatabase(BASE, DB_NAME);
const env = { ...testEnv(), DATABASE_URL: url };
const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
const sqs = await startSqs();

const hasTemplate = await admin(async (c) => (await c.query('select 1 from pg_database where datname = $1', [PG_TEMPLATE_DB])).rowCount === 1);
await admin((c) => c.query(`create database ${DB_NAME}${hasTemplate ? ` template ${PG_TEMPLATE_DB}` : ''}`));
try {
  if (!hasTemplate) {
    // Migrate and bootstrap through the bundle itself, then give the admin the static token the events use.
    await child(out.outfile, { ...env, SVC_RUN_MIGRATIONS: 'true' }, [{ method: 'GET', path: '/server/ping' }]);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('update svc_users set token = $1 where email = $2', [ADMIN_TOKEN, ADMIN_EMAIL]);
    await c.end();
  }
  // A user collection with a few rows, created through the Lambda.
  const setup = await child(out.outfile, env, [
    { method: 'POST', path: '/collections', headers: auth, body: JSON.stringify({
      collection: 'bench_articles', schema: {},
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }, { field: 'title', type: 'string' }],
    }) },
    { method: 'POST', path: '/items/bench_articles', headers: auth, body: JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ title: `article ${i}` }))) },
  ]);
  if (setup.steps.some((s) => s.statusCode !== 200)) throw new Error(`bench setup failed: ${JSON.stringify(setup.steps)}`);

  const production = {
    ...env, NODE_ENV: 'production', LOG_LEVEL: 'info', PUBLIC_URL: 'https://api.example.com',
    REDIS_URL: REDIS, REDIS_NAMESPACE: `bench-lambda-${process.pid}`, RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_STORE: 'shared',
    SQS_QUEUE_URL: await sqs.createQueue('bench-lambda'), SQS_ENDPOINT: sqs.endpoint,
  };
  const variants = [
    { name: 'raw reference (test/bench/lambda-raw.ts)', bundle: raw.outfile, env },
    { name: 'service, minimal configuration (no Redis, rate limits off, in-process queue)', bundle: out.outfile, env },
    { name: 'service, production configuration (Redis store and rate limits, SQS queue)', bundle: out.outfile, env: production },
  ];
  type Row = { start: number; imported: number; ping: number; items: number; connect: number; redis: number; startCpu: number; importCpu: number; pingCpu: number; itemsCpu: number };
  const rows = variants.map(() => [] as Row[]);
  for (let i = 0; i < RUNS; i++) {
    for (const [v, variant] of variants.entries()) {
      const r = await child(variant.bundle, { ...variant.env, LAMBDA_CHILD_MEASURE_CONNECT: '1' }, [
        { method: 'GET', path: '/server/ping' },
        { method: 'GET', path: '/items/bench_articles', query: 'fields=id,title&limit=10', headers: auth },
      ]);
      const [ping, items] = r.steps;
      if (ping!.statusCode !== 200 || items!.statusCode !== 200) throw new Error(`${variant.name}, run ${i}: ${JSON.stringify(r.steps)}`);
      rows[v]!.push({
        start: r.startMs, imported: r.importMs, ping: ping!.atMs, items: items!.atMs, connect: r.connectMs ?? 0, redis: r.redisConnectMs ?? 0,
        startCpu: r.startCpuMs, importCpu: r.importCpuMs, pingCpu: ping!.cpuMs, itemsCpu: items!.cpuMs,
      });
    }
    const last = rows.map((rs) => rs[rs.length - 1]!);
    process.stdout.write(`run ${i + 1}/${RUNS}: first event ${last.map((r) => fmt(r.ping - r.connect - r.redis)).join(' / ')} without connects (raw / minimal / production)\n`);
  }

  const q = (values: number[]) => `${fmt(quantile(values, 0.5))} / ${fmt(quantile(values, 0.9))}`;
  const line = (label: string, pick: (r: Row) => number) => `| ${label} | ${rows.map((rs) => q(rs.map(pick))).join(' | ')} |`;
  const median = (v: number, pick: (r: Row) => number) => quantile(rows[v]!.map(pick), 0.5);
  const firstNoConnect = (r: Row) => r.ping - r.connect - r.redis;
  const ratio = (v: number) => (median(v, firstNoConnect) / median(0, firstNoConnect)).toFixed(2);
  const load = loadavg().map((l) => l.toFixed(1)).join(', ');
  const md = `# Lambda cold start

\`npx tsx test/bench/lambda-cold-start.ts ${RUNS}\` — ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores;
load average at the start: ${loadStart}, at the end: ${load}. Postgres at ${new URL(BASE).host}, Redis at ${new URL(REDIS).host}, the
SQS test server on 127.0.0.1.

Bundle (\`npm run build:lambda\`, scripts/build-lambda.ts): minified ESM, code-split. Read and compiled at a cold start
(index.mjs and the chunks it imports statically): **${out.bytes} bytes (${mb(out.bytes)})**; with the chunks only
\`import()\` reaches (each route group, GraphQL, OpenAPI, the AWS SDK clients, ioredis, the rate limiter, nodemailer,
migrations, ...): ${out.totalBytes} bytes (${mb(out.totalBytes)}). The raw reference bundle: ${raw.bytes} bytes (${mb(raw.bytes)}).
Externals installed next to it and loaded on first use only: ${Object.entries(out.externals).map(([k, v]) => `${k} (${mb(v)} here, with its platform binaries)`).join(', ')}.
@electric-sql/pglite and pg-native are external and never loaded in the Lambda (DATABASE_URL is always set there).

${RUNS} fresh \`node\` processes per variant, the variants interleaved run by run: import the bundle, then invoke its
\`handler\` with API Gateway HTTP API v2 events. Times are from process start (Node's time origin); each cell is
median / p90.

| from process start to | ${variants.map((v) => v.name).join(' | ')} |
|---|---|---|---|
${line('node ready (first line of the child script, before the import)', (r) => r.start)}
${line('bundle imported', (r) => r.imported)}
${line('**first event answered** (GET /server/ping: services, extensions, first DB connection)', (r) => r.ping)}
${line('**the same without the database connect**', (r) => r.ping - r.connect)}
${line('the same without the database and Redis connects', firstNoConnect)}
${line('first DB-backed event answered (GET /items/bench_articles: schema overview, access, query)', (r) => r.items)}
${line('the same without the database and Redis connects', (r) => r.items - r.connect - r.redis)}
${line('database connect (a fresh pg connection, timed in the same process)', (r) => r.connect)}
${line('Redis connect (a fresh ioredis connection, timed in the same process)', (r) => r.redis)}

First event without the connects, service / raw reference (medians): minimal ${ratio(1)}, production ${ratio(2)}.

CPU time (user + system) of the process, less sensitive than wall time to other load on the machine (median / p90):

| CPU time used by | ${variants.map((v) => v.name).join(' | ')} |
|---|---|---|---|
${line('node start-up (before the import)', (r) => r.startCpu)}
${line('bundle imported (including node start-up)', (r) => r.importCpu)}
${line('first event answered', (r) => r.pingCpu)}
${line('first DB-backed event answered', (r) => r.itemsCpu)}

The target is < 300 ms from process start to the first event answered, without the database connect. On a loaded
machine (see the load averages above) the wall times are inflated by waiting for a core; the CPU times show the
work itself, and the raw reference run alongside shows what the same machine needs for the least a Hono Lambda does.
`;
  writeFileSync('test/bench/results-lambda.md', md);
  console.log(md);
} finally {
  await sqs.close();
  await admin((c) => c.query(`drop database if exists ${DB_NAME} with (force)`));
}
