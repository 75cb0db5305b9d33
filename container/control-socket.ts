/** The control socket of a server on the embedded engine: a Unix socket at `${DATA_DIR}/control.sock`, mode 0600, so
 * only the account that owns the data (or root) can reach it; nothing listens on the network. PGlite lives inside
 * the server process and no second process may open its data directory, so a backup of a running server is taken
 * by the server itself, asked through this socket (`npm run backup`, ./backup-cli.ts).
 *
 * Protocol: the client sends one JSON line, `{"command":"backup"}`. The server answers one JSON line, either
 * `{"ok":false,"error":"..."}` or `{"ok":true,"size":N,"manifest":{...}}` followed by exactly N bytes of the archive
 * (core/backup/create.ts), then closes. The client keeps the file only when all N bytes arrived. */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { chmod, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../core/config.ts';
import type { Database } from '../core/db/database.ts';
import type { BackupManifest } from '../core/backup/manifest.ts';

export const CONTROL_SOCKET = 'control.sock';
/** Unix socket paths are limited to ~107 bytes (sun_path). */
const MAX_SOCKET_PATH = 100;
const MAX_REQUEST_LINE = 1024;
const REQUEST_TIMEOUT_MS = 10_000;

/** The path to bind or connect to: absolute, or relative to the working directory when that is shorter (a deep
 * DATA_DIR can exceed the socket path limit). */
function socketPath(dataDir: string): string {
  const absolute = join(resolve(dataDir), CONTROL_SOCKET);
  const near = relative(process.cwd(), absolute);
  return near.length < absolute.length ? near : absolute;
}

/** Whether a server answers on the control socket of `dataDir` (a socket file left by a killed server does not). */
export function serverAnswers(dataDir: string): Promise<boolean> {
  const path = socketPath(dataDir);
  if (!existsSync(path)) return Promise.resolve(false);
  return new Promise((done) => {
    const socket = createConnection(path);
    socket.once('connect', () => { socket.destroy(); done(true); });
    socket.once('error', () => done(false));
  });
}

interface ControlHost {
  config: Config;
  database: Database;
}

/** Reads the request line (bounded in size and time). */
function readLine(socket: Socket): Promise<string> {
  return new Promise((done, fail) => {
    let buffered = '';
    const timer = setTimeout(() => fail(new Error('no request in time')), REQUEST_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end >= 0) { clearTimeout(timer); socket.pause(); socket.removeAllListeners('data'); done(buffered.slice(0, end)); }
      else if (buffered.length > MAX_REQUEST_LINE) { clearTimeout(timer); fail(new Error('request too long')); }
    });
    socket.once('end', () => { clearTimeout(timer); fail(new Error('no request')); });
    socket.once('error', (err) => { clearTimeout(timer); fail(err); });
  });
}

/** Serves the control socket; resolves with a function that stops it. A server
 * on Postgres has no socket: its backups are pg_dump's (docs/backups.md). */
export async function startControlSocket(host: ControlHost, log: (message: string) => void): Promise<() => Promise<void>> {
  const none = async () => {};
  if (host.database.kind !== 'pglite') return none;
  const path = socketPath(host.config.dataDir);
  if (path.length > MAX_SOCKET_PATH) {
    log(`control socket not started: ${path} is too long for a Unix socket; backups need the server stopped (docs/backups.md)`);
    return none;
  }
  if (existsSync(path)) {
    if (await serverAnswers(host.config.dataDir)) {
      log(`control socket not started: another server answers on ${path}`);
      return none;
    }
    await unlink(path).catch(() => {});
  }
  await removeLeftovers(host.config.dataDir);
  let busy = false;
  const server: Server = createServer((socket) => {
    socket.on('error', () => {});
    void (async () => {
      try {
        const request = JSON.parse(await readLine(socket)) as { command?: unknown };
        if (request.command !== 'backup') throw new Error(`unknown command ${JSON.stringify(request.command)}`);
        if (busy) throw new Error('a backup is already being taken');
        busy = true;
        try {
          await sendBackup(host, socket);
        } finally {
          busy = false;
        }
      } catch (err) {
        if (!socket.destroyed) socket.end(`${JSON.stringify({ ok: false, error: (err as Error).message })}\n`);
      }
    })();
  });
  try {
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      // Created owner-only from the start: Node binds inside listen(), synchronously, so the umask is this process'
      // only for that call (nothing else can create a file meanwhile). Then chmod for certainty.
      const umask = process.umask(0o177);
      try {
        server.listen(path, () => { server.off('error', fail); done(); });
      } finally {
        process.umask(umask);
      }
    });
    await chmod(path, 0o600);
  } catch (err) {
    // The API serves on without it (a read-only DATA_DIR, a platform without Unix sockets).
    server.close();
    log(`control socket not started: ${(err as Error).message}; backups need the server stopped (docs/backups.md)`);
    return none;
  }
  // Stops accepting (Node removes the socket file); a backup being sent finishes unless the process exits first.
  return async () => { server.close(); };
}

/** Staging folders and archives of backups a killed server did not finish (only one server runs on a DATA_DIR, and
 * it has not started any backup yet). */
async function removeLeftovers(dataDir: string): Promise<void> {
  const names = await readdir(dataDir).catch(() => [] as string[]);
  await Promise.all(names.filter((name) => name.startsWith('.backup-')).map((name) => rm(join(dataDir, name), { recursive: true, force: true })));
}

async function sendBackup(host: ControlHost, socket: Socket): Promise<void> {
  const file = join(host.config.dataDir, `.backup-${randomBytes(6).toString('hex')}.tar`);
  try {
    // The archive code (tar) loads with the first backup, not with the process.
    const { writeBackup } = await import('../core/backup/create.ts');
    const manifest = await writeBackup({
      database: host.database, dataDir: host.config.dataDir, uploadsRoot: host.config.files.storageLocalRoot, live: true,
    }, file);
    const { size } = await stat(file);
    socket.write(`${JSON.stringify({ ok: true, size, manifest })}\n`);
    await pipeline(createReadStream(file), socket);
  } finally {
    await rm(file, { force: true });
  }
}

/** Asks the server running on `dataDir` for a backup and writes it to `file` (complete or not at all). Resolves
 * with the manifest, or null when no server answers there. */
export async function requestBackup(dataDir: string, file: string): Promise<BackupManifest | null> {
  const path = socketPath(dataDir);
  if (!existsSync(path)) return null;
  const socket = createConnection(path);
  try {
    await new Promise<void>((done, fail) => { socket.once('connect', done); socket.once('error', fail); });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ENOENT') return null;
    throw err;
  }
  socket.write(`${JSON.stringify({ command: 'backup' })}\n`);
  const partial = join(dirname(resolve(file)), `.${randomBytes(6).toString('hex')}.backup.part`);
  try {
    const { header, rest } = await readHeader(socket);
    if (!header.ok) throw new Error(`the server could not take the backup: ${header.error ?? 'no reason given'}`);
    const out = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
    let received = rest.length;
    out.write(rest);
    socket.on('data', (chunk: Buffer) => { received += chunk.length; });
    await pipeline(socket, out);
    if (received !== header.size) throw new Error(`the backup was cut short (${received} of ${header.size} bytes)`);
    await rename(partial, file);
    return header.manifest!;
  } finally {
    socket.destroy();
    await rm(partial, { force: true });
  }
}

interface BackupHeader {
  ok: boolean;
  error?: string;
  size?: number;
  manifest?: BackupManifest;
}

/** The answer's JSON line, and the bytes after it that arrived with it. */
function readHeader(socket: Socket): Promise<{ header: BackupHeader; rest: Buffer }> {
  return new Promise((done, fail) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf(0x0a);
      if (end < 0) {
        if (buffered.length > 64 * 1024) { cleanup(); fail(new Error('unexpected answer from the server')); }
        return;
      }
      cleanup();
      socket.pause();
      try {
        done({ header: JSON.parse(buffered.subarray(0, end).toString('utf8')) as BackupHeader, rest: buffered.subarray(end + 1) });
      } catch {
        fail(new Error('unexpected answer from the server'));
      }
    };
    const onEnd = () => { cleanup(); fail(new Error('the server closed the connection without an answer')); };
    const onError = (err: Error) => { cleanup(); fail(err); };
    const cleanup = () => { socket.off('data', onData); socket.off('end', onEnd); socket.off('error', onError); };
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
  });
}
