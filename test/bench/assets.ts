/** Asset rows of the benchmark (keys g..j): the service's /assets against a plain node:fs + sharp server
 * (test/bench/raw-assets-server.ts) answering the same bytes.
 *
 *   (g) whole 20 MB file: MB/s
 *   (h) random 64 KiB ranges of it: req/s and MB/s
 *   (i) uncached transforms (every request a new width/quality, so each runs sharp and stores its output) vs
 *       calling sharp directly on the same JPEG: transforms/s (target: service >= 0.9 x raw)
 *   (j) a cached transform vs the same output bytes as a static file: req/s
 *
 * Requests are anonymous (the Public role reads svc_files), as a consumer website's. Runs on its own database (svc_bench_assets) and a temporary STORAGE_LOCAL_ROOT; file rows are inserted with
 * SQL and the bytes written into the root, as the local driver stores them. Run alone with
 * `BENCH_SCENARIOS=g,h,i,j npm run bench` (BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS as for the rest;
 * BENCH_TRANSFORM_CONNECTIONS, default 4, for (i)). A full `npm run bench` runs them after (a)..(f). */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import sharp from 'sharp';
import { startServer, type ServerProcess } from './processes.ts';
import { withDatabase, query, fmt } from './shared.ts';

export const ASSET_SCENARIO_KEYS = ['g', 'h', 'i', 'j'] as const;

export interface AssetBenchSettings {
  adminUrl: string;
  duration: number;
  warmup: number;
  connections: number;
}

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const SERVICE_PORT = 8063;
const RAW_PORT = 8064;
const DATABASE = 'svc_bench_assets';
const BIG = 20 * 1024 * 1024;
const RANGE = 64 * 1024;
const CACHED_WIDTH = 400;

function log(message: string) {
  console.log(`[bench:assets] ${message}`);
}

/** A photo-like JPEG: smooth noise, 2400 x 1600. */
async function photo(): Promise<Buffer> {
  const w = 600;
  const h = 400;
  const raw = Buffer.alloc(w * h * 3);
  let x = 7;
  for (let i = 0; i < raw.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    raw[i] = x >> 16;
  }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } }).blur(2).resize(2400, 1600).jpeg({ quality: 88 }).toBuffer();
}

interface Side { requestsPerSec: number; mbPerSec: number; p99Ms: number; requests: number; non2xx: number; errors: number }
interface AssetRow { key: string; name: string; service: Side; raw: Side; ratio: number; unit: 'MB/s' | 'req/s' }

async function measure(url: string, requests: autocannon.Request[], connections: number, s: AssetBenchSettings): Promise<Side> {
  const run = (duration: number) => autocannon({ url, connections, duration, requests });
  await run(s.warmup);
  const r = await run(s.duration);
  return {
    requestsPerSec: r.requests.average,
    mbPerSec: r.throughput.average / (1024 * 1024),
    p99Ms: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

async function fetchBytes(url: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(url, { headers });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

export async function runAssetBench(keys: readonly string[], settings: AssetBenchSettings): Promise<void> {
  const transformConnections = Number(process.env.BENCH_TRANSFORM_CONNECTIONS ?? 4);
  const storage = mkdtempSync(join(tmpdir(), 'svc-bench-assets-'));
  const dbUrl = withDatabase(settings.adminUrl, DATABASE);
  const started: ServerProcess[] = [];
  const email = 'bench-assets@example.com';
  const password = `bench-${randomBytes(9).toString('hex')}`;
  await query(settings.adminUrl, `drop database if exists ${DATABASE} with (force)`);
  await query(settings.adminUrl, `create database ${DATABASE}`);
  try {
    const service = await startServer({
      name: 'service-assets', cwd: root, script: 'container/main.ts', port: SERVICE_PORT,
      env: {
        DATABASE_URL: dbUrl, ADMIN_EMAIL: email, ADMIN_PASSWORD: password, SECRET: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'warn', NODE_ENV: 'production', RATE_LIMITER_ENABLED: 'false',
        ACCESS_TOKEN_TTL: '12h', STORAGE_LOCAL_ROOT: storage,
      },
    });
    started.push(service);
    // Requests are anonymous, as a consumer website's are: the Public role may read svc_files.
    const auth: Record<string, string> = {};
    await query(dbUrl, `insert into svc_permissions (policy, collection, action, fields)
      select a.policy, 'svc_files', 'read', '["*"]' from svc_access a join svc_settings s on s.public_role = a.role limit 1`);

    // Seed: a 20 MB binary and a photo, rows straight into svc_files, bytes where the local driver keeps them.
    const big = randomBytes(BIG);
    const jpeg = await photo();
    const bigId = randomUUID();
    const jpgId = randomUUID();
    writeFileSync(join(storage, `${bigId}.bin`), big);
    writeFileSync(join(storage, `${jpgId}.jpg`), jpeg);
    const insert = `insert into svc_files (id, storage, filename_disk, filename_download, type, filesize) values ($1, 'local', $2, $3, $4, $5)`;
    await query(dbUrl, insert, [bigId, `${bigId}.bin`, 'big.bin', 'application/octet-stream', BIG]);
    await query(dbUrl, insert, [jpgId, `${jpgId}.jpg`, 'photo.jpg', 'image/jpeg', jpeg.length]);
    log(`seeded a ${BIG / 1024 / 1024} MB file and a ${(jpeg.length / 1024).toFixed(0)} kB 2400x1600 JPEG under ${storage}`);

    const raw = await startServer({ name: 'raw-assets', cwd: root, script: 'test/bench/raw-assets-server.ts', port: RAW_PORT, env: { ROOT: storage } });
    started.push(raw);

    // Warm the cached transform, then expose its output to the raw server as a plain file.
    const cached = await fetchBytes(`${service.baseUrl}/assets/${jpgId}?width=${CACHED_WIDTH}`, auth);
    if (cached.status !== 200) throw new Error(`cached transform pre-flight answered ${cached.status}: ${cached.bytes.toString().slice(0, 300)}`);
    writeFileSync(join(storage, 'bench-cached-copy.jpg'), cached.bytes);

    // Pre-flight: same bytes from both.
    const full = await fetchBytes(`${service.baseUrl}/assets/${bigId}`, auth);
    if (full.status !== 200 || !full.bytes.equals(big)) throw new Error(`(g) service answered ${full.status} with ${full.bytes.length} bytes`);
    const part = await fetchBytes(`${service.baseUrl}/assets/${bigId}`, { ...auth, range: `bytes=1000-${1000 + RANGE - 1}` });
    const rawPart = await fetchBytes(`${raw.baseUrl}/files/${bigId}.bin`, { range: `bytes=1000-${1000 + RANGE - 1}` });
    if (part.status !== 206 || !part.bytes.equals(rawPart.bytes)) throw new Error('(h) ranged answers differ between service and raw');
    const t1 = await sharp((await fetchBytes(`${service.baseUrl}/assets/${jpgId}?width=321&quality=77`, auth)).bytes).metadata();
    const t2 = await sharp((await fetchBytes(`${raw.baseUrl}/transform/${jpgId}.jpg?width=321&quality=77`)).bytes).metadata();
    if (t1.width !== 321 || t2.width !== 321 || t1.height !== t2.height) throw new Error(`(i) transforms differ: ${t1.width}x${t1.height} vs ${t2.width}x${t2.height}`);
    log('pre-flight passed: same bytes (g, h, j) and same output size (i) from both servers');

    /** A new width/quality pair per request: 100..1599 x 60..99 = 60,000 distinct transforms. Each server gets
     * the same sequence (its own counter), so both do the same work. */
    const uncached = (prefix: string, headers: Record<string, string>): autocannon.Request[] => {
      let counter = 0;
      return [{
        method: 'GET', path: prefix, headers,
        setupRequest: (req) => {
          const n = counter++;
          const width = 100 + (n % 1500);
          const quality = 60 + (Math.floor(n / 1500) % 40);
          return { ...req, path: `${prefix}?width=${width}&quality=${quality}` };
        },
      }];
    };
    const ranged = (path: string, headers: Record<string, string>): autocannon.Request[] => {
      let seed = 1;
      return [{
        method: 'GET', path, headers,
        setupRequest: (req) => {
          seed = (seed * 1103515245 + 12345) & 0x7fffffff;
          const start = seed % (BIG - RANGE);
          return { ...req, headers: { ...headers, range: `bytes=${start}-${start + RANGE - 1}` } };
        },
      }];
    };

    const scenarios: Record<string, { name: string; unit: 'MB/s' | 'req/s'; connections: number; service: autocannon.Request[]; raw: autocannon.Request[] }> = {
      g: { name: 'asset: whole 20 MB file', unit: 'MB/s', connections: settings.connections, service: [{ method: 'GET', path: `/assets/${bigId}`, headers: auth }], raw: [{ method: 'GET', path: `/files/${bigId}.bin` }] },
      h: { name: 'asset: random 64 KiB ranges', unit: 'req/s', connections: settings.connections, service: ranged(`/assets/${bigId}`, auth), raw: ranged(`/files/${bigId}.bin`, {}) },
      i: { name: 'transform: uncached, 2400x1600 JPEG -> width 100..1599', unit: 'req/s', connections: transformConnections, service: uncached(`/assets/${jpgId}`, auth), raw: uncached(`/transform/${jpgId}.jpg`, {}) },
      j: { name: `transform: cached (width=${CACHED_WIDTH})`, unit: 'req/s', connections: settings.connections, service: [{ method: 'GET', path: `/assets/${jpgId}?width=${CACHED_WIDTH}`, headers: auth }], raw: [{ method: 'GET', path: '/files/bench-cached-copy.jpg' }] },
    };

    const rows: AssetRow[] = [];
    for (const key of keys) {
      const s = scenarios[key];
      const serviceSide = await measure(service.baseUrl, s.service, s.connections, settings);
      const rawSide = await measure(raw.baseUrl, s.raw, s.connections, settings);
      const value = (side: Side) => (s.unit === 'MB/s' ? side.mbPerSec : side.requestsPerSec);
      const row: AssetRow = { key, name: s.name, service: serviceSide, raw: rawSide, unit: s.unit, ratio: value(rawSide) ? value(serviceSide) / value(rawSide) : 0 };
      rows.push(row);
      log(`(${key}) ${s.name}: service ${fmt(serviceSide.requestsPerSec)} req/s ${fmt(serviceSide.mbPerSec, 1)} MB/s | raw ${fmt(rawSide.requestsPerSec)} req/s ${fmt(rawSide.mbPerSec, 1)} MB/s | ratio ${fmt(row.ratio, 2)} (${s.unit})`);
    }

    const lines = [
      '| scenario | service req/s | service MB/s | service p99 ms | raw req/s | raw MB/s | raw p99 ms | ratio (service/raw) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((r) => `| (${r.key}) ${r.name} | ${fmt(r.service.requestsPerSec)} | ${fmt(r.service.mbPerSec, 1)} | ${fmt(r.service.p99Ms)} | ${fmt(r.raw.requestsPerSec)} | ${fmt(r.raw.mbPerSec, 1)} | ${fmt(r.raw.p99Ms)} | ${fmt(r.ratio, 2)} (${r.unit}) |`),
    ];
    const anomalies = rows.flatMap((r) => (['service', 'raw'] as const)
      .filter((who) => r[who].non2xx || r[who].errors)
      .map((who) => `- (${r.key}) ${who}: ${r[who].non2xx} non-2xx, ${r[who].errors} errors of ${r[who].requests} requests`));
    const meta = {
      date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
      duration: settings.duration, warmup: settings.warmup, connections: settings.connections, transformConnections,
      loadAverageAtEnd: Number(loadavg()[0].toFixed(2)),
    };
    const notes = [
      `Run ${meta.date}: ${meta.connections} connections ((i): ${transformConnections}), ${meta.warmup} s warm-up + ${meta.duration} s per scenario and server, one at a time; ${meta.cpu} x ${meta.cores}, Node ${meta.node}; 1-min load average after: ${meta.loadAverageAtEnd}.`,
      'Raw reference: test/bench/raw-assets-server.ts (node:http + node:fs streams; sharp called directly, no cache, no auth, no database).',
      ...(anomalies.length ? ['', 'Anomalies:', ...anomalies] : []),
    ].join('\n');
    console.log(`\n${lines.join('\n')}\n\n${notes}\n`);
    writeFileSync(join(here, 'results-assets.md'), `# Asset benchmark results\n\nGenerated by \`npm run bench\` (test/bench/assets.ts); do not edit by hand.\n\n${lines.join('\n')}\n\n${notes}\n`);
    writeFileSync(join(here, 'results-assets.json'), JSON.stringify({ meta, scenarios: rows }, null, 2) + '\n');
    log('wrote test/bench/results-assets.md and results-assets.json');
  } finally {
    for (const p of started.splice(0)) await p.stop().catch(() => undefined);
    await query(settings.adminUrl, `drop database if exists ${DATABASE} with (force)`).catch(() => undefined);
    rmSync(storage, { recursive: true, force: true });
  }
}
