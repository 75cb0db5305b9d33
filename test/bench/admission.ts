/** `npm run bench:admission`: the pressure limiter with its DEFAULTS (admission sized to the pool, event-loop delay
 * and memory as backstops), on a Postgres server (its own database svc_bench_admission, service on :8077,
 * DB_POOL_MAX default 10) and then on the embedded PGlite (:8078, a fresh DATA_DIR), each run as `npm start` runs it
 * (BENCH_ADMISSION_ENGINES=postgres or =embedded for one):
 *
 * 1. busy but healthy: 10 and 50 connections on a primary-key read, the same read through GraphQL, and a small
 *    asset (GET /assets/{id}); counts the 503s (must be 0);
 * 2. a flood: 500 connections on the primary-key read for BENCH_FLOOD_DURATION s (20): 2xx per second as a share
 *    of the 10-connection rate (target >= 80%), p99 of the 2xx (< 1 s), latency of the 503s (< 50 ms), peak RSS;
 * 3. recovery: a second after the flood, 20 reads one after another (status and slowest).
 *
 * The rate limiter is off as in every bench (its global bucket, 1000/s by default, would cap the rates measured
 * here; it limits clients, not load). BENCH_DATABASE_URL (admin URL of a Postgres server, default
 * postgres://postgres@127.0.0.1:5432/postgres), BENCH_DURATION / BENCH_WARMUP (seconds per busy run, 10 / 2).
 * Writes test/bench/results-admission.md and results-admission.json. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startServer, type ServerProcess } from './processes.ts';
import { fmt, query, withDatabase } from './shared.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const PORT = 8077;
const DATABASE = 'svc_bench_admission';

function envInt(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? '');
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

const settings = {
  adminUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  duration: envInt('BENCH_DURATION', 10),
  warmup: envInt('BENCH_WARMUP', 2),
  floodDuration: envInt('BENCH_FLOOD_DURATION', 20),
};

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

function log(message: string): void {
  console.log(`[bench:admission] ${message}`);
}

interface Run { okPerSec: number; ok: number; shed: number; other: number; errors: number; okP50Ms: number; okP99Ms: number; shedP50Ms: number; shedP99Ms: number; shedMaxMs: number; peakRssMb: number }

function pct(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
}

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb ?? 0) / 1024);
}

async function run(service: ServerProcess, request: autocannon.Request, connections: number, duration: number): Promise<Run> {
  const ok: number[] = [];
  const shed: number[] = [];
  let other = 0;
  let peakRssMb = 0;
  const sampler = setInterval(() => { try { peakRssMb = Math.max(peakRssMb, rssMb(service.child.pid!)); } catch { /* gone */ } }, 200);
  try {
    const instance = autocannon({ url: service.baseUrl, connections, duration, timeout: 30, requests: [request] });
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) ok.push(ms);
      else if (status === 503) shed.push(ms);
      else other++;
    });
    const r = await instance;
    ok.sort((a, b) => a - b);
    shed.sort((a, b) => a - b);
    return {
      okPerSec: ok.length / duration, ok: ok.length, shed: shed.length, other, errors: r.errors + r.timeouts,
      okP50Ms: pct(ok, 50), okP99Ms: pct(ok, 99), shedP50Ms: pct(shed, 50), shedP99Ms: pct(shed, 99), shedMaxMs: shed.at(-1) ?? 0, peakRssMb,
    };
  } finally {
    clearInterval(sampler);
  }
}

type Engine = 'postgres' | 'embedded';

interface EngineResult { engine: Engine; busy: { name: string; connections: number; run: Run }[]; baseline: number; flood: Run; share: number; recovery: { status: number; ms: number }[] }

/** Starts the service on one engine with the defaults; returns it with an admin token. */
async function startService(engine: Engine, started: ServerProcess[]): Promise<{ service: ServerProcess; token: string; cleanup: () => Promise<void> }> {
  const email = 'bench-admission@example.com';
  const password = `bench-${randomBytes(9).toString('hex')}`;
  const common = { ADMIN_EMAIL: email, ADMIN_PASSWORD: password, SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn', NODE_ENV: 'production', RATE_LIMITER_ENABLED: 'false', ACCESS_TOKEN_TTL: '12h' };
  const storage = mkdtempSync(join(tmpdir(), 'bench-admission-uploads-'));
  if (engine === 'postgres') {
    const dbUrl = withDatabase(settings.adminUrl, DATABASE);
    await query(settings.adminUrl, `drop database if exists ${DATABASE} with (force)`);
    await query(settings.adminUrl, `create database ${DATABASE}`);
    const service = await startServer({ name: 'service-admission', cwd: root, script: 'container/main.ts', port: PORT, env: { ...common, DATABASE_URL: dbUrl, STORAGE_LOCAL_ROOT: storage } });
    started.push(service);
    const token = `bench-admin-${randomBytes(12).toString('hex')}`;
    await query(dbUrl, 'update svc_users set token = $1 where email = $2', [token, email]);
    return {
      service, token,
      cleanup: async () => {
        await query(settings.adminUrl, `drop database if exists ${DATABASE} with (force)`).catch(() => undefined);
        rmSync(storage, { recursive: true, force: true });
      },
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-admission-data-'));
  const service = await startServer({ name: 'service-admission-embedded', cwd: root, script: 'container/main.ts', port: PORT + 1, env: { ...common, DATABASE_URL: '', DATA_DIR: dataDir, STORAGE_LOCAL_ROOT: storage } });
  started.push(service);
  const login = await fetch(`${service.baseUrl}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (login.status !== 200) throw new Error(`login -> ${login.status}: ${await login.text()}`);
  const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  return { service, token, cleanup: async () => { rmSync(dataDir, { recursive: true, force: true }); rmSync(storage, { recursive: true, force: true }); } };
}

async function benchEngine(engine: Engine): Promise<EngineResult> {
  const started: ServerProcess[] = [];
  let cleanup: (() => Promise<void>) | undefined;
  try {
    const s = await startService(engine, started);
    cleanup = s.cleanup;
    const { service, token } = s;
    const auth = { authorization: `Bearer ${token}` };
    const headers = { ...auth, 'content-type': 'application/json' };
    const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(service.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`);
      return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
    };
    const pk = { field: 'id', type: 'integer', meta: { hidden: true }, schema: { is_primary_key: true, has_auto_increment: true } };
    await api('POST', '/collections', { collection: 'notes', meta: {}, schema: { name: 'notes' }, fields: [pk, { field: 'title', type: 'string', meta: {}, schema: {} }] });
    await api('POST', '/items/notes', Array.from({ length: 1000 }, (_, i) => ({ title: `Note ${i}` })));
    const form = new FormData();
    form.append('title', 'pixel');
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'pixel.png');
    const upload = await fetch(`${service.baseUrl}/files`, { method: 'POST', headers: auth, body: form });
    if (upload.status !== 200) throw new Error(`upload -> ${upload.status}: ${await upload.text()}`);
    const fileId = ((await upload.json()) as { data: { id: string } }).data.id;
    log(`${engine}: seeded 1000 notes and one 1x1 PNG through the API`);

    const targets: [string, autocannon.Request][] = [
      ['pk read `GET /items/notes/500`', { method: 'GET', path: '/items/notes/500', headers: auth }],
      ['GraphQL `{ notes_by_id(id: 500) { id title } }`', { method: 'POST', path: '/graphql', headers, body: JSON.stringify({ query: '{ notes_by_id(id: 500) { id title } }' }) }],
      ['asset `GET /assets/{id}` (68-byte PNG)', { method: 'GET', path: `/assets/${fileId}`, headers: auth }],
    ];
    const busy: EngineResult['busy'] = [];
    for (const [name, request] of targets) {
      for (const connections of [10, 50]) {
        await run(service, request, connections, settings.warmup);
        const r = await run(service, request, connections, settings.duration);
        busy.push({ name, connections, run: r });
        log(`${engine}: ${name} x${connections}: ${fmt(r.okPerSec)} 2xx/s, p99 ${fmt(r.okP99Ms, 1)} ms, 503: ${r.shed}, other: ${r.other}, errors: ${r.errors}`);
      }
    }
    const baseline = busy[0].run.okPerSec;
    const flood = await run(service, targets[0][1], 500, settings.floodDuration);
    const share = baseline ? flood.okPerSec / baseline : 0;
    log(`${engine}: flood x500: ${fmt(flood.okPerSec)} 2xx/s (${fmt(share * 100)}% of ${fmt(baseline)}), 2xx p99 ${fmt(flood.okP99Ms)} ms, 503: ${flood.shed} (p50 ${fmt(flood.shedP50Ms, 1)}, p99 ${fmt(flood.shedP99Ms, 1)} ms), peak RSS ${flood.peakRssMb} MB`);
    await new Promise((r) => setTimeout(r, 1000));
    const recovery: { status: number; ms: number }[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const res = await fetch(`${service.baseUrl}/items/notes/500`, { headers: auth });
      await res.arrayBuffer();
      recovery.push({ status: res.status, ms: performance.now() - t0 });
    }
    return { engine, busy, baseline, flood, share, recovery };
  } finally {
    for (const p of started.splice(0)) await p.stop().catch(() => undefined);
    await cleanup?.();
  }
}

function render(r: EngineResult): string {
  const { busy, baseline, flood, share, recovery } = r;
  const recoveryOk = recovery.filter((x) => x.status === 200).length;
  const recoveryMax = Math.max(...recovery.map((x) => x.ms));
  const title = r.engine === 'postgres'
    ? 'Postgres server (admission concurrency = DB_POOL_MAX 10)'
    : 'Embedded PGlite (admission concurrency 4)';
  const busyTable = [
    '| request | connections | 2xx/s | p99 of 2xx | 503s (must be 0) | other non-2xx, errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...busy.map(({ name, connections, run: x }) => `| ${name} | ${connections} | ${fmt(x.okPerSec)} | ${fmt(x.okP99Ms, 1)} ms | ${x.shed} | ${x.other + x.errors} |`),
  ].join('\n');
  const floodTable = [
    '| figure | target | measured |',
    '|---|---|---:|',
    `| 2xx/s at 500 connections, share of the 10-connection rate (${fmt(baseline)}/s) | >= 80% | ${fmt(flood.okPerSec)}/s = ${fmt(share * 100)}% |`,
    `| p99 (p50) of the 2xx | < 1 s | ${fmt(flood.okP99Ms)} ms (${fmt(flood.okP50Ms)} ms) |`,
    `| 503s: count, p50 / p99 / max latency | < 50 ms | ${flood.shed}${flood.shed ? `, ${fmt(flood.shedP50Ms, 1)} / ${fmt(flood.shedP99Ms, 1)} / ${fmt(flood.shedMaxMs, 1)} ms` : ''} |`,
    `| other answers, errors and timeouts | 0 | ${flood.other + flood.errors} |`,
    `| peak RSS of the server | bounded | ${flood.peakRssMb} MB |`,
    `| a second later: 20 reads one after another | all 200 | ${recoveryOk}/20 200, slowest ${fmt(recoveryMax, 1)} ms |`,
  ].join('\n');
  return `## ${title}\n\n### Busy, not overloaded\n\n${busyTable}\n\n### Flood: 500 connections on the pk read for ${settings.floodDuration} s\n\n${floodTable}\n`;
}

async function main(): Promise<void> {
  const loadAtStart = Number(loadavg()[0].toFixed(2));
  const engines = (process.env.BENCH_ADMISSION_ENGINES ?? 'postgres,embedded').split(',').map((e) => e.trim()).filter(Boolean) as Engine[];
  const results: EngineResult[] = [];
  for (const engine of engines) {
    if (engine !== 'postgres' && engine !== 'embedded') throw new Error(`BENCH_ADMISSION_ENGINES: unknown engine ${engine}`);
    results.push(await benchEngine(engine));
  }
  const meta = {
    date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
    duration: settings.duration, warmup: settings.warmup, floodDuration: settings.floodDuration, loadAverageAtStart: loadAtStart, loadAverageAtEnd: Number(loadavg()[0].toFixed(2)),
  };
  const notes = `Run ${meta.date}: the defaults (PRESSURE_ENABLED on; admission queue 1000, wait budget 1 s; event-loop delay backstop 500 ms), rate limiter off; ${meta.warmup} s warm-up + ${meta.duration} s per busy run, ${meta.floodDuration} s flood; the Postgres server and the load generator (autocannon) on the same machine; ${meta.cpu} x ${meta.cores}, Node ${meta.node}; 1-min load average before / after: ${meta.loadAverageAtStart} / ${meta.loadAverageAtEnd} (other work on the machine lowers every figure, the flood's share most: it competes with a 500-connection client).`;
  const md = `# Admission benchmark (pressure limiter with its defaults)\n\nGenerated by \`npm run bench:admission\` (test/bench/admission.ts); do not edit by hand.\n\n${results.map(render).join('\n')}\n${notes}\n`;
  console.log(`\n${md}`);
  writeFileSync(join(here, 'results-admission.md'), md);
  writeFileSync(join(here, 'results-admission.json'), JSON.stringify({ meta, results }, null, 2) + '\n');
  log('wrote test/bench/results-admission.md and results-admission.json');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
