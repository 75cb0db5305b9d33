/** Export memory: peak RSS of a real server process while it streams GET /utils/export/{collection} of 1,000,000 rows
 * as CSV and as JSON (and as CSV in an order other than the key, the cursor path), against its idle RSS, with the
 * rows/s of each; and, as the raw reference, the same rows streamed by a bare Node HTTP server reading a pg cursor
 * (`declare ... cursor` + `fetch 5000`; pg-copy-streams is not installed) and formatting with csv-stringify /
 * row_to_json. RSS is read from /proc/{pid}/status (VmRSS) every 100 ms.
 *
 * Run alone: npx tsx test/bench/export-memory.ts
 * Env: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres: a server where a database can be
 * created), BENCH_EXPORT_ROWS (1000000), EXPORT_BATCH_SIZE for the service (its default, 5000, unless set).
 * Writes test/bench/results-export-memory.md.
 *
 * The same file is the raw reference server when started with `--raw-server` (DATABASE_URL, PORT). */
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'csv-stringify/sync';
import pg from 'pg';
import { startServer, type ServerProcess } from './processes.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const MB = 1024 * 1024;
const DATABASE = 'svc_bench_export';
const COLUMNS = 'id, label, qty, price, created, meta';

// ------------------------------------------------------------------ raw reference server (child process)

async function rawServer(): Promise<void> {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  const server = http.createServer(async (req, res) => {
    if (req.url === '/server/health') { res.end('ok'); return; }
    const format = req.url?.includes('json') ? 'json' : 'csv';
    const client = await pool.connect();
    let closed = false;
    res.on('close', () => { closed = true; });
    try {
      await client.query('begin isolation level repeatable read read only');
      const select = format === 'csv'
        ? `select ${COLUMNS} from big_rows order by id`
        : `select row_to_json(r)::text as j from (select ${COLUMNS} from big_rows order by id) r`;
      await client.query(`declare raw_export no scroll cursor for ${select}`);
      res.writeHead(200, { 'content-type': format === 'csv' ? 'text/csv' : 'application/json' });
      let first = true;
      for (;;) {
        const { rows } = await client.query('fetch forward 5000 from raw_export');
        if (rows.length === 0 || closed) break;
        let text: string;
        if (format === 'csv') {
          text = stringify(rows.map((r) => [r.id, r.label, r.qty, r.price, (r.created as Date).toISOString(), JSON.stringify(r.meta)]),
            first ? { header: true, columns: ['id', 'label', 'qty', 'price', 'created', 'meta'] } : {});
        } else {
          text = (first ? '[' : ',') + rows.map((r) => r.j as string).join(',');
        }
        first = false;
        if (!res.write(text)) await new Promise((r) => res.once('drain', r));
      }
      if (format === 'json') res.write(first ? '[]' : ']');
      await client.query('commit');
      res.end();
    } catch (err) {
      await client.query('rollback').catch(() => {});
      res.destroy(err as Error);
    } finally {
      client.release();
    }
  });
  server.listen(Number(process.env.PORT ?? 8065), process.env.HOST ?? '127.0.0.1');
}

// ------------------------------------------------------------------ the bench

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

interface Measured { peak: number; seconds: number; bytes: number; rows: number; firstHalfPeak: number; secondHalfPeak: number }

/** Streams the response, counting bytes and rows (CSV: lines after the header; JSON: `"id":` keys), while sampling
 * the server's RSS every 100 ms. */
async function measure(pid: number, url: string, headers: Record<string, string>, format: 'csv' | 'json', expected = 0): Promise<Measured> {
  let peak = rssOf(pid);
  // Peaks while the first and the second half of the rows arrive: memory that grew with the row count would show
  // as a second half well above the first.
  const halves = [0, 0];
  const timer = setInterval(() => {
    const rss = rssOf(pid);
    peak = Math.max(peak, rss);
    const half = rows * 2 < expected ? 0 : 1;
    halves[half] = Math.max(halves[half], rss);
  }, 100);
  const started = Date.now();
  let bytes = 0;
  let rows = 0;
  try {
    const res = await fetch(url, { headers });
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
    const decoder = new TextDecoder();
    let carry = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      const text = carry + decoder.decode(chunk, { stream: true });
      if (format === 'csv') {
        for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) rows++;
        carry = '';
      } else {
        for (let i = text.indexOf('"id":'); i !== -1; i = text.indexOf('"id":', i + 1)) rows++;
        carry = text.slice(-4);
        if (carry.includes('"id":')) carry = '';
      }
    }
    if (format === 'csv') rows -= 1; // the header
  } finally {
    clearInterval(timer);
  }
  return { peak: Math.max(peak, rssOf(pid)), seconds: (Date.now() - started) / 1000, bytes, rows, firstHalfPeak: halves[0], secondHalfPeak: halves[1] };
}

async function query(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try { await client.query(sql); } finally { await client.end(); }
}

async function settle(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 2000));
  return rssOf(pid);
}

async function bench(): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const total = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-export-'));
  await query(adminUrl, `drop database if exists ${DATABASE} with (force)`);
  await query(adminUrl, `create database ${DATABASE}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${DATABASE}`;
  const password = 'bench-export-password';
  const servers: ServerProcess[] = [];
  try {
    const service = await startServer({
      name: 'export-memory', cwd: root, script: 'container/main.ts', port: 8064,
      env: {
        DATA_DIR: join(dir, 'data'), STORAGE_LOCAL_ROOT: join(dir, 'uploads'), ADMIN_PASSWORD: password,
        RATE_LIMITER_ENABLED: 'false', LOG_LEVEL: 'error',
        DATABASE_URL: dbUrl.toString(), SECRET: 'bench-export-secret-bench-export-secret',
        ...(process.env.EXPORT_BATCH_SIZE ? { EXPORT_BATCH_SIZE: process.env.EXPORT_BATCH_SIZE } : {}),
      },
    });
    servers.push(service);
    const login = await fetch(`${service.baseUrl}/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password }),
    });
    const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const auth = { authorization: `Bearer ${token}` };
    const created = await fetch(`${service.baseUrl}/collections`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        collection: 'big_rows', schema: {}, meta: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'label', type: 'string' },
          { field: 'qty', type: 'integer' },
          { field: 'price', type: 'float' },
          { field: 'created', type: 'timestamp' },
          { field: 'meta', type: 'json' },
        ],
      }),
    });
    if (created.status !== 200) throw new Error(`creating the collection answered ${created.status}: ${await created.text()}`);
    const seedStart = Date.now();
    await query(dbUrl.toString(), `insert into big_rows (label, qty, price, created, meta)
      select 'row ' || g, g % 1000, g * 0.25, timestamptz '2024-01-01' + g * interval '1 second', json_build_object('g', g, 'even', g % 2 = 0)
      from generate_series(1, ${total}) g; analyze big_rows`);
    console.log(`[bench:export-memory] seeded ${total} rows in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

    const raw = await startServer({
      name: 'export-raw', cwd: root, script: fileURLToPath(import.meta.url) + '', port: 8065,
      env: { DATABASE_URL: dbUrl.toString(), BENCH_ROLE: 'raw-server' },
    });
    servers.push(raw);

    const servicePid = service.child.pid!;
    const rawPid = raw.child.pid!;
    // Warm both, then let the heaps settle before the idle figures.
    await measure(servicePid, `${service.baseUrl}/utils/export/big_rows?format=csv&limit=10`, auth, 'csv');
    await measure(servicePid, `${service.baseUrl}/utils/export/big_rows?format=json&limit=10`, auth, 'json');
    const rows: [string, number, Measured][] = [];
    const run = async (name: string, pid: number, url: string, headers: Record<string, string>, format: 'csv' | 'json') => {
      const idle = await settle(pid);
      const m = await measure(pid, url, headers, format, total);
      if (m.rows !== total) throw new Error(`${name}: ${m.rows} rows instead of ${total}`);
      console.log(`[bench:export-memory] ${name}: idle ${Math.round(idle / MB)} MB, peak ${Math.round(m.peak / MB)} MB (halves ${Math.round(m.firstHalfPeak / MB)} / ${Math.round(m.secondHalfPeak / MB)}), ${m.seconds.toFixed(1)} s, ${Math.round(m.rows / m.seconds)} rows/s, ${Math.round(m.bytes / MB)} MB`);
      rows.push([name, idle, m]);
    };
    await run('service CSV, key order (keyset pages)', servicePid, `${service.baseUrl}/utils/export/big_rows?format=csv`, auth, 'csv');
    await run('service JSON, key order (keyset pages)', servicePid, `${service.baseUrl}/utils/export/big_rows?format=json`, auth, 'json');
    await run('service CSV, sort=qty (key cursor in one snapshot)', servicePid, `${service.baseUrl}/utils/export/big_rows?format=csv&sort=qty`, auth, 'csv');
    await run('raw reference CSV (pg cursor + csv-stringify)', rawPid, `${raw.baseUrl}/csv`, {}, 'csv');
    await run('raw reference JSON (pg cursor + row_to_json)', rawPid, `${raw.baseUrl}/json`, {}, 'json');

    const lines = [
      '| scenario | rows | idle RSS MB | peak RSS MB | above idle MB | peak 1st half / 2nd half MB | seconds | rows/s | MB sent |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map(([name, idle, m]) => `| ${name} | ${m.rows} | ${Math.round(idle / MB)} | ${Math.round(m.peak / MB)} | ${Math.round((m.peak - idle) / MB)} | ${Math.round(m.firstHalfPeak / MB)} / ${Math.round(m.secondHalfPeak / MB)} | ${m.seconds.toFixed(1)} | ${Math.round(m.rows / m.seconds)} | ${Math.round(m.bytes / MB)} |`),
    ];
    console.log(lines.join('\n'));
    writeFileSync(join(here, 'results-export-memory.md'),
      `# Export memory\n\nGenerated by \`npx tsx test/bench/export-memory.ts\`: GET /utils/export of ${total} rows from a Postgres server, `
      + `the service running standalone as its own process (EXPORT_BATCH_SIZE ${process.env.EXPORT_BATCH_SIZE ?? 'default 5000'}), RSS sampled every 100 ms; `
      + 'the raw reference is a bare Node HTTP server reading the same rows through a pg cursor in pages of 5000.\n\n'
      + `${lines.join('\n')}\n\nRun ${new Date().toISOString()}, Node ${process.version}.\n`);
  } finally {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
    await query(adminUrl, `drop database if exists ${DATABASE} with (force)`);
  }
}

if (process.argv.includes('--raw-server') || process.env.BENCH_ROLE === 'raw-server') await rawServer();
else await bench();
