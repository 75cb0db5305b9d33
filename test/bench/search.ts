/** Search on a large table (issue 13): GET /items/posts?search=<word>&limit=25 on the service against a raw Hono + pg
 * server with the same predicate (test/bench/raw-search-server.ts), on BENCH_SEARCH_ROWS posts (default 1,000,000),
 * first without any search index, then with the collection's trigram index (PATCH /collections/posts
 * {meta: {search_index: true}}, which both servers then read through). Two words: one in about 1 % of titles (the
 * bench's usual `zephyr`: a scan stops early) and one in about 0.01 % (a scan reads most of the table, the index
 * pays). Both servers answer each request before it is measured and must return the same ids.
 *
 * Env: BENCH_DATABASE_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres), BENCH_SEARCH_ROWS,
 * BENCH_DURATION (s, default 8), BENCH_CONNECTIONS (default 10), BENCH_KEEP_DB=1 (reuse a seeded database).
 * Run: npx tsx test/bench/search.ts; writes test/bench/results-search.md. */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort } from '../helpers/free-port.ts';
import { mulberry32, makePost, SEARCH_WORD } from './data.ts';
import { startServer, type ServerProcess } from './processes.ts';
import { fmt, query, withDatabase } from './shared.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = 'svc_bench_search';
const url = withDatabase(adminUrl, database);
const rows = Number(process.env.BENCH_SEARCH_ROWS ?? 1_000_000);
const duration = Number(process.env.BENCH_DURATION ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const keep = process.env.BENCH_KEEP_DB === '1';
const RARE_WORD = 'quokka';
const ADMIN_EMAIL = 'bench@example.com';
const ADMIN_PASSWORD = `bench-${randomBytes(9).toString('hex')}`;

const log = (msg: string) => console.log(`[search-bench] ${msg}`);

async function seed(service: ServerProcess, token: string): Promise<void> {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(service.baseUrl + path, {
      method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  };
  const field = (name: string, type: string) => ({ field: name, type, meta: {}, schema: {} });
  await api('POST', '/collections', {
    collection: 'posts', meta: {}, schema: {},
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      field('title', 'string'), field('body', 'text'), field('status', 'string'), field('views', 'integer'),
      field('published_on', 'timestamp'), field('author', 'integer'),
    ],
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rng = mulberry32(20240601);
    const authors = Array.from({ length: 1000 }, (_, i) => i + 1);
    const batch = 20_000;
    for (let done = 0; done < rows; done += batch) {
      const n = Math.min(batch, rows - done);
      const cols: unknown[][] = [[], [], [], [], [], []];
      for (let i = 0; i < n; i++) {
        const p = makePost(rng, authors);
        // The rare word: about one post in 10,000, in the body.
        const body = rng() < 0.0001 ? `${p.body} A ${RARE_WORD} appears.` : p.body;
        cols[0].push(p.title); cols[1].push(body); cols[2].push(p.status); cols[3].push(p.views); cols[4].push(p.published_on); cols[5].push(p.author);
      }
      await client.query(`insert into posts (title, body, status, views, published_on, author)
        select * from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::timestamptz[], $6::int[])`, cols);
      if ((done / batch) % 10 === 9) log(`seeded ${done + n}/${rows}`);
    }
    await client.query('vacuum analyze posts');
  } finally {
    await client.end();
  }
}

/** PATCH /collections/posts {meta: {search_index}}: an index build on a large table outlasts fetch's 300 s header
 * timeout, so this request goes through node:http without one. */
function setSearchIndex(baseUrl: string, token: string, on: boolean): Promise<void> {
  const body = JSON.stringify({ meta: { search_index: on } });
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/collections/posts`, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`search_index ${on}: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Measurement { rps: number; p50: number; p99: number; non2xx: number; errors: number }

async function measure(baseUrl: string, path: string, headers: Record<string, string>): Promise<Measurement> {
  const run = (d: number) => autocannon({ url: baseUrl + path, connections, duration: d, headers });
  await run(2);
  const r = await run(duration);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

async function ids(baseUrl: string, path: string, headers: Record<string, string>): Promise<number[]> {
  const res = await fetch(baseUrl + path, { headers });
  if (res.status !== 200) throw new Error(`${baseUrl}${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { id: number }[] }).data.map((r) => r.id);
}

interface Row { index: string; word: string; service: Measurement; raw: Measurement; hits: number; single: boolean }

async function main(): Promise<void> {
  const started: ServerProcess[] = [];
  const loadBefore = loadavg()[0];
  try {
    const exists = (await query(adminUrl, 'select 1 from pg_database where datname = $1', [database])).length > 0;
    const reuse = keep && exists;
    if (!reuse) {
      await query(adminUrl, `drop database if exists ${database} with (force)`);
      await query(adminUrl, `create database ${database}`);
    }
    const service = await startServer({
      name: 'search-service', cwd: root, script: 'container/main.ts', port: await freePort(),
      env: {
        DATABASE_URL: url, DB_POOL_MAX: '10', ADMIN_EMAIL, ADMIN_PASSWORD, SECRET: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'warn', NODE_ENV: 'production', RATE_LIMITER_ENABLED: 'false', ACCESS_TOKEN_TTL: '12h',
      },
    });
    started.push(service);
    const token = `bench-search-${randomBytes(12).toString('hex')}`;
    await query(url, 'update svc_users set token = $1 where email = $2', [token, ADMIN_EMAIL]);
    const headers = { authorization: `Bearer ${token}` };
    if (!reuse) {
      log(`seeding ${fmt(rows)} posts`);
      await seed(service, token);
    }
    const raw = await startServer({ name: 'search-raw', cwd: root, script: 'test/bench/raw-search-server.ts', port: await freePort(), env: { DATABASE_URL: url, DB_POOL_MAX: '10' } });
    started.push(raw);

    const results: Row[] = [];
    // With the index first (a kept database may have it already), then without it.
    for (const index of ['trigram', 'none']) {
      const t0 = Date.now();
      await setSearchIndex(service.baseUrl, token, index === 'trigram');
      log(`search_index ${index === 'trigram'} through the API: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      await query(url, 'analyze posts');
      for (const word of [SEARCH_WORD, RARE_WORD]) {
        const path = `/items/posts?search=${word}&limit=25`;
        let t1 = Date.now();
        const a = await ids(service.baseUrl, path, headers);
        const serviceOne = Date.now() - t1;
        t1 = Date.now();
        const b = await ids(raw.baseUrl, path, {});
        const rawOne = Date.now() - t1;
        if (a.length === 0 || a.join(',') !== b.join(',')) throw new Error(`different answers for "${word}": service ${a.slice(0, 5)}…(${a.length}) raw ${b.slice(0, 5)}…(${b.length})`);
        if (index === 'none' && word === RARE_WORD) {
          // Every request reads the whole table (seconds each): one request per server, its latency.
          const one = (ms: number): Measurement => ({ rps: 1000 / ms, p50: ms, p99: ms, non2xx: 0, errors: 0 });
          log(`${index} "${word}": one request: service ${serviceOne} ms, raw ${rawOne} ms`);
          results.push({ index, word, service: one(serviceOne), raw: one(rawOne), hits: a.length, single: true });
          continue;
        }
        const s = await measure(service.baseUrl, path, headers);
        const r = await measure(raw.baseUrl, path, {});
        log(`${index} "${word}": service ${fmt(s.rps)} req/s p99 ${s.p99} ms, raw ${fmt(r.rps)} req/s p99 ${r.p99} ms, ratio ${(s.rps / r.rps).toFixed(2)}`);
        results.push({ index, word, service: s, raw: r, hits: a.length, single: false });
      }
    }
    const lines = [
      `# Search bench (${new Date().toISOString()})`,
      '',
      `GET /items/posts?search=<word>&limit=25 on ${fmt(rows)} posts, ${connections} connections, ${duration} s per cell after a 2 s warm-up; Postgres on this machine.`,
      `"zephyr" is in about 1 % of titles, "${RARE_WORD}" in about 0.01 % of bodies. Index "trigram": the collection's search index (GIN, pg_trgm) built through the API; "none": no index (a rare word then reads the whole table, so that cell is one request per server).`,
      'Both servers plan each search for its pattern (unnamed statements). With the index the service sends the same predicate as the raw SQL; without it, the same OR in `coalesce(..., false)`, which walks the primary key whatever ANALYZE sampled (core/query/compile-filter.ts).',
      '',
      '| index | word | service req/s | service p99 ms | raw req/s | raw p99 ms | ratio |',
      '|---|---|---:|---:|---:|---:|---:|',
      ...results.map((r) => `| ${r.index} | ${r.word} | ${r.single ? `1 request: ${fmt(r.service.p99)} ms` : fmt(r.service.rps)} | ${r.single ? '' : r.service.p99} | ${r.single ? `1 request: ${fmt(r.raw.p99)} ms` : fmt(r.raw.rps)} | ${r.single ? '' : r.raw.p99} | ${(r.service.rps / r.raw.rps).toFixed(2)} |`),
      '',
      `Machine: ${cpus()[0]?.model ?? 'cpu'} x ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; 1-min load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after (other work shares the machine).`,
      `Errors/non-2xx: ${results.map((r) => `${r.service.errors + r.service.non2xx}/${r.raw.errors + r.raw.non2xx}`).join(', ')}.`,
    ];
    writeFileSync(join(here, 'results-search.md'), lines.join('\n') + '\n');
    console.log(lines.join('\n'));
  } finally {
    for (const s of started.reverse()) await s.stop();
    if (!keep) await query(adminUrl, `drop database if exists ${database} with (force)`).catch(() => {});
  }
}

await main();
