/** Version rows of the benchmark (keys l, m), on their own database (svc_bench_versions) and service (:8065):
 *
 *   (l) preview read vs plain read of the same item, same caller (a minimal website role: read on `pages` and
 *       versioning:view, as SPEC.md > Preview contract asks): GET /items/pages/{id}?version=<uuid> against
 *       GET /items/pages/{id}, measured alternately, twice each, and averaged. Ratio = preview/plain req/s
 *       (target >= 0.8).
 *   (m) promotes per second: BENCH_PROMOTES drafts (default 2000), one per page, each promoted once by the
 *       admin through POST /versions/{id}/promote with BENCH_CONNECTIONS connections (the first 10% as warm-up).
 *
 * Run alone with `BENCH_SCENARIOS=l,m npm run bench`; a full `npm run bench` runs them after the other rows.
 * Seeding goes through the API (collection, pages, versions); the website role's rows are inserted with SQL and
 * made visible by granting its app permission through the API (which bumps the schema version). */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { startServer, type ServerProcess } from './processes.ts';
import { withDatabase, query, fmt } from './shared.ts';

export const VERSION_SCENARIO_KEYS = ['l', 'm'] as const;

export interface VersionBenchSettings {
  adminUrl: string;
  duration: number;
  warmup: number;
  connections: number;
}

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const PORT = 8065;
const DATABASE = 'svc_bench_versions';

function log(message: string) {
  console.log(`[bench:versions] ${message}`);
}

function client(baseUrl: string, token: string) {
  return async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`);
    return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
  };
}

interface Side { requestsPerSec: number; p50Ms: number; p99Ms: number; requests: number; non2xx: number; errors: number }

async function measure(url: string, requests: autocannon.Request[], connections: number, s: VersionBenchSettings): Promise<Side> {
  const run = (duration: number) => autocannon({ url, connections, duration, requests });
  await run(s.warmup);
  const r = await run(s.duration);
  return { requestsPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, requests: r.requests.total, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

function mean(sides: Side[]): Side {
  const avg = (f: (s: Side) => number) => sides.reduce((a, s) => a + f(s), 0) / sides.length;
  const sum = (f: (s: Side) => number) => sides.reduce((a, s) => a + f(s), 0);
  return {
    requestsPerSec: avg((s) => s.requestsPerSec), p50Ms: avg((s) => s.p50Ms), p99Ms: avg((s) => s.p99Ms),
    requests: sum((s) => s.requests), non2xx: sum((s) => s.non2xx), errors: sum((s) => s.errors),
  };
}

/** Every id once, over `connections` concurrent workers (plain fetch: autocannon stops on its 1 s ticks, which
 * would quantise a fixed amount of work); answers promotes per second and latency percentiles. */
async function promoteAll(url: string, ids: string[], headers: Record<string, string>, connections: number): Promise<Side & { seconds: number }> {
  let next = 0;
  let non2xx = 0;
  let errors = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, async () => {
    while (next < ids.length) {
      const id = ids[next++];
      const t0 = performance.now();
      try {
        const res = await fetch(`${url}/versions/${id}/promote`, { method: 'POST', headers });
        await res.arrayBuffer();
        if (res.status < 200 || res.status >= 300) non2xx++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { requestsPerSec: ids.length / seconds, p50Ms: pct(0.5), p99Ms: pct(0.99), requests: ids.length, non2xx, errors, seconds };
}

export async function runVersionBench(keys: readonly string[], settings: VersionBenchSettings): Promise<void> {
  const promotes = Number(process.env.BENCH_PROMOTES ?? 2000);
  const dbUrl = withDatabase(settings.adminUrl, DATABASE);
  const started: ServerProcess[] = [];
  const email = 'bench-versions@example.com';
  const password = `bench-${randomBytes(9).toString('hex')}`;
  await query(settings.adminUrl, `drop database if exists ${DATABASE} with (force)`);
  await query(settings.adminUrl, `create database ${DATABASE}`);
  try {
    const service = await startServer({
      name: 'service-versions', cwd: root, script: 'container/main.ts', port: PORT,
      env: {
        DATABASE_URL: dbUrl, ADMIN_EMAIL: email, ADMIN_PASSWORD: password, SECRET: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'warn', NODE_ENV: 'production', RATE_LIMITER_ENABLED: 'false', ACCESS_TOKEN_TTL: '12h',
      },
    });
    started.push(service);
    const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
    await query(dbUrl, 'update svc_users set token = $1 where email = $2', [adminToken, email]);
    const api = client(service.baseUrl, adminToken);

    const pk = { field: 'id', type: 'integer', meta: { hidden: true }, schema: { is_primary_key: true, has_auto_increment: true } };
    const field = (name: string, type: string) => ({ field: name, type, meta: { interface: 'input' }, schema: {} });
    await api('POST', '/collections', { collection: 'pages', meta: {}, schema: { name: 'pages' }, fields: [pk, field('title', 'string'), field('body', 'text'), field('status', 'string'), field('views', 'integer')] });
    const pageCount = promotes + 1;
    const pageIds: number[] = [];
    for (let done = 0; done < pageCount; done += 500) {
      const n = Math.min(500, pageCount - done);
      pageIds.push(...await api<number[]>('POST', '/items/pages', Array.from({ length: n }, (_, i) => ({ title: `Page ${done + i}`, body: 'Lorem ipsum '.repeat(20), status: 'published', views: i }))));
    }
    const previewed = pageIds[0];
    const versionId = await api<string>('POST', '/versions', { key: 'preview', collection: 'pages', item: String(previewed), delta: { title: 'Draft title', body: 'Draft body' } });

    // The website role: read on pages, versioning:view (granted through the API, which bumps the schema version).
    const [role, policy, user, siteToken] = [randomUUID(), randomUUID(), randomUUID(), `bench-site-${randomBytes(12).toString('hex')}`];
    await query(dbUrl, "insert into svc_roles (id, name) values ($1, 'website')", [role]);
    await query(dbUrl, "insert into svc_policies (id, name, app_access) values ($1, 'website', false)", [policy]);
    await query(dbUrl, 'insert into svc_access (id, role, policy) values ($1, $2, $3)', [randomUUID(), role, policy]);
    await query(dbUrl, "insert into svc_users (id, email, role, status, token) values ($1, 'site@example.com', $2, 'active', $3)", [user, role, siteToken]);
    await query(dbUrl, `insert into svc_permissions (policy, collection, action, fields) values ($1, 'pages', 'read', '["*"]')`, [policy]);
    await api('POST', '/app-permissions', { policy, permission: 'versioning:view' });

    const site = { authorization: `Bearer ${siteToken}` };
    const plainPath = `/items/pages/${previewed}`;
    const previewPath = `${plainPath}?version=${versionId}`;
    const plain = await (await fetch(service.baseUrl + plainPath, { headers: site })).json() as { data: Record<string, unknown> };
    const preview = await fetch(service.baseUrl + previewPath, { headers: site });
    const previewBody = await preview.json() as { data: Record<string, unknown> };
    if (preview.status !== 200 || previewBody.data.title !== 'Draft title' || previewBody.data.id !== plain.data.id || preview.headers.get('cache-control') !== 'no-store') {
      throw new Error(`(l) pre-flight: preview answered ${preview.status} ${JSON.stringify(previewBody).slice(0, 300)}`);
    }
    log(`seeded ${pageIds.length} pages; pre-flight passed (preview merges the delta, keeps the key, no-store)`);

    const lines: string[] = [];
    const results: Record<string, unknown> = {};
    if (keys.includes('l')) {
      // Alternating plain, preview, plain, preview and averaging, so load from other work on the machine
      // falls on both sides alike.
      const rounds: Side[][] = [[], []];
      for (let i = 0; i < 2; i++) {
        rounds[0].push(await measure(service.baseUrl, [{ method: 'GET', path: plainPath, headers: site }], settings.connections, settings));
        rounds[1].push(await measure(service.baseUrl, [{ method: 'GET', path: previewPath, headers: site }], settings.connections, settings));
      }
      const [plainSide, previewSide] = rounds.map(mean);
      const ratio = plainSide.requestsPerSec ? previewSide.requestsPerSec / plainSide.requestsPerSec : 0;
      results.l = { preview: previewSide, plain: plainSide, ratio };
      lines.push(`| (l) preview read vs plain read (website role) | ${fmt(previewSide.requestsPerSec)} req/s, p99 ${fmt(previewSide.p99Ms)} ms | ${fmt(plainSide.requestsPerSec)} req/s, p99 ${fmt(plainSide.p99Ms)} ms | ${fmt(ratio, 2)} (target >= 0.80) |`);
      log(lines[lines.length - 1]);
    }
    if (keys.includes('m')) {
      const ids: string[] = [];
      for (const id of pageIds.slice(1)) {
        ids.push(await api<string>('POST', '/versions', { key: 'bench', collection: 'pages', item: String(id), delta: { title: `Promoted ${id}`, views: 1 } }));
      }
      const warm = Math.max(1, Math.floor(ids.length / 10));
      await promoteAll(service.baseUrl, ids.slice(0, warm), { authorization: `Bearer ${adminToken}` }, settings.connections);
      const m = await promoteAll(service.baseUrl, ids.slice(warm), { authorization: `Bearer ${adminToken}` }, settings.connections);
      const [{ approved }] = await query(dbUrl, "select count(*)::int as approved from svc_versions where key = 'bench' and status = 'approved'");
      if (approved !== ids.length) throw new Error(`(m) ${approved} of ${ids.length} versions approved`);
      results.m = m;
      lines.push(`| (m) promote (update of an existing item + activity, revision, version approved) | ${fmt(m.requestsPerSec)} promotes/s, p50 ${fmt(m.p50Ms)} ms, p99 ${fmt(m.p99Ms)} ms | ${m.requests} promotes in ${fmt(m.seconds, 2)} s | |`);
      log(lines[lines.length - 1]);
    }
    const meta = {
      date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
      duration: settings.duration, warmup: settings.warmup, connections: settings.connections, promotes, loadAverageAtEnd: Number(loadavg()[0].toFixed(2)),
    };
    const table = ['| scenario | service | reference | ratio |', '|---|---|---|---:|', ...lines].join('\n');
    const notes = `Run ${meta.date}: ${meta.connections} connections, ${meta.warmup} s warm-up + ${meta.duration} s per read scenario; ${meta.promotes} drafts for (m), 10% promoted as warm-up; ${meta.cpu} x ${meta.cores}, Node ${meta.node}; 1-min load average after: ${meta.loadAverageAtEnd}.`;
    console.log(`\n${table}\n\n${notes}\n`);
    writeFileSync(join(here, 'results-versions.md'), `# Versions benchmark results\n\nGenerated by \`BENCH_SCENARIOS=l,m npm run bench\` (test/bench/versions.ts); do not edit by hand.\n\n${table}\n\n${notes}\n`);
    writeFileSync(join(here, 'results-versions.json'), JSON.stringify({ meta, results }, null, 2) + '\n');
    log('wrote test/bench/results-versions.md and results-versions.json');
  } finally {
    for (const p of started.splice(0)) await p.stop().catch(() => undefined);
    await query(settings.adminUrl, `drop database if exists ${DATABASE} with (force)`).catch(() => undefined);
  }
}
