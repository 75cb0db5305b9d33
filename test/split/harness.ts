/** The split topology as native processes: `node --import tsx container/main.ts` once with SVC_MODE=functions and
 * one or more times (`containers`) with SVC_MODE=container, on one private Postgres database (cloned from the
 * template), one Redis namespace, one queue of the SQS test server, an s3rver bucket and an smtp-server; in front of
 * them a small node:http router that routes as infra/router.ts (CloudFront) and infra/Caddyfile do, spreads container
 * routes over the running containers as the ALB does, proxies WebSocket upgrades and streams answers (SSE) as they
 * come. Requests use a fresh connection each (agent: false), upstream and downstream: pooled sockets would outlive a
 * killed process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { REALTIME_PATHS, REALTIME_READ_TIMEOUT } from '../../infra/router.ts';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startSqs, type SqsServer } from '../helpers/sqs-server.ts';
import { ADMIN_TOKEN, testEnv } from '../helpers/template.ts';

/** The third pass of .ci/run sets both; the first two deliberately lack one of them. */
export const SPLIT_ENABLED = Boolean(process.env.TEST_DATABASE_URL && process.env.REDIS_URL);
export const SPLIT_SKIP_REASON = 'the split topology needs a Postgres server and Redis: set TEST_DATABASE_URL and REDIS_URL'
  + ' (the third pass of .ci/run does)';

export type Half = 'functions' | 'container';

/** The routing rule of infra/router.ts and infra/Caddyfile. */
export function routeOf(method: string, url: string, contentType: string | undefined): Half {
  const path = url.split('?')[0];
  if (path.startsWith('/assets/') || path === '/tus' || path.startsWith('/tus/')
    || path.startsWith('/utils/import/') || path.startsWith('/utils/export/')) return 'container';
  // Realtime (WebSocket and SSE): the paths themselves and below them, as CloudFront's prefix routes.
  if (REALTIME_PATHS.some((p) => path === p || path.startsWith(`${p}/`))) return 'container';
  const multipart = (contentType ?? '').toLowerCase().startsWith('multipart/form-data');
  if (multipart && method === 'POST' && (path === '/files' || path === '/files/')) return 'container';
  if (multipart && method === 'PATCH' && /^\/files\/[^/]+$/.test(path)) return 'container';
  return 'functions';
}

export interface Routed {
  method: string;
  path: string;
  half: Half;
  /** The upstream's status (101 for an accepted WebSocket upgrade); 502/504 when the router answered itself. */
  status: number;
  /** Which of `Split.containers` served it (container routes only). */
  container?: number;
  /** A WebSocket (or other) upgrade request. */
  upgrade?: boolean;
}

export interface SplitProcess {
  half: Half;
  port: number;
  url: string;
  proc: ChildProcess;
  output: string;
}

export interface CallResult { status: number; headers: IncomingMessage['headers']; text: string; body: any; bytes: Buffer }

export interface CallOptions {
  body?: unknown;
  /** A bearer token; the admin's by default, null for none. */
  token?: string | null;
  headers?: Record<string, string>;
  /** Fails the call (instead of hanging the test) after this many ms. */
  timeoutMs?: number;
}

/** One request over a fresh connection. Objects go as JSON; strings and Buffers as they are. */
export function call(base: string, method: string, path: string, opts: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? ADMIN_TOKEN : opts.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: Buffer | undefined;
  if (opts.body !== undefined) {
    if (Buffer.isBuffer(opts.body)) payload = opts.body;
    else if (typeof opts.body === 'string') payload = Buffer.from(opts.body);
    else {
      payload = Buffer.from(JSON.stringify(opts.body));
      headers['content-type'] ??= 'application/json';
    }
    headers['content-length'] = String(payload.length);
  }
  const timeoutMs = opts.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + path, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let body: any = text;
        if ((res.headers['content-type'] ?? '').includes('json') && text) {
          try { body = JSON.parse(text); } catch { /* keep the text */ }
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body, bytes });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (err) => { clearTimeout(timer); reject(err); });
    req.end(payload);
  });
}

/** A multipart/form-data body with plain fields and one file part. */
export function multipart(fields: Record<string, string>, file: { name: string; type: string; data: Buffer }): { body: Buffer; contentType: string } {
  const boundary = `----split${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`));
  parts.push(file.data, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Polls `check` until it returns something truthy. */
export async function until<T>(check: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Where the router sends a request: the functions' URL, or one container's URL and its index. */
export interface Upstreams {
  functions(): string;
  container(): { url: string; index: number };
}

/** The ALB's choice among the container tasks: round robin over the running ones (a killed task has failed its
 * health check and left the target group); with none running, the first (the request then fails with a 502, as
 * CloudFront answers when the origin has no healthy target). */
export function roundRobin(containers: () => SplitProcess[]): () => { url: string; index: number } {
  let cursor = 0;
  return () => {
    const all = containers();
    const running = all.map((p, index) => ({ p, index })).filter(({ p }) => p.proc.exitCode === null && p.proc.signalCode === null);
    if (running.length === 0) return { url: all[0].url, index: 0 };
    const chosen = running[cursor++ % running.length];
    return { url: chosen.p.url, index: chosen.index };
  };
}

/** Before the answer starts: a half that does not answer in time is a 504. */
const ANSWER_TIMEOUT_MS = 30_000;
/** Once it has started: the longest gap between two packets of a streamed answer (an SSE stream between heartbeats),
 * CloudFront's origin read timeout on the realtime routes (infra/router.ts). */
const READ_TIMEOUT_MS = Number(/^(\d+) seconds$/.exec(REALTIME_READ_TIMEOUT)![1]) * 1000;

export interface Router {
  server: Server;
  url: string;
  /** Closes every connection, upgraded ones (open WebSockets) included, and stops listening. */
  close(): Promise<void>;
}

/** The request's headers as the upstream gets them: X-Forwarded-For extended with the client's address. */
function forwardHeaders(req: IncomingMessage): IncomingHttpHeaders {
  const forwarded = req.headers['x-forwarded-for'];
  return { ...req.headers, 'x-forwarded-for': [forwarded, req.socket.remoteAddress].filter(Boolean).join(', ') };
}

/** An HTTP/1.1 response head written on a raw socket (the upgrade path has no ServerResponse). */
function responseHead(status: number, message: string, rawHeaders: string[]): string {
  const lines = [`HTTP/1.1 ${status} ${message}`];
  for (let i = 0; i < rawHeaders.length; i += 2) lines.push(`${rawHeaders[i]}: ${rawHeaders[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A complete error answer in the error envelope. */
function errorBody(code: string, message: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] });
}

/** The router: streams the request to the chosen half and the answer back as it comes (an SSE stream event by
 * event); an unreachable half is a 502 in the error envelope, a half that does not answer within 30 s a 504. A
 * WebSocket upgrade is passed to the chosen half; once it answers 101 the router copies bytes both ways until either
 * side closes (a killed container closes its clients' sockets, as a task that dies behind the ALB does); a refused
 * upgrade (401, 404 ...) comes back as that answer. */
export function startRouter(upstreams: Upstreams, log: Routed[]): Promise<Router> {
  const pick = (half: Half): { url: string; index?: number } => (half === 'functions' ? { url: upstreams.functions() } : upstreams.container());
  /** Sockets taken over from the HTTP server by an upgrade: server.closeAllConnections() does not see them. */
  const upgraded = new Set<Duplex>();
  const track = (socket: Duplex) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const half = routeOf(method, url, req.headers['content-type']);
    const chosen = pick(half);
    const entry: Routed = { method, path: url, half, status: 0, ...(chosen.index !== undefined ? { container: chosen.index } : {}) };
    log.push(entry);
    const target = new URL(url, chosen.url);
    const fail = (status: number, code: string, message: string) => {
      entry.status = status;
      if (res.headersSent) { res.destroy(); return; }
      const text = errorBody(code, message);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const upstream = httpRequest(target, { method, headers: forwardHeaders(req), agent: false }, (up) => {
      entry.status = up.statusCode ?? 0;
      // From here on the timeout is the gap between packets, not the wait for the whole answer.
      upstream.setTimeout(READ_TIMEOUT_MS);
      res.writeHead(up.statusCode ?? 502, up.headers as OutgoingHttpHeaders);
      // The head goes out now, not with the first chunk: an SSE client sees its stream open before any event.
      res.flushHeaders();
      up.pipe(res);
      up.on('error', () => res.destroy());
    });
    upstream.setNoDelay(true);
    upstream.setTimeout(ANSWER_TIMEOUT_MS, () => upstream.destroy(Object.assign(new Error('upstream timeout'), { code: 'ETIMEDOUT' })));
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      req.unpipe(upstream);
      if (err.code === 'ETIMEDOUT') fail(504, 'SERVICE_UNAVAILABLE', `The ${half} half did not answer in time.`);
      else fail(502, 'SERVICE_UNAVAILABLE', `The ${half} half is unreachable.`);
    });
    req.on('error', () => upstream.destroy());
    // The client went away before the answer ended (an EventSource closed): so does the upstream request, and the
    // server sees its stream closed.
    res.on('close', () => { if (!res.writableFinished) upstream.destroy(); });
    req.pipe(upstream);
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const half = routeOf(method, url, req.headers['content-type']);
    const chosen = pick(half);
    const entry: Routed = { method, path: url, half, status: 0, upgrade: true, ...(chosen.index !== undefined ? { container: chosen.index } : {}) };
    log.push(entry);
    track(socket);
    const answer = (status: number, message: string, headers: Record<string, string | number>, body: Buffer) => {
      entry.status = status;
      const raw = Object.entries(headers).flatMap(([k, v]) => [k, String(v)]);
      if (!socket.destroyed) socket.end(Buffer.concat([Buffer.from(responseHead(status, message, [...raw, 'content-length', String(body.length), 'connection', 'close'])), body]));
    };
    const upstream = httpRequest(new URL(url, chosen.url), { method, headers: forwardHeaders(req), agent: false });
    upstream.setNoDelay(true);
    upstream.setTimeout(ANSWER_TIMEOUT_MS, () => upstream.destroy(Object.assign(new Error('upstream timeout'), { code: 'ETIMEDOUT' })));
    socket.on('error', () => upstream.destroy());
    socket.once('close', () => upstream.destroy());
    upstream.on('upgrade', (up: IncomingMessage, upSocket: Socket, upHead: Buffer) => {
      entry.status = up.statusCode ?? 101;
      track(upSocket);
      // An open WebSocket has no timeout here: the server's heartbeat and its own silence limit decide.
      upSocket.setTimeout(0);
      upSocket.setNoDelay(true);
      const closeBoth = () => { socket.destroy(); upSocket.destroy(); };
      upSocket.on('error', closeBoth);
      upSocket.once('close', closeBoth);
      socket.on('error', closeBoth);
      socket.once('close', closeBoth);
      if (socket.destroyed) { closeBoth(); return; }
      socket.write(responseHead(up.statusCode ?? 101, up.statusMessage ?? 'Switching Protocols', up.rawHeaders));
      if (upHead.length) socket.write(upHead);
      if (head.length) upSocket.write(head);
      upSocket.pipe(socket);
      socket.pipe(upSocket);
    });
    // The half answered without upgrading (no such route, no credential ...): that answer, then the socket closes.
    upstream.on('response', (up: IncomingMessage) => {
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('error', () => socket.destroy());
      up.on('end', () => {
        const headers: Record<string, string | number> = {};
        for (let i = 0; i < up.rawHeaders.length; i += 2) {
          const name = up.rawHeaders[i];
          if (!/^(content-length|transfer-encoding|connection|keep-alive)$/i.test(name)) headers[name] = up.rawHeaders[i + 1];
        }
        answer(up.statusCode ?? 502, up.statusMessage ?? '', headers, Buffer.concat(chunks));
      });
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (entry.status !== 0) return;
      const timedOut = err.code === 'ETIMEDOUT';
      const body = Buffer.from(errorBody('SERVICE_UNAVAILABLE', timedOut ? `The ${half} half did not answer in time.` : `The ${half} half is unreachable.`));
      answer(timedOut ? 504 : 502, timedOut ? 'Gateway Timeout' : 'Bad Gateway', { 'content-type': 'application/json' }, body);
    });
    upstream.end();
  });

  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({
      server,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((done) => {
        for (const socket of upgraded) socket.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
    });
  }));
}

export interface Split {
  /** The router: the public entry. */
  url: string;
  /** Every request the router saw, with the half it went to. */
  routed: Routed[];
  functions: SplitProcess;
  /** The first container: `containers[0]` (replaced by restartContainer(0)). */
  readonly container: SplitProcess;
  /** Every container process, by index (SplitOptions.containers); each one's `url` reaches it directly, bypassing
   * the router (to connect a subscriber to one particular container). A restart replaces the entry. */
  containers: SplitProcess[];
  database: TestDatabase & { url: string };
  redisNamespace: string;
  queueUrl: string;
  sqs: SqsServer;
  s3: TestS3;
  smtp: TestSmtp;
  /** The environment every process shares (without PORT and SVC_MODE). */
  env: Record<string, string>;
  /** `call` through the router. */
  req(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  /** SIGKILL container `index` (default 0); resolves once it has exited. The router stops sending it requests; its
   * WebSocket clients see their sockets closed. */
  killContainer(index?: number): Promise<void>;
  /** Replaces container `index` (default 0) with a new process on a new port, as ECS replaces a task behind the
   * load balancer (a still running one is stopped with SIGTERM first); resolves once the new one listens. */
  restartContainer(index?: number): Promise<void>;
  close(): Promise<void>;
}

const STARTUP_MS = 90_000;

async function startProcess(half: Half, port: number, env: Record<string, string>): Promise<SplitProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'container/main.ts'], {
    env: { ...process.env, ...env, SVC_MODE: half, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p: SplitProcess = { half, port, url: `http://127.0.0.1:${port}`, proc, output: '' };
  proc.stdout!.on('data', (d) => { p.output += d; });
  proc.stderr!.on('data', (d) => { p.output += d; });
  try {
    await until(() => {
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${half} exited during start-up:\n${p.output}`);
      return p.output.includes('listening on');
    }, STARTUP_MS, `the ${half} process to listen:\n${p.output}`);
  } catch (err) {
    await stopProcess(p, 'SIGKILL');
    throw err;
  }
  return p;
}

/** Stops one of our own children and waits for its exit (SIGTERM is given 10 s before SIGKILL). */
async function stopProcess(p: SplitProcess, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  const proc = p.proc;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill(signal);
  const timer = signal === 'SIGTERM' ? setTimeout(() => proc.kill('SIGKILL'), 10_000) : null;
  await exited;
  if (timer) clearTimeout(timer);
}

/** Deletes every key of our namespace (runs after both processes have stopped). */
async function dropRedisNamespace(url: string, namespace: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `svc:${namespace}:*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export interface SplitOptions {
  /** Extra environment for every process (rate limits, notify intervals ...). */
  env?: Record<string, string>;
  /** How many container processes (default 1): several tasks behind the ALB, on the same database, Redis namespace
   * and queue (realtime fan-out across containers). */
  containers?: number;
  /** Run before the processes start, with the database URL (tables the extensions need ...). */
  prepare?(databaseUrl: string): Promise<void>;
}

export async function startSplit(opts: SplitOptions = {}): Promise<Split> {
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  };
  try {
    const db = await cloneTestDatabase();
    cleanups.push(() => db.drop());
    const database = { ...db, url: db.url! };
    const sqs = await startSqs();
    cleanups.push(() => sqs.close());
    // A short visibility timeout: a message handed to a container just before it was killed comes back soon (the
    // extension host drops the duplicates SQS may deliver, by event id).
    const queueUrl = await sqs.createQueue(`split-${randomBytes(4).toString('hex')}`, { VisibilityTimeout: '10' });
    const s3 = await startS3();
    cleanups.push(() => s3.close());
    const smtp = await startSmtp();
    cleanups.push(() => smtp.close());
    const localRoot = mkdtempSync(join(tmpdir(), 'svc-split-'));
    cleanups.push(async () => rmSync(localRoot, { recursive: true, force: true }));
    await opts.prepare?.(database.url);

    const redisNamespace = `split-topology-${randomBytes(6).toString('hex')}`;
    cleanups.push(() => dropRedisNamespace(process.env.REDIS_URL!, redisNamespace));
    const env: Record<string, string> = {
      ...testEnv(),
      DATABASE_URL: database.url,
      REDIS_URL: process.env.REDIS_URL!,
      REDIS_NAMESPACE: redisNamespace,
      SQS_QUEUE_URL: queueUrl,
      SQS_ENDPOINT: sqs.endpoint,
      AWS_REGION: 'us-east-1',
      STORAGE_LOCAL_ROOT: localRoot,
      EXTENSIONS_PATH: 'test/extensions',
      LOG_LEVEL: 'error',
      PRESSURE_LIMITER_ENABLED: 'false',
      ...smtp.env,
      ...opts.env,
    };

    const count = opts.containers ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new Error(`containers: a positive integer, not ${count}`);
    const ports = [];
    for (let i = 0; i <= count; i++) ports.push(await freePort());
    const started = await Promise.allSettled([
      startProcess('functions', ports[0], env),
      ...ports.slice(1).map((port) => startProcess('container', port, env)),
    ]);
    const procs = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    for (const p of procs) cleanups.push(() => stopProcess(p, 'SIGTERM'));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const functions = procs[0];
    const containers = procs.slice(1);

    const routed: Routed[] = [];
    const router = await startRouter({ functions: () => functions.url, container: roundRobin(() => containers) }, routed);
    cleanups.push(() => router.close());

    const at = (index: number) => {
      if (!Number.isInteger(index) || index < 0 || index >= containers.length) throw new Error(`no container ${index} (there are ${containers.length})`);
      return index;
    };
    const split: Split = {
      url: router.url, routed, functions, containers, database, redisNamespace, queueUrl, sqs, s3, smtp, env,
      get container() { return containers[0]; },
      req: (method, path, o) => call(router.url, method, path, o),
      async killContainer(index = 0) {
        await stopProcess(containers[at(index)], 'SIGKILL');
      },
      async restartContainer(index = 0) {
        await stopProcess(containers[at(index)], 'SIGTERM');
        // On a new port, as ECS replaces a task behind the load balancer: the router follows it.
        const replacement = await startProcess('container', await freePort(), env);
        containers[index] = replacement;
        cleanups.push(() => stopProcess(replacement, 'SIGTERM'));
      },
      close: cleanup,
    };
    return split;
  } catch (err) {
    await cleanup();
    throw err;
  }
}
