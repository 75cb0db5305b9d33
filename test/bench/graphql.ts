/** GraphQL vs REST on the same read, same service, same caller (admin), on its own database (svc_bench_graphql)
 * and service (:8075):
 *
 *   (q1) list: 25 posts with their author's name, sorted by -id
 *        REST    GET /items/posts?limit=25&sort=-id&fields=id,title,views,author.name
 *        GraphQL POST /graphql {"query":"{ posts(limit: 25, sort: [\"-id\"]) { id title views author { name } } }"}
 *   (q2) one post by key with its author: GET /items/posts/{id}?fields=... vs { posts_by_id(id: ...) {...} }
 *
 * Each pair is measured alternately (REST, GraphQL, REST, GraphQL) and averaged, so load from other work on the
 * machine falls on both sides alike. Ratio = GraphQL / REST req/s.
 *
 * Run alone: `npx tsx test/bench/graphql.ts` (BENCH_DATABASE_URL = admin URL of a Postgres server, default
 * postgres://postgres@127.0.0.1:5432/postgres; BENCH_DURATION, BENCH_WARMUP seconds; BENCH_CONNECTIONS).
 * From another runner: `await runGraphqlBench({ adminUrl, duration, warmup, connections })`.
 * Writes test/bench/results-graphql.md and results-graphql.json. */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startServer, type ServerProcess } from './processes.ts';
import { fmt, query, withDatabase } from './shared.ts';

export interface GraphqlBenchSettings {
  adminUrl: string;
  duration: number;
  warmup: number;
  connections: number;
}

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const PORT = 8075;
const DATABASE = 'svc_bench_graphql';

function log(message: string): void {
  console.log(`[bench:graphql] ${message}`);
}

interface Side { requestsPerSec: number; p50Ms: number; p99Ms: number; requests: number; non2xx: number; errors: number }

async function measure(url: string, request: autocannon.Request, s: GraphqlBenchSettings): Promise<Side> {
  const run = (duration: number) => autocannon({ url, connections: s.connections, duration, requests: [request] });
  await run(s.warmup);
  const r = await run(s.duration);
  return { requestsPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, requests: r.requests.total, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

function mean(sides: Side[]): Side {
  const avg = (f: (s: Side) => number) => sides.reduce((a, s) => a + f(s), 0) / sides.length;
  const sum = (f: (s: Side) => number) => sides.reduce((a, s) => a + f(s), 0);
  return { requestsPerSec: avg((s) => s.requestsPerSec), p50Ms: avg((s) => s.p50Ms), p99Ms: avg((s) => s.p99Ms), requests: sum((s) => s.requests), non2xx: sum((s) => s.non2xx), errors: sum((s) => s.errors) };
}

export async function runGraphqlBench(settings: GraphqlBenchSettings): Promise<void> {
  const dbUrl = withDatabase(settings.adminUrl, DATABASE);
  const email = 'bench-graphql@example.com';
  const password = `bench-${randomBytes(9).toString('hex')}`;
  const started: ServerProcess[] = [];
  await query(settings.adminUrl, `drop database if exists ${DATABASE} with (force)`);
  await query(settings.adminUrl, `create database ${DATABASE}`);
  try {
    const service = await startServer({
      name: 'service-graphql', cwd: root, script: 'container/main.ts', port: PORT,
      env: {
        DATABASE_URL: dbUrl, ADMIN_EMAIL: email, ADMIN_PASSWORD: password, SECRET: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'warn', NODE_ENV: 'production', RATE_LIMITER_ENABLED: 'false',
      },
    });
    started.push(service);
    const token = `bench-admin-${randomBytes(12).toString('hex')}`;
    await query(dbUrl, 'update svc_users set token = $1 where email = $2', [token, email]);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(service.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`);
      return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
    };

    const pk = { field: 'id', type: 'integer', meta: { hidden: true }, schema: { is_primary_key: true, has_auto_increment: true } };
    const field = (name: string, type: string, meta: Record<string, unknown> = { interface: 'input' }) => ({ field: name, type, meta, schema: {} });
    await api('POST', '/collections', { collection: 'authors', meta: {}, schema: { name: 'authors' }, fields: [pk, field('name', 'string'), field('email', 'string')] });
    await api('POST', '/collections', {
      collection: 'posts', meta: {}, schema: { name: 'posts' },
      fields: [pk, field('title', 'string'), field('body', 'text'), field('views', 'integer'), field('author', 'integer', { special: ['m2o'] })],
    });
    await api('POST', '/relations', { collection: 'posts', field: 'author', related_collection: 'authors', meta: { one_field: 'posts' } });
    const authorIds = await api<number[]>('POST', '/items/authors', Array.from({ length: 100 }, (_, i) => ({ name: `Author ${i}`, email: `a${i}@example.com` })));
    for (let b = 0; b < 4; b++) {
      await api('POST', '/items/posts', Array.from({ length: 250 }, (_, i) => ({ title: `Post ${b * 250 + i}`, body: 'Lorem ipsum '.repeat(20), views: i, author: authorIds[(b * 250 + i) % authorIds.length] })));
    }
    await query(dbUrl, 'vacuum analyze posts');
    await query(dbUrl, 'vacuum analyze authors');
    log('seeded 100 authors and 1000 posts through the API');

    const restList = '/items/posts?limit=25&sort=-id&fields=id,title,views,author.name';
    const gqlList = JSON.stringify({ query: '{ posts(limit: 25, sort: ["-id"]) { id title views author { name } } }' });
    const restOne = '/items/posts/500?fields=id,title,views,author.name';
    const gqlOne = JSON.stringify({ query: '{ posts_by_id(id: 500) { id title views author { name } } }' });

    // Pre-flight: both answer the same rows (GraphQL's ID is a string).
    const rest = await api<Record<string, unknown>[]>('GET', restList);
    const gql = await (await fetch(`${service.baseUrl}/graphql`, { method: 'POST', headers, body: gqlList })).json() as { data: { posts: Record<string, unknown>[] } };
    const same = JSON.stringify(rest.map((r) => ({ ...r, id: String(r.id) }))) === JSON.stringify(gql.data.posts);
    if (!same || rest.length !== 25) throw new Error(`pre-flight: REST and GraphQL differ: ${JSON.stringify(rest).slice(0, 200)} / ${JSON.stringify(gql).slice(0, 200)}`);
    log('pre-flight passed (same 25 rows)');

    const auth = { authorization: `Bearer ${token}` };
    const pairs: [string, autocannon.Request, autocannon.Request][] = [
      ['(q1) 25 posts with author name', { method: 'GET', path: restList, headers: auth }, { method: 'POST', path: '/graphql', headers, body: gqlList }],
      ['(q2) one post by key with author name', { method: 'GET', path: restOne, headers: auth }, { method: 'POST', path: '/graphql', headers, body: gqlOne }],
    ];
    const lines: string[] = [];
    const results: Record<string, unknown> = {};
    for (const [name, restReq, gqlReq] of pairs) {
      const rounds: Side[][] = [[], []];
      for (let i = 0; i < 2; i++) {
        rounds[0].push(await measure(service.baseUrl, restReq, settings));
        rounds[1].push(await measure(service.baseUrl, gqlReq, settings));
      }
      const [restSide, gqlSide] = rounds.map(mean);
      const ratio = restSide.requestsPerSec ? gqlSide.requestsPerSec / restSide.requestsPerSec : 0;
      if (restSide.non2xx || gqlSide.non2xx || restSide.errors || gqlSide.errors) throw new Error(`${name}: non-2xx or errors ${JSON.stringify({ restSide, gqlSide })}`);
      results[name] = { rest: restSide, graphql: gqlSide, ratio };
      lines.push(`| ${name} | ${fmt(gqlSide.requestsPerSec)} req/s, p99 ${fmt(gqlSide.p99Ms)} ms | ${fmt(restSide.requestsPerSec)} req/s, p99 ${fmt(restSide.p99Ms)} ms | ${fmt(ratio, 2)} |`);
      log(lines[lines.length - 1]);
    }
    const meta = {
      date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
      duration: settings.duration, warmup: settings.warmup, connections: settings.connections, loadAverageAtEnd: Number(loadavg()[0].toFixed(2)),
    };
    const table = ['| scenario | GraphQL | REST | ratio GraphQL/REST |', '|---|---|---|---:|', ...lines].join('\n');
    const notes = `Run ${meta.date}: ${meta.connections} connections, ${meta.warmup} s warm-up + ${meta.duration} s per side, each side measured twice alternately; Postgres server; ${meta.cpu} x ${meta.cores}, Node ${meta.node}; 1-min load average after: ${meta.loadAverageAtEnd} (other work on the machine falls on both sides alike).`;
    console.log(`\n${table}\n\n${notes}\n`);
    writeFileSync(join(here, 'results-graphql.md'), `# GraphQL vs REST benchmark\n\nGenerated by \`npx tsx test/bench/graphql.ts\`; do not edit by hand.\n\n${table}\n\n${notes}\n`);
    writeFileSync(join(here, 'results-graphql.json'), JSON.stringify({ meta, results }, null, 2) + '\n');
  } finally {
    for (const p of started.splice(0)) await p.stop().catch(() => undefined);
    await query(settings.adminUrl, `drop database if exists ${DATABASE} with (force)`).catch(() => undefined);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runGraphqlBench({
    adminUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    duration: Number(process.env.BENCH_DURATION ?? 10),
    warmup: Number(process.env.BENCH_WARMUP ?? 3),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  });
}
