/** Row (k) of `npm run bench`: peak RSS of a real server process while it receives a 1 GB file by multipart
 * POST /files and by tus, against its idle RSS (target: flat, under 150 MB above idle). RSS is sampled from
 * /proc every 50 ms. The server runs standalone on a fresh Postgres database (an embedded PGlite would add its
 * own hundreds of MB of start-up memory to the idle figure) and a fresh storage directory. */
import pg from 'pg';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './processes.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const MB = 1024 * 1024;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** A body of `size` bytes produced in 1 MiB chunks, never held whole. */
function generated(size: number, head = Buffer.alloc(0), tail = Buffer.alloc(0)): ReadableStream<Uint8Array> {
  const chunk = Buffer.alloc(MB, 7);
  let sent = 0;
  let stage = 0;
  return new ReadableStream({
    pull(controller) {
      if (stage === 0) { stage = 1; if (head.length) { controller.enqueue(head); return; } }
      if (sent < size) {
        const n = Math.min(MB, size - sent);
        sent += n;
        controller.enqueue(n === MB ? chunk : chunk.subarray(0, n));
        return;
      }
      if (tail.length && stage === 1) { stage = 2; controller.enqueue(tail); return; }
      controller.close();
    },
  });
}

async function measure(pid: number, work: () => Promise<void>): Promise<{ peak: number; seconds: number }> {
  let peak = rssOf(pid);
  const timer = setInterval(() => { peak = Math.max(peak, rssOf(pid)); }, 50);
  const started = Date.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { peak: Math.max(peak, rssOf(pid)), seconds: (Date.now() - started) / 1000 };
}

async function query(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try { await client.query(sql); } finally { await client.end(); }
}

const DATABASE = 'svc_bench_upload';

export async function runUploadMemoryBench(adminUrl: string, size = Number(process.env.BENCH_UPLOAD_MB ?? 1024) * MB): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-upload-'));
  await query(adminUrl, `drop database if exists ${DATABASE} with (force)`);
  await query(adminUrl, `create database ${DATABASE}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${DATABASE}`;
  const password = 'bench-upload-password';
  const server = await startServer({
    name: 'upload-memory', cwd: root, script: 'container/main.ts', port: 8063,
    env: {
      DATA_DIR: join(dir, 'data'), STORAGE_LOCAL_ROOT: join(dir, 'uploads'), ADMIN_PASSWORD: password,
      FILES_MAX_UPLOAD_SIZE: `${Math.ceil(size / MB) + 1}mb`, RATE_LIMITER_ENABLED: 'false', LOG_LEVEL: 'error',
      DATABASE_URL: dbUrl.toString(), SECRET: 'bench-upload-secret-bench-upload-secret',
    },
  });
  try {
    const pid = server.child.pid!;
    const login = await fetch(`${server.baseUrl}/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password }),
    });
    const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const auth = { authorization: `Bearer ${token}` };
    // Warm both paths with a small file, then let the heap settle before reading the idle figure.
    await fetch(`${server.baseUrl}/files`, { method: 'POST', headers: { ...auth, 'content-type': 'multipart/form-data; boundary=b' },
      body: '--b\r\nContent-Disposition: form-data; name="file"; filename="warm.bin"\r\nContent-Type: application/octet-stream\r\n\r\nwarm\r\n--b--\r\n' });
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssOf(pid);
    console.log(`[bench:upload-memory] idle RSS ${Math.round(idle / MB)} MB; uploading ${Math.round(size / MB)} MB twice`);

    const boundary = 'svcbenchboundary';
    const multipart = await measure(pid, async () => {
      const res = await fetch(`${server.baseUrl}/files`, {
        method: 'POST',
        headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: generated(size,
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
          Buffer.from(`\r\n--${boundary}--\r\n`)),
        duplex: 'half',
      } as RequestInit);
      if (res.status !== 200) throw new Error(`multipart upload answered ${res.status}: ${await res.text()}`);
    });

    const tus = await measure(pid, async () => {
      const created = await fetch(`${server.baseUrl}/tus`, {
        method: 'POST',
        headers: { ...auth, 'tus-resumable': '1.0.0', 'upload-length': String(size), 'upload-metadata': `filename ${Buffer.from('big-tus.bin').toString('base64')}` },
      });
      if (created.status !== 201) throw new Error(`tus creation answered ${created.status}: ${await created.text()}`);
      const location = created.headers.get('location')!;
      const res = await fetch(new URL(new URL(location).pathname, server.baseUrl), {
        method: 'PATCH',
        headers: { ...auth, 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
        body: generated(size),
        duplex: 'half',
      } as RequestInit);
      if (res.status !== 204) throw new Error(`tus PATCH answered ${res.status}: ${await res.text()}`);
    });

    const rows = [
      ['(k) upload 1 file by multipart POST /files', multipart],
      ['(k) upload 1 file by tus (one PATCH)', tus],
    ] as const;
    const lines = [
      `| scenario | size | idle RSS MB | peak RSS MB | above idle MB | MB/s |`,
      `|---|---:|---:|---:|---:|---:|`,
      ...rows.map(([name, m]) => `| ${name} | ${Math.round(size / MB)} MB | ${Math.round(idle / MB)} | ${Math.round(m.peak / MB)} | ${Math.round((m.peak - idle) / MB)} | ${Math.round(size / MB / m.seconds)} |`),
    ];
    console.log(lines.join('\n'));
    writeFileSync(join(here, 'results-upload-memory.json'), JSON.stringify({
      meta: { date: new Date().toISOString(), node: process.version, sizeMb: Math.round(size / MB), idleMb: Math.round(idle / MB) },
      results: rows.map(([name, m]) => ({ name, peakMb: Math.round(m.peak / MB), aboveIdleMb: Math.round((m.peak - idle) / MB), mbPerSec: Math.round(size / MB / m.seconds) })),
    }, null, 2) + '\n');
    writeFileSync(join(here, 'results-upload-memory.md'),
      `# Upload memory (row k)\n\nGenerated by \`npm run bench\` (test/bench/upload-memory.ts); target: peak under 150 MB above idle.\n\n${lines.join('\n')}\n\nRun ${new Date().toISOString()}, Node ${process.version}.\n`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    await query(adminUrl, `drop database if exists ${DATABASE} with (force)`);
  }
}
