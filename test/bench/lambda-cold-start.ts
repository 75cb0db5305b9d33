/** Lambda cold start: N fresh `node` processes (no tsx), each importing the bundle (functions/build.ts) and answering
 * API Gateway v2 events through its exported `handler` (test/bench/lambda-child.mjs):
 *   1. GET /server/ping — the first event: creates the instance's services and loads the extensions (which reads
 *      and records them in the database: the first database connection is opened here);
 *   2. GET /items/bench_articles — the first event reading user data (schema overview load, access, the query).
 * Reported: median and p90 from process start to bundle imported, to each event answered, with and without the
 * database connect (a fresh connection to the same server, timed separately in the same process), and CPU time.
 *
 *   npx tsx test/bench/lambda-cold-start.ts [runs=10]
 *
 * BENCH_DATABASE_URL (else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres): the server on which a
 * bench database is created (cloned from the test template when there is one, else migrated by a first run) and
 * dropped at the end. Writes test/bench/results-lambda.md. */
import { execFile } from 'node:child_process';
import { loadavg, cpus } from 'node:os';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { buildLambda, mb } from '../../functions/build.ts';
import { ADMIN_EMAIL, ADMIN_TOKEN, PG_TEMPLATE_DB, testEnv, withDatabase } from '../helpers/template.ts';

const RUNS = Number(process.argv[2] ?? 10);
const BASE = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `svc_bench_lambda_${process.pid}`;
const CHILD = resolve('test/bench/lambda-child.mjs');

interface ChildResult {
  startMs: number; startCpuMs: number; importMs: number; importCpuMs: number; connectMs: number | null;
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

const out = await buildLambda();
console.log(`bundle ${out.outfile}: ${out.bytes} bytes (${mb(out.bytes)}) at a cold start, ${out.totalBytes} bytes (${mb(out.totalBytes)}) in all`);
const url = withDatabase(BASE, DB_NAME);
const env = { ...testEnv(), DATABASE_URL: url };
const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

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

  const rows: { start: number; startCpu: number; imported: number; ping: number; items: number; connect: number; importCpu: number; pingCpu: number; itemsCpu: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await child(out.outfile, { ...env, LAMBDA_CHILD_MEASURE_CONNECT: '1' }, [
      { method: 'GET', path: '/server/ping' },
      { method: 'GET', path: '/items/bench_articles', query: 'fields=id,title&limit=10', headers: auth },
    ]);
    const [ping, items] = r.steps;
    if (ping!.statusCode !== 200 || items!.statusCode !== 200) throw new Error(`run ${i}: ${JSON.stringify(r.steps)}`);
    rows.push({
      start: r.startMs, imported: r.importMs, ping: ping!.atMs, items: items!.atMs, connect: r.connectMs ?? 0,
      startCpu: r.startCpuMs, importCpu: r.importCpuMs, pingCpu: ping!.cpuMs, itemsCpu: items!.cpuMs,
    });
    process.stdout.write(`run ${i + 1}/${RUNS}: imported ${fmt(r.importMs)}, ping ${fmt(ping!.atMs)}, items ${fmt(items!.atMs)}, connect ${fmt(r.connectMs ?? 0)}\n`);
  }

  const metric = (label: string, values: number[]) => `| ${label} | ${fmt(quantile(values, 0.5))} | ${fmt(quantile(values, 0.9))} |`;
  const col = <K extends keyof (typeof rows)[number]>(k: K) => rows.map((r) => r[k]);
  const pingNoDb = rows.map((r) => r.ping - r.connect);
  const itemsNoDb = rows.map((r) => r.items - r.connect);
  const load = loadavg().map((l) => l.toFixed(1)).join(', ');
  const md = `# Lambda cold start

\`npx tsx test/bench/lambda-cold-start.ts ${RUNS}\` — ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores
(load average at the end: ${load}), Postgres at ${new URL(BASE).host}.

Bundle (\`npm run build:lambda\`, functions/build.ts): minified ESM, code-split. Read and compiled at a cold start
(index.mjs and the chunks it imports statically): **${out.bytes} bytes (${mb(out.bytes)})**; with the chunks only
\`import()\` reaches (migrations, bootstrap, prom-client, the mail SDK, exifr): ${out.totalBytes} bytes (${mb(out.totalBytes)}).
Externals installed next to it and loaded on first use only: ${Object.entries(out.externals).map(([k, v]) => `${k} (${mb(v)} here, with its platform binaries)`).join(', ')}.
@electric-sql/pglite and pg-native are external and never loaded in the Lambda (DATABASE_URL is always set there).

${RUNS} fresh \`node\` processes, one after the other, each: import the bundle, then invoke its \`handler\` with
API Gateway HTTP API v2 events. Times are from process start (Node's time origin) to the point named.

| from process start to | median | p90 |
|---|---|---|
${metric('node ready (first line of the child script, before the import)', col('start'))}
${metric('bundle imported', col('imported'))}
${metric('first event answered: GET /server/ping (creates the services; loading the extensions opens the first DB connection)', col('ping'))}
${metric('  the same, without the database connect', pingNoDb)}
${metric('first DB-backed event answered: GET /items/bench_articles (schema overview, access, query)', col('items'))}
${metric('  the same, without the database connect', itemsNoDb)}
${metric('database connect (a fresh pg connection to the same server, timed in the same process)', col('connect'))}

CPU time (user + system) of the process, less sensitive than wall time to other load on the machine:

| CPU time used by | median | p90 |
|---|---|---|
${metric('node start-up (before the import)', col('startCpu'))}
${metric('bundle imported (including node start-up)', col('importCpu'))}
${metric('first event answered', col('pingCpu'))}
${metric('first DB-backed event answered', col('itemsCpu'))}

The target is < 300 ms from process start to the first event answered, without the database connect. On a loaded
machine (see the load average above; Node itself is ready in ~40 ms on an idle one) the wall times are inflated by
waiting for a core; the CPU times show the work itself.
`;
  writeFileSync('test/bench/results-lambda.md', md);
  console.log(md);
} finally {
  await admin((c) => c.query(`drop database if exists ${DB_NAME} with (force)`));
}
