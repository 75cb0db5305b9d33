/** Backups of the embedded engine (`npm run backup` / `npm run restore`, container/backup-cli.ts) with real processes: a
 * server on PGlite in a temporary DATA_DIR takes writes (items and uploads) without pause while the backup command
 * asks it for a snapshot on its control socket; the archive is restored into fresh directories and a server started
 * on them. Every write acknowledged before the backup started is there, each item with its activity row (one
 * transaction, one snapshot), every file row with its bytes, and the restored signing secret still accepts the old
 * server's token. Then the same from the stopped server's directory. A restore into a directory that holds
 * something, or under a running server, is refused, and so is a backup of a killed server's directory without
 * --force. The embedded engine only: skipped in the Postgres passes. */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServer, type FaultServer } from '../faults/harness.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/template.ts';

const SKIP = process.env.TEST_DATABASE_URL ? ' (skipped: the embedded engine only, run in the PGlite pass)' : '';
const root = mkdtempSync(join(tmpdir(), 'svc-backup-'));
const servers: FaultServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(root, { recursive: true, force: true });
});

interface Dirs { dataDir: string; uploads: string }
const dirs = (name: string): Dirs => ({ dataDir: join(root, name, 'data'), uploads: join(root, name, 'uploads') });

/** A server on the embedded engine in `d`; SECRET unset so the signing secret lives in DATA_DIR (and in backups). */
async function start(d: Dirs): Promise<FaultServer> {
  const server = await spawnServer({
    databaseUrl: '', env: { DATA_DIR: d.dataDir, STORAGE_LOCAL_ROOT: d.uploads, SECRET: '', PGLITE_WASM_COMPILER: 'baseline' },
  });
  servers.push(server);
  return server;
}

/** Runs container/backup-cli.ts as `npm run backup|restore` does; resolves with its exit code and output. */
function cli(args: string[], d: Dirs): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'container/backup-cli.ts', ...args], {
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: d.dataDir, STORAGE_LOCAL_ROOT: d.uploads },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => { output += c; });
  child.stderr.on('data', (c) => { output += c; });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

async function call(server: FaultServer, token: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function login(server: FaultServer): Promise<string> {
  const res = await fetch(`${server.url}/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { access_token: string } }).data.access_token;
}

async function data<T>(res: Response): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return (JSON.parse(text) as { data: T }).data;
}

interface Note { id: number; title: string }
interface Upload { id: string; bytes: Buffer }

/** Writes without pause (three at a time, an upload every fifth write) until stopped; every 2xx is recorded with
 * the moment it arrived, every other answer too. */
function writeStream(server: FaultServer, token: string) {
  const notes: (Note & { at: number })[] = [];
  const uploads: (Upload & { at: number })[] = [];
  const failures: string[] = [];
  let n = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped) {
      const i = n++;
      if (i % 5 === 4) {
        const bytes = randomBytes(2048 + i);
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), `blob-${i}.bin`);
        const res = await fetch(`${server.url}/files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
        const text = await res.text();
        if (res.status === 200) uploads.push({ id: (JSON.parse(text) as { data: { id: string } }).data.id, bytes, at: performance.now() });
        else failures.push(`POST /files ${res.status} ${text}`);
      } else {
        const title = `note ${i}`;
        const res = await call(server, token, 'POST', '/items/notes', { title });
        const text = await res.text();
        // The answer is the created item, or its key alone.
        const created = res.status === 200 ? (JSON.parse(text) as { data: number | { id: number } }).data : null;
        if (created !== null) notes.push({ id: typeof created === 'number' ? created : created.id, title, at: performance.now() });
        else failures.push(`POST /items/notes ${res.status} ${text}`);
      }
    }
  };
  const running = Promise.all([worker(), worker(), worker()]);
  return {
    notes, uploads, failures,
    async stop() { stopped = true; await running; },
    async until(count: number) { while (notes.length + uploads.length < count) await new Promise((r) => setTimeout(r, 20)); },
  };
}

/** What a server restored from a backup must hold: the given notes and uploads, every note with its create
 * activity and no activity without its note, every file row with its bytes. */
async function expectRestored(server: FaultServer, token: string, notes: Note[], uploads: Upload[]): Promise<void> {
  const rows = await data<Note[]>(await call(server, token, 'GET', '/items/notes?limit=-1&fields=id,title&sort=id'));
  const byId = new Map(rows.map((r) => [r.id, r.title]));
  for (const note of notes) expect(byId.get(note.id), `note ${note.id}`).toBe(note.title);
  const activity = await data<{ item: string }[]>(await call(server, token, 'GET',
    '/activity?limit=-1&fields=item&filter[collection][_eq]=notes&filter[action][_eq]=create'));
  expect(activity.map((a) => Number(a.item)).sort((a, b) => a - b)).toEqual(rows.map((r) => r.id));

  const files = await data<{ id: string }[]>(await call(server, token, 'GET', '/files?limit=-1&fields=id'));
  const fileIds = new Set(files.map((f) => f.id));
  for (const upload of uploads) expect(fileIds.has(upload.id), `file ${upload.id}`).toBe(true);
  const expected = new Map(uploads.map((u) => [u.id, u.bytes]));
  for (const { id } of files) {
    const res = await call(server, token, 'GET', `/assets/${id}`);
    expect(res.status, `asset ${id}`).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (expected.has(id)) expect(bytes.equals(expected.get(id)!), `bytes of ${id}`).toBe(true);
  }
}

describe(`npm run backup / restore on the embedded engine${SKIP}`, () => {
  it.skipIf(!!SKIP)('backs up a running server under writes and a stopped one; each restores into fresh directories and serves every acknowledged write', async () => {
    const live = dirs('live');
    const original = await start(live);
    // Only the account that owns the data reaches the control socket.
    expect(statSync(join(live.dataDir, 'control.sock')).mode & 0o777).toBe(0o600);
    const token = await login(original);
    expect((await call(original, token, 'POST', '/collections', { collection: 'notes', schema: {} })).status).toBe(200);
    expect((await call(original, token, 'POST', '/fields/notes', { field: 'title', type: 'string' })).status).toBe(200);

    const writes = writeStream(original, token);
    await writes.until(40);
    const startedAt = performance.now();
    const notesBefore = writes.notes.filter((w) => w.at < startedAt);
    const uploadsBefore = writes.uploads.filter((w) => w.at < startedAt);
    const taken = await cli(['backup', join(root, 'live.tar')], live);
    // How long requests waited for the snapshot, in the test's log.
    console.log(taken.output.trim());
    const endedAt = performance.now();
    const acknowledgedDuring = writes.notes.filter((w) => w.at >= startedAt && w.at < endedAt).length;
    await writes.until(writes.notes.length + writes.uploads.length + 10);
    await writes.stop();
    expect(taken.output).toMatch(/Backup written to .*live\.tar: .*\(server running, requests waited \d+ ms\)/);
    expect(taken.code).toBe(0);
    expect(statSync(join(root, 'live.tar')).mode & 0o777).toBe(0o600);
    expect(writes.failures).toEqual([]);
    expect(uploadsBefore.length).toBeGreaterThan(0);
    // The backup was taken while writes went on, not in a pause of them.
    expect(acknowledgedDuring).toBeGreaterThan(0);

    const fromLive = dirs('from-live');
    const restored = await cli(['restore', join(root, 'live.tar'), '--data-dir', fromLive.dataDir, '--uploads-dir', fromLive.uploads], live);
    expect(restored.output).toMatch(/Restored/);
    expect(restored.code).toBe(0);
    const again = await cli(['restore', join(root, 'live.tar'), '--data-dir', fromLive.dataDir, '--uploads-dir', join(root, 'other-uploads')], live);
    expect(again.output).toMatch(/is not empty/);
    expect(again.code).toBe(1);
    const underServer = await cli(['restore', join(root, 'live.tar'), '--force'], live);
    expect(underServer.output).toMatch(/a server is running/);
    expect(underServer.code).toBe(1);

    const second = await start(fromLive);
    // The signing secret came along: the original server's token is good here.
    expect((await call(second, token, 'GET', '/users/me')).status).toBe(200);
    await expectRestored(second, token, notesBefore, uploadsBefore);
    await second.stop();
    // Killed, its data directory is still marked open: the command refuses to open it unless told no server has it.
    const killed = await cli(['backup', join(root, 'killed.tar')], fromLive);
    expect(killed.output).toMatch(/did not shut down cleanly/);
    expect(killed.code).toBe(1);
    expect((await cli(['backup', join(root, 'killed.tar'), '--force'], fromLive)).code).toBe(0);

    // The stopped server's directory: the command takes the snapshot itself, with every acknowledged write.
    original.proc.kill('SIGTERM');
    expect((await original.exited).code).toBe(0);
    const cold = await cli(['backup', join(root, 'stopped.tar')], live);
    expect(cold.output).toMatch(/\(server stopped\)/);
    expect(cold.code).toBe(0);
    const fromStopped = dirs('from-stopped');
    expect((await cli(['restore', join(root, 'stopped.tar')], fromStopped)).code).toBe(0);
    const third = await start(fromStopped);
    await expectRestored(third, await login(third), writes.notes, writes.uploads);
    await third.stop();
  }, 400_000);
});
