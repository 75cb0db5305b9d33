/** Memory of a standalone server (issue 13): spawns what `npm start` runs, `node --max-semi-space-size=2
 * scripts/start.mjs` (the compiled dist/, built first when stale),
 * once with the embedded engine (a fresh DATA_DIR) and once with DATABASE_URL (a fresh database), then both again
 * under `npm start` itself (npm's own process included), and reports the memory of the process tree (the sum of
 * RSS, and the physical pages held, each once: test/bench/tree-memory.ts) idle after the start, at its peak during
 * a warm-up of a few hundred mixed requests (schema changes, creates, updates, lists with filter/sort/search,
 * aggregates, reads by key, relations, GraphQL, deletes) and idle after the warm-up.
 *
 * Env: BENCH_DATABASE_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres), BENCH_MEMORY_REQUESTS
 * (default 400), BENCH_MEMORY_SCRIPT (default scripts/start.mjs), BENCH_MEMORY_NODE_ARGS (default --max-semi-space-size=2),
 * BENCH_MEMORY_ENV (extra NAME=value pairs for the server, space-separated), BENCH_MEMORY_MODES (default
 * embedded,postgres), BENCH_MEMORY_NPM=0 (skip the `npm start` rows).
 * "Idle after" is taken 5 s and 30 s after the warm-up: V8's memory reducer gives the heap's unused pages back
 * some 15-20 s after the allocation rate drops.
 * Run: npx tsx test/bench/memory.ts; writes test/bench/results-memory.md. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/free-port.ts';
import { query, withDatabase } from './shared.ts';
import { processTree as tree, treeRssMb, treeUniqueMb } from './tree-memory.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const requests = Number(process.env.BENCH_MEMORY_REQUESTS ?? 400);
const script = process.env.BENCH_MEMORY_SCRIPT ?? 'scripts/start.mjs';
const modes = (process.env.BENCH_MEMORY_MODES ?? 'embedded,postgres').split(',');
const nodeArgs = (process.env.BENCH_MEMORY_NODE_ARGS ?? '--max-semi-space-size=2').split(' ').filter(Boolean);
const extraEnv = Object.fromEntries((process.env.BENCH_MEMORY_ENV ?? '').split(' ').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const ADMIN_EMAIL = 'memory@example.com';
const ADMIN_PASSWORD = `memory-${randomBytes(9).toString('hex')}`;
const log = (msg: string) => console.log(`[memory-bench] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Samples the tree's RSS sum every 50 ms and its unique memory (each physical page once) every 500 ms: reading
 * the page map of a process with a WASM heap takes ~0.1-0.3 s. */
class Sampler {
  peak = 0;
  uniquePeak = 0;
  #timers: NodeJS.Timeout[];
  constructor(private readonly pid: number) {
    this.#timers = [
      setInterval(() => { this.peak = Math.max(this.peak, treeRssMb(pid)); }, 50),
      setInterval(() => { this.uniquePeak = Math.max(this.uniquePeak, treeUniqueMb(pid) ?? 0); }, 500),
    ];
  }
  now(): { rss: number; unique: number | null } { return { rss: treeRssMb(this.pid), unique: treeUniqueMb(this.pid) }; }
  reset(at: { rss: number; unique: number | null }): void { this.peak = at.rss; this.uniquePeak = at.unique ?? 0; }
  stop(): void { for (const t of this.#timers) clearInterval(t); }
}

async function waitHealthy(base: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output()}`);
    try {
      if ((await fetch(`${base}/server/health`)).status === 200) return;
    } catch { /* not yet */ }
    await sleep(100);
  }
  throw new Error(`no health answer: ${output()}`);
}

async function warmUp(base: string, tag: string): Promise<number> {
  const notes = `notes_${tag}`;
  const authorsC = `authors_${tag}`;
  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }) });
  const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  let done = 1;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    done++;
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return text ? (JSON.parse(text) as { data: any }).data : null;
  };
  const pk = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
  await call('POST', '/collections', { collection: authorsC, schema: {}, meta: {}, fields: [pk, { field: 'name', type: 'string' }] });
  await call('POST', '/collections', {
    collection: notes, schema: {}, meta: {},
    fields: [pk, { field: 'title', type: 'string' }, { field: 'body', type: 'text' }, { field: 'views', type: 'integer' },
      { field: 'published', type: 'timestamp' }, { field: 'author', type: 'integer', meta: { special: ['m2o'] } }],
  });
  await call('POST', '/relations', { collection: notes, field: 'author', related_collection: authorsC, meta: { one_field: 'notes' } });
  const authors: number[] = await call('POST', `/items/${authorsC}`, Array.from({ length: 20 }, (_, i) => ({ name: `author ${i}` })));
  const ids: number[] = [];
  for (let i = 0; done < requests; i++) {
    const n = i % 12;
    if (n === 0) ids.push(...await call('POST', `/items/${notes}`, Array.from({ length: 20 }, (_, k) => ({ title: `note ${i} ${k}`, body: 'lorem ipsum '.repeat(20), views: k, published: new Date().toISOString(), author: authors[k] }))));
    else if (n === 1) await call('GET', `/items/${notes}?filter[views][_gt]=5&sort=-published&limit=25`);
    else if (n === 2) await call('GET', `/items/${notes}?search=note&limit=10`);
    else if (n === 3) await call('GET', `/items/${notes}/${ids[i % ids.length]}?fields=*,author.name`);
    else if (n === 4) await call('PATCH', `/items/${notes}/${ids[i % ids.length]}`, { views: i });
    else if (n === 5) await call('GET', `/items/${notes}?aggregate[count]=*&groupBy[]=author`);
    else if (n === 6) await call('GET', `/items/${authorsC}?fields=id,name,notes.title&limit=5`);
    else if (n === 7) await call('GET', `/fields/${notes}`);
    else if (n === 8) await call('GET', '/users/me');
    else if (n === 9) await call('POST', '/graphql', { query: `{ ${notes}(limit: 5, sort: ["-id"]) { id title author { name } } }` });
    else if (n === 10) await call('GET', '/activity?limit=10&sort=-id');
    else await call('DELETE', `/items/${notes}/${ids.pop()}`);
  }
  return done;
}

interface Sample { rss: number; unique: number | null }
interface Result { mode: string; idleStart: Sample; peak: Sample; idleAfter: Sample; idleLater: Sample; requests: number; seconds: number }

async function measure(mode: 'embedded' | 'postgres', viaNpm: boolean, label: string, reuseDir?: string, keepDir = false): Promise<Result & { dataDir: string }> {
  const port = await freePort();
  const dataDir = reuseDir ?? mkdtempSync(join(tmpdir(), 'svc-memory-'));
  const database = `svc_bench_memory_${process.pid}`;
  const env: Record<string, string> = {
    ...process.env as Record<string, string>, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_EMAIL, ADMIN_PASSWORD,
    LOG_LEVEL: 'warn', NODE_ENV: 'production', RATE_LIMITER_ENABLED: 'false', ...extraEnv,
  };
  delete env.DATABASE_URL;
  if (mode === 'postgres') {
    await query(adminUrl, `drop database if exists ${database} with (force)`);
    await query(adminUrl, `create database ${database}`);
    env.DATABASE_URL = withDatabase(adminUrl, database);
    env.SECRET = randomBytes(32).toString('hex');
  }
  const child = viaNpm
    ? spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [...nodeArgs, script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d) => { output = (output + d).slice(-4000); });
  child.stderr?.on('data', (d) => { output = (output + d).slice(-4000); });
  const sampler = new Sampler(child.pid!);
  const base = `http://127.0.0.1:${port}`;
  try {
    const started = Date.now();
    await waitHealthy(base, child, () => output);
    await sleep(3000);
    const idleStart = sampler.now();
    sampler.reset(idleStart); // the peak of the warm-up, not of the start (a first start runs initdb in a child)
    const t0 = Date.now();
    const count = await warmUp(base, randomBytes(3).toString('hex'));
    const seconds = (Date.now() - t0) / 1000;
    await sleep(5000);
    const idleAfter = sampler.now();
    await sleep(25_000);
    const idleLater = sampler.now();
    const peak = { rss: Math.max(sampler.peak, idleAfter.rss), unique: idleAfter.unique === null ? null : Math.max(sampler.uniquePeak, idleAfter.unique) };
    log(`${label}: idle ${cell(idleStart)}, peak ${cell(peak)}, idle after ${count} requests ${cell(idleAfter)}, 30 s later ${cell(idleLater)} (RSS sum / each page once, MB; start ${((t0 - started) / 1000).toFixed(1)} s)`);
    return { mode: label, idleStart, peak, idleAfter, idleLater, requests: count, seconds, dataDir };
  } finally {
    sampler.stop();
    for (const pid of tree(child.pid!).reverse()) { try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ } }
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    if (!keepDir && !reuseDir) rmSync(dataDir, { recursive: true, force: true });
    if (mode === 'postgres') await query(adminUrl, `drop database if exists ${database} with (force)`).catch(() => {});
  }
}

const cell = (s: Sample) => `${s.rss.toFixed(0)} / ${s.unique === null ? 'n/a' : s.unique.toFixed(0)}`;
const loadBefore = loadavg()[0];
const results: Result[] = [];
if (modes.includes('embedded')) {
  const first = await measure('embedded', false, 'embedded, first start (new DATA_DIR)', undefined, true);
  results.push(first, await measure('embedded', false, 'embedded, restart on that DATA_DIR', first.dataDir));
  rmSync(first.dataDir, { recursive: true, force: true });
}
if (modes.includes('postgres')) results.push(await measure('postgres', false, 'DATABASE_URL'));
if (process.env.BENCH_MEMORY_NPM !== '0') {
  if (modes.includes('embedded')) results.push(await measure('embedded', true, 'embedded, `npm start` (npm\'s own process included)'));
  if (modes.includes('postgres')) results.push(await measure('postgres', true, 'DATABASE_URL, `npm start` (npm\'s own process included)'));
}
const lines = [
  `# Memory bench (${new Date().toISOString()})`,
  '',
  `\`node ${nodeArgs.join(' ')} ${script}\`${script === 'scripts/start.mjs' ? ' (what \`npm start\` runs)' : ''}${Object.keys(extraEnv).length ? ` with ${process.env.BENCH_MEMORY_ENV}` : ''}; warm-up: ${requests} mixed requests, one at a time.`,
  'Each cell: the sum of the RSS of the processes of the tree (sampled every 50 ms) / the physical memory the tree holds, each page counted once (sampled every 500 ms; npm is itself a `node`, so the sum counts the Node binary\'s pages twice under `npm start`).',
  '',
  '| mode | idle after start (MB) | peak in warm-up (MB) | idle 5 s after warm-up (MB) | idle 30 s after (MB) | requests | warm-up s |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...results.map((r) => `| ${r.mode} | ${cell(r.idleStart)} | ${cell(r.peak)} | ${cell(r.idleAfter)} | ${cell(r.idleLater)} | ${r.requests} | ${r.seconds.toFixed(1)} |`),
  '',
  `Machine: ${cpus()[0]?.model ?? 'cpu'} x ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; 1-min load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after.`,
];
writeFileSync(join(here, 'results-memory.md'), lines.join('\n') + '\n');
writeFileSync(join(here, 'results-memory.json'), JSON.stringify({
  meta: { date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'cpu', cores: cpus().length, loadAverageAtEnd: Number(loadavg()[0].toFixed(2)) },
  results: results.map(({ mode, idleStart, peak, idleAfter, idleLater, requests, seconds }) => ({ mode, idleStart, peak, idleAfter, idleLater, requests, seconds })),
}, null, 2) + '\n');
console.log(lines.join('\n'));
