/** `npm run bench`: the service against a hand-written raw Hono + pg server, same database, same requests.
 *
 * 1. drops and recreates the database svc_bench on the Postgres server (BENCH_DATABASE_URL is the admin
 *    connection, default postgres://postgres@127.0.0.1:5432/postgres);
 * 2. starts the service as `npm start` runs it (`node --max-semi-space-size=2 scripts/start.mjs`: compiled dist/,
 *    standalone) on :8061, logs in as admin;
 * 3. seeds through the API: collections authors and posts, the posts.author -> authors relation,
 *    BENCH_AUTHORS authors and BENCH_POSTS posts in batches of BENCH_BATCH (deterministic data);
 * 4. starts the raw reference server (test/bench/raw-server.ts) on :8062 over the same tables;
 * 5. checks every scenario answers 200 with a sane body on both, then measures each scenario on each server
 *    in turn (never in parallel) with autocannon: BENCH_WARMUP s warm-up, BENCH_DURATION s measured,
 *    BENCH_CONNECTIONS connections;
 * 6. prints a markdown table, writes test/bench/results.md and results.json, stops both and drops the database.
 *
 * Rows l (preview read vs plain read) and m (promotes/s) run on their own database (test/bench/versions.ts):
 * `BENCH_SCENARIOS=l,m npm run bench`; BENCH_PROMOTES sets the number of drafts promoted (default 2000).
 *
 * Rows n and o (notifications sent/s by 1 and 2 notify worker processes vs as many nodemailer processes, test/bench/notify.ts) run on
 * their own database with a local smtp-server: `BENCH_SCENARIOS=n,o npm run bench`; BENCH_NOTIFY_MESSAGES (2000).
 *
 * Rows w, x and y (10,000 idle WebSocket subscribers; one event to 1,000 subscribers; 500 writes/s with 1,000
 * subscribers vs none, test/bench/realtime.ts) run on their own database and service: `BENCH_SCENARIOS=w,x,y npm run
 * bench` or `npm run bench:realtime` (BENCH_RT_* knobs there).
 *
 * Rows e, e2, e3 search for a word in ~1 %, ~0.25 % and ~0.01 % of the posts with `posts` analysed at Postgres'
 * default statistics (`BENCH_SCENARIOS=e,e2,e3 npm run bench`; docs/benchmarks.md > Search at the default statistics).
 *
 * Rows: b and q are the same filter + sort list, b before the extra indexes exist, q after; t, u, v repeat a, c, f
 * at 50 connections (p99 under load); r is a batch create of 100 posts, s an update of one, z a post with 3 O2M
 * comments in one payload (against one raw statement doing the same inserts); writes run last. Row pl times the API
 * part of the Studio's page loads on the 100k posts (test/bench/page-load.ts), after the reads.
 * The table also reports the RSS of both server processes (idle after start, idle after the run, peak).
 *
 * Other knobs: BENCH_DURATION / BENCH_WARMUP (seconds per scenario and server), BENCH_POSTS, BENCH_DB_NAME
 * (default svc_bench) and BENCH_PORT (service port, raw = +1; default 8061) to run beside another bench,
 * BENCH_RATE_LIMITER=1 (limiter on, limits too high to trip), BENCH_SCENARIOS=a,b,f (subset), BENCH_KEEP_DB=1 (keep svc_bench), BENCH_INDEXES=0 (see below). */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { makeAuthor, makePost, mulberry32, RARE_SEARCH_WORD, SEARCH_WORD, UNCOMMON_SEARCH_WORD, withSearchWords } from './data.ts';
import { logTail, startServer, type ServerProcess } from './processes.ts';
import { canonical, SCENARIOS, type Scenario, type ScenarioContext } from './scenarios.ts';
import { ASSET_SCENARIO_KEYS, runAssetBench } from './assets.ts';
import { runUploadMemoryBench } from './upload-memory.ts';
import { runVersionBench, VERSION_SCENARIO_KEYS } from './versions.ts';
import { NOTIFY_SCENARIO_KEYS, runNotifyBench } from './notify.ts';
import { REALTIME_SCENARIO_KEYS, runRealtimeBench } from './realtime.ts';
import { withDatabase, fmt } from './shared.ts';
import { measurePageLoads, renderPageLoads, type PageLoadRow } from './page-load.ts';
import { writeSummary } from './summary.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

const settings = {
  adminUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  database: process.env.BENCH_DB_NAME ?? 'svc_bench',
  servicePort: envInt('BENCH_PORT', 8061),
  rawPort: envInt('BENCH_PORT', 8061) + 1,
  duration: envInt('BENCH_DURATION', 10),
  warmup: envInt('BENCH_WARMUP', 2),
  connections: envInt('BENCH_CONNECTIONS', 10),
  authors: envInt('BENCH_AUTHORS', 1000),
  posts: envInt('BENCH_POSTS', 100_000),
  batch: envInt('BENCH_BATCH', 1000),
  poolMax: envInt('BENCH_POOL_MAX', 10),
  keepDb: process.env.BENCH_KEEP_DB === '1',
  indexes: process.env.BENCH_INDEXES !== '0',
  only: (process.env.BENCH_SCENARIOS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
};

const ADMIN_EMAIL = 'bench@example.com';
const ADMIN_PASSWORD = `bench-${randomBytes(9).toString('hex')}`;

const benchUrl = withDatabase(settings.adminUrl, settings.database);

function log(message: string) {
  console.log(`[bench] ${message}`);
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: settings.adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function benchQuery<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: benchUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

class ApiError extends Error {
  constructor(readonly status: number, readonly body: string, what: string) {
    super(`${what} -> ${status}: ${body.slice(0, 500)}`);
  }
}

function apiClient(baseUrl: string, token: string | null) {
  return async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw new ApiError(res.status, text, `${method} ${path}`);
    if (text === '') return undefined as T;
    return (JSON.parse(text) as { data: T }).data;
  };
}

/** POST /auth/login; when login is not available (yet), a clearly labelled fallback gives the admin a static
 * token straight in svc_users.token through pg. */
async function adminToken(baseUrl: string): Promise<{ token: string; via: string }> {
  const res = await fetch(`${baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
  });
  const text = await res.text();
  if (res.status === 200) {
    const token = (JSON.parse(text) as { data?: { access_token?: string } }).data?.access_token;
    if (typeof token === 'string' && token) return { token, via: 'POST /auth/login' };
  }
  log(`FALLBACK: POST /auth/login answered ${res.status} (${text.slice(0, 120)}); setting a static token in svc_users.token through pg instead`);
  const token = `bench-static-${randomBytes(16).toString('hex')}`;
  const rows = await benchQuery('update svc_users set token = $1 where email = $2 returning id', [token, ADMIN_EMAIL]);
  if (rows.length !== 1) throw new Error(`fallback: admin user ${ADMIN_EMAIL} not found in svc_users`);
  return { token, via: 'FALLBACK static token in svc_users.token (login unavailable)' };
}

const pk = { field: 'id', type: 'integer', meta: { hidden: true, readonly: true, interface: 'input' }, schema: { is_primary_key: true, has_auto_increment: true } };
const field = (name: string, type: string, meta: Record<string, unknown> = { interface: 'input' }) => ({ field: name, type, meta, schema: {} });

async function seed(api: ReturnType<typeof apiClient>): Promise<ScenarioContext> {
  const started = Date.now();
  await api('POST', '/collections', {
    collection: 'authors',
    meta: { icon: 'person' },
    schema: { name: 'authors' },
    fields: [pk, field('name', 'string'), field('email', 'string')],
  });
  await api('POST', '/collections', {
    collection: 'posts',
    meta: { icon: 'article' },
    schema: { name: 'posts' },
    fields: [
      pk,
      field('title', 'string'),
      field('body', 'text', { interface: 'input-multiline' }),
      field('status', 'string'),
      field('views', 'integer'),
      field('published_on', 'timestamp', { interface: 'datetime' }),
      field('author', 'integer', { interface: 'select-dropdown-m2o', special: ['m2o'] }),
    ],
  });
  await api('POST', '/relations', { collection: 'posts', field: 'author', related_collection: 'authors', meta: { one_field: 'posts' } });
  log('created collections authors, posts and the relation posts.author -> authors (O2M authors.posts)');

  const rng = mulberry32(20240601);
  const authorIds: number[] = [];
  for (let done = 0; done < settings.authors; done += settings.batch) {
    const n = Math.min(settings.batch, settings.authors - done);
    const ids = await api<number[]>('POST', '/items/authors', Array.from({ length: n }, (_, i) => makeAuthor(rng, done + i)));
    if (!Array.isArray(ids) || ids.length !== n) throw new Error(`POST /items/authors returned ${JSON.stringify(ids).slice(0, 200)}`);
    authorIds.push(...ids.map(Number));
  }
  const postIds: number[] = [];
  const wordRng = mulberry32(20261129);
  const batches = Math.ceil(settings.posts / settings.batch);
  for (let b = 0; b < batches; b++) {
    const n = Math.min(settings.batch, settings.posts - b * settings.batch);
    const ids = await api<number[]>('POST', '/items/posts', Array.from({ length: n }, () => withSearchWords(makePost(rng, authorIds), wordRng)));
    if (!Array.isArray(ids) || ids.length !== n) throw new Error(`POST /items/posts returned ${JSON.stringify(ids).slice(0, 200)}`);
    postIds.push(...ids.map(Number));
    if ((b + 1) % 10 === 0 || b + 1 === batches) log(`seeded ${postIds.length}/${settings.posts} posts`);
  }
  log(`seeded ${authorIds.length} authors and ${postIds.length} posts through the API in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  await benchQuery('vacuum analyze authors');
  // Analysed with Postgres' defaults (statistics target 100: a sample of 30,000 of the 100,000 posts), as a user's
  // table would be. A bare `ILIKE '%word%'` is estimated from that sample, and with it the plan of rows e/e2/e3
  // flipped from run to run; the service's search predicate no longer rests on it (core/query/compile-filter.ts
  // compileSearch), the raw server's plain ILIKE still does (docs/benchmarks.md > Search).
  await benchQuery('vacuum analyze posts');
  await recordSearchPlans();
  // Seeding through the API also wrote an activity and a revision row per item: settle those tables too, so
  // autovacuum does not start on them in the middle of a measurement.
  await benchQuery('vacuum analyze svc_activity');
  await benchQuery('vacuum analyze svc_revisions');
  // Seeding dirtied a few hundred MB of pages: write them out now rather than in a checkpoint during the first rows.
  await benchQuery('checkpoint');
  return { postIds, authorIds, totalPosts: postIds.length };
}

/** Row z writes a post with its comments: the collection comments and the O2M posts.comments are created before the
 * writes, not in the seed, so no read row (a pk read's `*` would list the comments' keys) changes with them. */
async function addComments(api: ReturnType<typeof apiClient>): Promise<void> {
  await api('POST', '/collections', {
    collection: 'comments',
    meta: { icon: 'comment' },
    schema: { name: 'comments' },
    fields: [pk, field('body', 'text', { interface: 'input-multiline' }), field('post', 'integer', { interface: 'select-dropdown-m2o', special: ['m2o'] })],
  });
  await api('POST', '/relations', { collection: 'comments', field: 'post', related_collection: 'posts', meta: { one_field: 'comments' } });
  log('created the collection comments and the relation comments.post -> posts (O2M posts.comments) for row z');
}

/** How Postgres plans each search word on this run's statistics, for the raw server's bare `ILIKE` and for the
 * service's `coalesce(..., false)` form (core/query/compile-filter.ts): the key walk that stops at the 25th hit, or a
 * scan of the whole table and a sort. The bare form's plan changes with ANALYZE's sample, so the search rows'
 * ratios are read with it. */
const searchPlans: Record<string, string> = {};
async function recordSearchPlans(): Promise<void> {
  const shape = async (where: string, word: string) => {
    const plan = await benchQuery<{ 'QUERY PLAN': string }>(`explain select id from posts where ${where} order by id limit 25`, [`%${word}%`]);
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    const rows = /rows=(\d+)/.exec(plan[1]?.['QUERY PLAN'] ?? '')?.[1] ?? '?';
    return `${/Sort/.test(text) ? 'scan + sort' : /Index Scan using posts_pkey/.test(text) ? 'key walk' : 'other'} (${rows} matches estimated)`;
  };
  const or = 'title ilike $1 or body ilike $1 or status ilike $1';
  for (const word of [SEARCH_WORD, UNCOMMON_SEARCH_WORD, RARE_SEARCH_WORD]) {
    searchPlans[word] = `raw ${await shape(or, word)}, service ${await shape(`coalesce(${or}, false)`, word)}`;
  }
  log(`search plans at the default statistics: ${JSON.stringify(searchPlans)}`);
}

/** Plain indexes the REST API has no endpoint for, created between the `plain` and the `indexed` scenarios, so
 * the indexed rows measure the request path rather than a sequential scan. Both servers read the same tables, so
 * both benefit. */
async function createIndexes(): Promise<void> {
  await benchQuery('create index bench_posts_status_published_on on posts (status, published_on desc)');
  await benchQuery('create index bench_posts_author on posts (author)');
  await benchQuery('analyze posts');
  await benchQuery('checkpoint');
  log('created indexes posts(status, published_on desc), posts(author) (BENCH_INDEXES=0 skips them)');
}

/** Resident set size and its peak (VmHWM) of a process, in MiB, from /proc (null where there is none). */
function memoryOf(pid: number | undefined): { rssMb: number; peakMb: number } | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (null where there is none). */
function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Waits (at most 60 s) until the process uses under 5 % of a core over a second: work the seeding queued (action
 * events of 100k created items, index builds) must not run into the first measurement. */
async function settle(name: string, pid: number | undefined): Promise<void> {
  const started = Date.now();
  let last = cpuSeconds(pid);
  while (last !== null && Date.now() - started < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = cpuSeconds(pid);
    if (now === null || now - last < 0.05) break;
    last = now;
  }
  log(`${name} settled after ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

interface Target { name: 'service' | 'raw'; baseUrl: string; headers: Record<string, string> }

async function preflight(scenario: Scenario, targets: Target[], ctx: ScenarioContext): Promise<string | null> {
  const answers: unknown[] = [];
  for (const target of targets) {
    const path = scenario.path(ctx);
    const headers: Record<string, string> = { ...target.headers };
    const body = scenario.body?.(ctx);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(target.baseUrl + path, { method: scenario.method, headers, body });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`pre-flight (${scenario.key}) ${scenario.name}: ${target.name} ${scenario.method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    let data: unknown;
    try {
      data = (JSON.parse(text) as { data: unknown }).data;
    } catch {
      throw new Error(`pre-flight (${scenario.key}) ${scenario.name}: ${target.name} answered non-JSON: ${text.slice(0, 300)}`);
    }
    try {
      scenario.check(data, ctx);
    } catch (err) {
      throw new Error(`pre-flight (${scenario.key}) ${scenario.name}: ${target.name} ${scenario.method} ${path}: ${(err as Error).message}`);
    }
    answers.push(scenario.normalize ? scenario.normalize(data) : data);
  }
  if (!scenario.comparable) return null;
  const [a, b] = answers.map(canonical);
  if (a === b) return null;
  return `service and raw answers differ for (${scenario.key}) ${scenario.name}:\n  service: ${a.slice(0, 400)}\n  raw:     ${b.slice(0, 400)}`;
}

interface Measurement {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

function load(scenario: Scenario, target: Target, ctx: ScenarioContext, duration: number) {
  return autocannon({
    url: target.baseUrl,
    connections: scenario.connections ?? settings.connections,
    duration,
    requests: scenario.requests(ctx, target.headers),
  });
}

/** Both servers are warmed up before either is measured: whoever ran first would otherwise also pay for
 * reading the table into the caches the other one then finds warm. */
async function warmUp(scenario: Scenario, targets: Target[], ctx: ScenarioContext): Promise<void> {
  for (const target of targets) await load(scenario, target, ctx, settings.warmup);
}

async function measure(scenario: Scenario, target: Target, ctx: ScenarioContext): Promise<Measurement> {
  const r = await load(scenario, target, ctx, settings.duration);
  return {
    requestsPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

interface Row { key: string; name: string; connections: number; service: Measurement; raw: Measurement; ratio: number; contentNote: string | null }

function renderTable(rows: Row[]): string {
  const lines = [
    '| scenario | conns | service req/s | service p99 ms | raw req/s | raw p99 ms | ratio (service/raw) |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(`| (${r.key}) ${r.name} | ${r.connections} | ${fmt(r.service.requestsPerSec)} | ${fmt(r.service.p99Ms)} | ${fmt(r.raw.requestsPerSec)} | ${fmt(r.raw.p99Ms)} | ${fmt(r.ratio, 2)} |`);
  }
  return lines.join('\n');
}

interface MemoryReport { idleAtStart: ReturnType<typeof memoryOf>; idleAtEnd: ReturnType<typeof memoryOf> }

function renderMemory(memory: Record<'service' | 'raw', MemoryReport>): string {
  const cell = (m: ReturnType<typeof memoryOf>, key: 'rssMb' | 'peakMb') => (m ? `${m[key]}` : 'n/a');
  return [
    '| process | RSS idle after start MiB | RSS idle after the run MiB | RSS peak MiB |',
    '|---|---:|---:|---:|',
    ...(['service', 'raw'] as const).map((who) => {
      const m = memory[who];
      return `| ${who} | ${cell(m.idleAtStart, 'rssMb')} | ${cell(m.idleAtEnd, 'rssMb')} | ${cell(m.idleAtEnd, 'peakMb')} |`;
    }),
  ].join('\n');
}

function renderNotes(rows: Row[], meta: Record<string, unknown>): string {
  const notes: string[] = [];
  for (const r of rows) {
    for (const [who, m] of [['service', r.service], ['raw', r.raw]] as const) {
      if (m.non2xx || m.errors || m.timeouts) notes.push(`- (${r.key}) ${who}: ${m.non2xx} non-2xx, ${m.errors} errors, ${m.timeouts} timeouts of ${m.requests} requests`);
    }
    if (r.contentNote) notes.push(`- (${r.key}) answers differ between service and raw (see results.json)`);
  }
  return [
    `Run ${meta.date}: ${meta.posts} posts, ${meta.authors} authors; ${meta.connections} connections, ${meta.warmup} s warm-up + ${meta.duration} s per scenario and server, one at a time.`,
    `Machine: ${meta.cpu} x ${meta.cores}, ${meta.memoryGb} GiB, Node ${meta.node}; autocannon, the server under test and Postgres share these cores (1-min load average ${meta.loadAverageAtStart} before, ${meta.loadAverageAtEnd} after).`,
    `Service auth: ${meta.auth}. Indexes added outside the API: ${meta.indexes ? 'posts(status, published_on desc), posts(author), created after the rows marked "no extra index" and before the others' : 'none (BENCH_INDEXES=0)'}. Writes run last (they grow posts).`,
    'Both servers are DATABASE_URL (Postgres) processes running compiled JavaScript with `node --max-semi-space-size=2` (the service as `npm start` runs it, dist/; the raw server transpiled from test/bench/raw-server.ts); RSS is read from /proc (VmRSS, peak VmHWM).',
    ...(Object.keys(meta.searchPlans as object).length
      ? [`Search plans (statistics at Postgres' defaults; raw: bare ILIKE, service: coalesce(..., false)): ${Object.entries(meta.searchPlans as Record<string, string>).map(([w, p]) => `"${w}" ${p}`).join('; ')}.`]
      : []),
    ...(notes.length ? ['', 'Anomalies:', ...notes] : []),
  ].join('\n');
}

async function main() {
  // The asset rows (g..j, test/bench/assets.ts) run on their own database after the others, or alone.
  const isAssetKey = (k: string) => (ASSET_SCENARIO_KEYS as readonly string[]).includes(k);
  const assetKeys = settings.only.length ? settings.only.filter(isAssetKey) : [...ASSET_SCENARIO_KEYS];
  const runAssets = () => runAssetBench(assetKeys, settings);
  // Row k (upload memory, test/bench/upload-memory.ts) runs last, on its own embedded database.
  const memory = !settings.only.length || settings.only.includes('k');
  // The version rows (l, m: test/bench/versions.ts) run on their own database too.
  const isVersionKey = (k: string) => (VERSION_SCENARIO_KEYS as readonly string[]).includes(k);
  const versionKeys = settings.only.length ? settings.only.filter(isVersionKey) : [...VERSION_SCENARIO_KEYS];
  const isNotifyKey = (k: string) => (NOTIFY_SCENARIO_KEYS as readonly string[]).includes(k);
  const notifyKeys = settings.only.length ? settings.only.filter(isNotifyKey) : [...NOTIFY_SCENARIO_KEYS];
  const isRealtimeKey = (k: string) => (REALTIME_SCENARIO_KEYS as readonly string[]).includes(k);
  const realtimeKeys = settings.only.length ? settings.only.filter(isRealtimeKey) : [...REALTIME_SCENARIO_KEYS];
  const only = settings.only.filter((k) => k !== 'k' && k !== 'mem');
  if (settings.only.length && only.every((k) => isAssetKey(k) || isVersionKey(k) || isNotifyKey(k) || isRealtimeKey(k))) {
    if (assetKeys.length) await runAssets();
  } else {
    await mainItems();
    if (assetKeys.length) await runAssets();
  }
  if (versionKeys.length) await runVersionBench(versionKeys, settings);
  if (notifyKeys.length) await runNotifyBench(notifyKeys, settings);
  if (realtimeKeys.length) await runRealtimeBench(realtimeKeys, settings);
  if (memory) await runUploadMemoryBench(settings.adminUrl);
  // Row mem: the server's memory after start, at its peak and idle, embedded and on Postgres (test/bench/memory.ts,
  // its own processes and databases; results in test/bench/results-memory.md).
  if (!settings.only.length || settings.only.includes('mem')) runServerMemoryBench();
  // A full run is the current table of docs/benchmarks.md.
  if (!settings.only.length) {
    writeSummary();
    log('wrote the current table into docs/benchmarks.md');
  }
}

function runServerMemoryBench(): void {
  log('row mem: test/bench/memory.ts');
  const done = spawnSync(process.execPath, ['--import', 'tsx', join(here, 'memory.ts')], { cwd: root, stdio: 'inherit', env: { ...process.env, BENCH_DATABASE_URL: settings.adminUrl } });
  if (done.status !== 0) throw new Error(`test/bench/memory.ts exited with ${done.status ?? done.signal}`);
}

async function mainItems() {
  const scenarios = settings.only.length ? SCENARIOS.filter((s) => settings.only.includes(s.key)) : SCENARIOS;
  // Row pl (test/bench/page-load.ts) runs after the indexed reads, before the writes.
  const pageLoads = !settings.only.length || settings.only.includes('pl');
  if (scenarios.length === 0 && !pageLoads) throw new Error(`BENCH_SCENARIOS=${settings.only.join(',')} selects no scenario (a..f, p..v, z, pl)`);
  const started: ServerProcess[] = [];
  const cleanup = async () => {
    for (const p of started.splice(0)) await p.stop().catch(() => undefined);
  };
  process.once('SIGINT', () => {
    void cleanup().finally(() => process.exit(130));
  });

  const loadAtStart = loadavg()[0];
  if (loadAtStart > 1) console.warn(`[bench] WARNING: 1-minute load average is ${loadAtStart.toFixed(2)} before the run: other work on this machine will skew the numbers`);
  log(`recreating database ${settings.database}`);
  await adminQuery(`drop database if exists ${settings.database} with (force)`);
  await adminQuery(`create database ${settings.database}`);
  try {
    log('starting the service on :' + settings.servicePort);
    const service = await startServer({
      name: 'service',
      cwd: root,
      script: 'container/main.ts',
      port: settings.servicePort,
      env: {
        DATABASE_URL: benchUrl,
        DB_POOL_MAX: String(settings.poolMax),
        ADMIN_EMAIL,
        ADMIN_PASSWORD,
        SECRET: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        // BENCH_RATE_LIMITER=1 keeps the limiter in the request path (memory store) with limits too high to
        // trip, to measure what it costs; by default it is off, as the raw server has none.
        ...(process.env.BENCH_RATE_LIMITER === '1'
          ? {
            RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_GLOBAL_POINTS: '100000000', RATE_LIMITER_POINTS: '100000000',
            RATE_LIMITER_USER_POINTS: '100000000', RATE_LIMITER_SERVICE_POINTS: '100000000', RATE_LIMITER_LOGIN_POINTS: '100000000',
          }
          : { RATE_LIMITER_ENABLED: 'false' }),
        ACCESS_TOKEN_TTL: '12h',
        MAX_PAYLOAD_SIZE: '8mb',
      },
    });
    started.push(service);
    const serviceIdle = memoryOf(service.child.pid);
    const auth = await adminToken(service.baseUrl);
    log(`service token via ${auth.via}`);
    const ctx = await seed(apiClient(service.baseUrl, auth.token));

    log('starting the raw reference server on :' + settings.rawPort);
    const raw = await startServer({
      name: 'raw',
      cwd: root,
      script: 'test/bench/raw-server.ts',
      port: settings.rawPort,
      env: { DATABASE_URL: benchUrl, DB_POOL_MAX: String(settings.poolMax) },
    });
    started.push(raw);
    const rawIdle = memoryOf(raw.child.pid);

    const targets: Target[] = [
      { name: 'service', baseUrl: service.baseUrl, headers: { authorization: `Bearer ${auth.token}` } },
      { name: 'raw', baseUrl: raw.baseUrl, headers: {} },
    ];
    const contentNotes = new Map<string, string>();
    const rows: Row[] = [];
    let pageLoadRows: PageLoadRow[] = [];
    let indexed = false;
    for (const phase of ['plain', 'indexed', 'write'] as const) {
      const inPhase = scenarios.filter((x) => x.phase === phase);
      if (phase === 'write' && pageLoads) {
        if (settings.indexes && !indexed) {
          await createIndexes();
          indexed = true;
        }
        await settle('service', service.child.pid);
        pageLoadRows = await measurePageLoads(service.baseUrl, auth.token, ctx);
        for (const r of pageLoadRows) log(`(pl) ${r.name}: p50 ${fmt(r.p50Ms, 1)} ms, p99 ${fmt(r.p99Ms, 1)} ms`);
      }
      if (inPhase.length === 0) continue;
      if (phase !== 'plain' && settings.indexes && !indexed) {
        await createIndexes();
        indexed = true;
      }
      if (phase === 'write' && inPhase.some((x) => x.key === 'z')) await addComments(apiClient(service.baseUrl, auth.token));
      await settle('service', service.child.pid);
      for (const scenario of inPhase) {
        const note = await preflight(scenario, targets, ctx);
        if (note) {
          contentNotes.set(scenario.key, note);
          console.warn(`[bench] WARNING: ${note}`);
        }
      }
      log(`pre-flight passed for ${inPhase.map((x) => x.key).join(', ')}`);
      for (const scenario of inPhase) {
        await warmUp(scenario, targets, ctx);
        const [s, r] = [await measure(scenario, targets[0], ctx), await measure(scenario, targets[1], ctx)];
        const row: Row = {
          key: scenario.key, name: scenario.name, connections: scenario.connections ?? settings.connections, service: s, raw: r,
          ratio: r.requestsPerSec ? s.requestsPerSec / r.requestsPerSec : 0, contentNote: contentNotes.get(scenario.key) ?? null,
        };
        rows.push(row);
        log(`(${row.key}) ${row.name}: service ${fmt(s.requestsPerSec)} req/s p99 ${s.p99Ms} ms | raw ${fmt(r.requestsPerSec)} req/s p99 ${r.p99Ms} ms | ratio ${fmt(row.ratio, 2)}`);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const memory = {
      service: { idleAtStart: serviceIdle, idleAtEnd: memoryOf(service.child.pid) },
      raw: { idleAtStart: rawIdle, idleAtEnd: memoryOf(raw.child.pid) },
    };

    const meta = {
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGb: Math.round(totalmem() / 1024 ** 3),
      posts: ctx.totalPosts,
      authors: ctx.authorIds.length,
      connections: settings.connections,
      warmup: settings.warmup,
      duration: settings.duration,
      poolMax: settings.poolMax,
      indexes: settings.indexes,
      auth: auth.via,
      loadAverageAtStart: Number(loadAtStart.toFixed(2)),
      loadAverageAtEnd: Number(loadavg()[0].toFixed(2)),
      searchPlans: searchPlans,
    };
    const table = renderTable(rows) + (pageLoadRows.length ? `\n\n${renderPageLoads(pageLoadRows)}` : '');
    const memoryTable = renderMemory(memory);
    const notes = renderNotes(rows, meta);
    console.log(`\n${table}\n\n${memoryTable}\n\n${notes}\n`);
    writeFileSync(join(here, 'results.md'), `# Benchmark results\n\nGenerated by \`npm run bench\` (test/bench/run.ts); do not edit by hand.\n\n${table}\n\n${memoryTable}\n\n${notes}\n`);
    writeFileSync(join(here, 'results.json'), JSON.stringify({ meta, scenarios: rows, pageLoads: pageLoadRows, memory }, null, 2) + '\n');
    log('wrote test/bench/results.md and test/bench/results.json');
  } catch (err) {
    for (const p of started) console.error(`[bench] last lines of the ${p.name} log (${p.logFile}):\n${logTail(p.logFile, 20)}`);
    throw err;
  } finally {
    await cleanup();
    if (settings.keepDb) log(`kept database ${settings.database} (BENCH_KEEP_DB=1)`);
    else await adminQuery(`drop database if exists ${settings.database} with (force)`).catch((e: Error) => console.error(`[bench] could not drop ${settings.database}: ${e.message}`));
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(`[bench] FAILED: ${err.message}`);
    process.exit(1);
  },
);
