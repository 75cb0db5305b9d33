/** The split topology as native processes: `node --import tsx container/main.ts` once with SVC_MODE=functions and
 * once with SVC_MODE=container, on one private Postgres database (cloned from the template), one Redis namespace,
 * one queue of the SQS test server, an s3rver bucket and an smtp-server; in front of them a small node:http router
 * that routes as infra/router.ts (CloudFront) and infra/Caddyfile do. Requests use a fresh connection each
 * (agent: false), upstream and downstream: pooled sockets would outlive a killed process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
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
  const multipart = (contentType ?? '').toLowerCase().startsWith('multipart/form-data');
  if (multipart && method === 'POST' && (path === '/files' || path === '/files/')) return 'container';
  if (multipart && method === 'PATCH' && /^\/files\/[^/]+$/.test(path)) return 'container';
  return 'functions';
}

export interface Routed { method: string; path: string; half: Half; status: number }

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

/** The router: streams the request to the chosen half and the answer back; an unreachable half is a 502 in the
 * error envelope, a half that does not answer within 30 s a 504. */
function startRouter(upstreams: Record<Half, () => string>, log: Routed[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const half = routeOf(method, url, req.headers['content-type']);
    const entry: Routed = { method, path: url, half, status: 0 };
    log.push(entry);
    const target = new URL(url, upstreams[half]());
    const forwarded = req.headers['x-forwarded-for'];
    const headers = { ...req.headers, 'x-forwarded-for': [forwarded, req.socket.remoteAddress].filter(Boolean).join(', ') };
    const fail = (status: number, code: string, message: string) => {
      entry.status = status;
      if (res.headersSent) { res.destroy(); return; }
      const text = JSON.stringify({ errors: [{ message, extensions: { code } }] });
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const upstream = httpRequest(target, { method, headers, agent: false }, (up) => {
      entry.status = up.statusCode ?? 0;
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
      up.on('error', () => res.destroy());
    });
    upstream.setTimeout(30_000, () => upstream.destroy(Object.assign(new Error('upstream timeout'), { code: 'ETIMEDOUT' })));
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      req.unpipe(upstream);
      if (err.code === 'ETIMEDOUT') fail(504, 'SERVICE_UNAVAILABLE', `The ${half} half did not answer in time.`);
      else fail(502, 'SERVICE_UNAVAILABLE', `The ${half} half is unreachable.`);
    });
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  }));
}

export interface Split {
  /** The router: the public entry. */
  url: string;
  /** Every request the router saw, with the half it went to. */
  routed: Routed[];
  functions: SplitProcess;
  container: SplitProcess;
  database: TestDatabase & { url: string };
  redisNamespace: string;
  queueUrl: string;
  sqs: SqsServer;
  s3: TestS3;
  smtp: TestSmtp;
  /** The environment both processes share (without PORT and SVC_MODE). */
  env: Record<string, string>;
  /** `call` through the router. */
  req(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  /** SIGKILL the container; resolves once it has exited. */
  killContainer(): Promise<void>;
  /** Starts a new container process; resolves once it listens (the router sends container routes there). */
  restartContainer(): Promise<void>;
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
  /** Extra environment for both halves (rate limits, notify intervals ...). */
  env?: Record<string, string>;
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

    const [functionsPort, containerPort] = [await freePort(), await freePort()];
    const started = await Promise.allSettled([startProcess('functions', functionsPort, env), startProcess('container', containerPort, env)]);
    const procs = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    for (const p of procs) cleanups.push(() => stopProcess(p, 'SIGTERM'));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const functions = procs.find((p) => p.half === 'functions')!;
    let container = procs.find((p) => p.half === 'container')!;

    const routed: Routed[] = [];
    const router = await startRouter({ functions: () => functions.url, container: () => container.url }, routed);
    cleanups.push(() => new Promise<void>((resolve) => { router.server.closeAllConnections(); router.server.close(() => resolve()); }));

    const split: Split = {
      url: router.url, routed, functions, container, database, redisNamespace, queueUrl, sqs, s3, smtp, env,
      req: (method, path, o) => call(router.url, method, path, o),
      async killContainer() {
        await stopProcess(split.container, 'SIGKILL');
      },
      async restartContainer() {
        // On a new port, as ECS replaces a task behind the load balancer: the router follows it.
        container = await startProcess('container', await freePort(), env);
        split.container = container;
        cleanups.push(() => stopProcess(container, 'SIGTERM'));
      },
      close: cleanup,
    };
    return split;
  } catch (err) {
    await cleanup();
    throw err;
  }
}
