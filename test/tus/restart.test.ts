/** Resumable means surviving the server: half an upload goes to a real server process, the process is killed
 * (SIGKILL, mid-chunk the second time), a new process on the same database and storage root answers HEAD with
 * the offset it got to, takes the rest, and completes the file. PGlite under DATA_DIR by default, the Postgres
 * server with TEST_DATABASE_URL. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_TOKEN, testEnv } from '../helpers/template.ts';
import { bytes, freshConnectionFetch, freshRoot, tus, viaUrl } from './helpers.ts';
import { freePort } from '../helpers/free-port.ts';

const root = freshRoot();
const dataDir = mkdtempSync(join(tmpdir(), 'svc-tus-data-'));
let database: TestDatabase | null = null;
let server: ChildProcess | null = null;
let base = '';
let token = ADMIN_TOKEN;
let serverOutput = '';

async function start(): Promise<void> {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  let output = '';
  const proc = spawn(process.execPath, ['--import', 'tsx', 'container/main.ts'], {
    env: {
      ...process.env,
      ...testEnv(),
      ...(database ? { DATABASE_URL: database.url! } : { DATA_DIR: dataDir, DATABASE_URL: '' }),
      STORAGE_LOCAL_ROOT: root,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      REDIS_URL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => { output += d; serverOutput += d; });
  proc.stderr!.on('data', (d) => { output += d; serverOutput += d; });
  const deadline = Date.now() + 90_000;
  while (!output.includes('listening on')) {
    if (proc.exitCode !== null) throw new Error(`server exited: ${output}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  server = proc;
}

async function kill(): Promise<void> {
  const proc = server!;
  server = null;
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
}

async function fileRow(id: string): Promise<Record<string, any>> {
  // GET /files/{id} once the files routes are there; the admin's /items/svc_files/{id} otherwise.
  for (const path of [`/files/${id}`, `/items/svc_files/${id}`]) {
    const res = await freshConnectionFetch(base + path, { headers: { authorization: `Bearer ${token}` } });
    if (res.status === 200) return (await res.json()).data;
  }
  throw new Error(`file ${id} not readable`);
}

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) database = await cloneTestDatabase();
  await start();
  if (!database) {
    // A fresh PGlite data directory: the first start created the admin; sign in for a token (same SECRET later).
    const res = await freshConnectionFetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }) });
    token = (await res.json()).data.access_token;
  }
}, 120_000);

afterAll(async () => {
  if (server) {
    const proc = server;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

describe('kill and restart', () => {
  it('HEAD after a restart gives the offset; the rest completes the file', async () => {
    const data = bytes(300_000, 11);
    let client = tus(viaUrl(base), token);
    const created = await client.create(data.length, { filename: 'restart.bin', filetype: 'application/octet-stream' });
    expect(created.status).toBe(201);
    const id = created.id!;
    expect((await client.patch(id, 0, data.subarray(0, 150_000))).status).toBe(204);

    await kill();
    await start();
    client = tus(viaUrl(base), token);

    const head = await client.head(id);
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe('150000');
    expect(head.headers.get('upload-length')).toBe('300000');
    const rest = await client.patch(id, 150_000, data.subarray(150_000));
    expect(rest.status).toBe(204);
    expect(rest.headers.get('upload-offset')).toBe('300000');

    const row = await fileRow(id);
    expect(row).toMatchObject({ id, filename_download: 'restart.bin', filename_disk: `${id}.bin` });
    expect(row.tus_id ?? null).toBeNull();
    expect(Number(row.filesize)).toBe(300_000);
    expect(new Uint8Array(readFileSync(join(root, `${id}.bin`)))).toEqual(data);
    const asset = await freshConnectionFetch(`${base}/assets/${id}`, { headers: { authorization: `Bearer ${token}` } });
    if (asset.status === 200) expect(new Uint8Array(await asset.arrayBuffer())).toEqual(data);
  }, 120_000);

  it('killed in the middle of a chunk: the bytes that reached the disk count, the client resumes from there', async () => {
    const data = bytes(200_000, 5);
    let client = tus(viaUrl(base), token);
    const created = await client.create(data.length, { filename: 'midway.bin', filetype: 'application/octet-stream' });
    expect(created.status, created.body).toBe(201);
    const id = created.id!;
    // Stream the first 120 kB of a 200 kB chunk, then kill the server while the request is still open.
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start(c) { push = c; } });
    const pending = client.patch(id, 0, body, { 'content-length': String(data.length) }).catch((e) => e);
    for (let i = 0; i < 120_000; i += 20_000) push.enqueue(data.slice(i, i + 20_000));
    await new Promise((r) => setTimeout(r, 700));
    await kill();
    await pending;
    await start();
    client = tus(viaUrl(base), token);

    const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      try { return await fn(); } catch (err) { throw new Error(`${name}: ${(err as Error).message} ${(err as { cause?: Error }).cause?.message ?? ''}\n${serverOutput}`); }
    };
    const head = await step('HEAD', () => client.head(id));
    const offset = Number(head.headers.get('upload-offset'));
    expect(offset, `HEAD ${head.status} ${head.body}`).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(120_000);
    const rest = await step('PATCH', () => client.patch(id, offset, data.subarray(offset)));
    expect(rest.status, rest.body).toBe(204);
    expect(new Uint8Array(readFileSync(join(root, `${id}.bin`)))).toEqual(data);
  }, 120_000);
});
