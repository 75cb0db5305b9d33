/** A Redis the test may take down: its own redis-server on a free port (append-only file, fsync always, as a
 * managed Redis with persistence; or, asked for, no persistence at all: a restart loses every key), killed with
 * SIGKILL and started again on the same port and data. Never the
 * machine's Redis, which other tests use. Where no redis-server binary exists, a TCP proxy in front of REDIS_URL
 * whose connections are cut and whose port stops listening: the same loss of connection, seen from the service. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../helpers/free-port.ts';

export interface OutageRedis {
  url: string;
  /** What makes the outage: 'redis-server' (own process) or 'proxy' (cut connections to REDIS_URL). */
  kind: 'redis-server' | 'proxy';
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

async function waitForPing(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      client.disconnect();
    }
  }
}

async function ownRedisServer(persistent = true): Promise<OutageRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'faults-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let proc: ChildProcess | null = null;
  const start = async () => {
    proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '',
      ...(persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']), '--daemonize', 'no', '--protected-mode', 'no'], { stdio: 'ignore' });
    await waitForPing(url, 10_000);
  };
  const kill = async () => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url, kind: 'redis-server',
    down: kill,
    up: start,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function cuttingProxy(target: string): Promise<OutageRedis> {
  const port = await freePort();
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const listen = () => new Promise<void>((resolve) => {
    server = createServer((client) => {
      const upstream = connect(Number(targetPort || 6379), hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => { sockets.delete(s); client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const cut = async () => {
    const s = server;
    server = null;
    if (s) await new Promise<void>((resolve) => { s.close(() => resolve()); for (const socket of sockets) socket.destroy(); });
  };
  await listen();
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { url: url.toString(), kind: 'proxy', down: cut, up: listen, close: cut };
}

/** A redis-server of the test's own without persistence (`--save '' --appendonly no`): `down` then `up` is a
 * restart that loses every key. Needs the redis-server binary (see hasRedisServer). */
export function startVolatileRedis(): Promise<OutageRedis> {
  return ownRedisServer(false);
}

/** Own redis-server when installed, else a cutting proxy in front of REDIS_URL. */
export function startOutageRedis(): Promise<OutageRedis> {
  return hasRedisServer ? ownRedisServer() : cuttingProxy(process.env.REDIS_URL!);
}
