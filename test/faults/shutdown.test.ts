/** Graceful shutdown, for real: SIGTERM to a listening server process while requests are in flight. It stops
 * accepting at once (a new connection is refused), lets the in-flight requests finish with complete bodies
 * (a slow handler, a body still being uploaded), closes idle keep-alive connections, closes the pool and the
 * Redis client, and exits 0; past SHUTDOWN_TIMEOUT a request still running is cut (a reset, never a short body)
 * and the process still exits. */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { call } from '../split/harness.ts';
import { PG_SKIP, PG_URL, REDIS_URL, sleep, spawnServer, withPg, type FaultServer } from './harness.ts';

let database: TestDatabase;
const servers: FaultServer[] = [];
/** Both servers start together (a start costs seconds on a loaded machine); each test ends one. */
let drained: FaultServer;
let deadlined: FaultServer;

const env = (extra: Record<string, string> = {}) => ({
  EXTENSIONS_PATH: 'test/faults/extensions',
  ...(REDIS_URL ? { REDIS_URL, REDIS_NAMESPACE: `faults-shutdown-${randomBytes(4).toString('hex')}` } : {}),
  ...extra,
});

/** A POST whose JSON body is sent in `parts` pieces, `gapMs` apart. */
function slowPost(base: string, path: string, body: unknown, parts: number, gapMs: number): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + path, {
      method: 'POST', agent: false,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': payload.length },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const size = Math.ceil(payload.length / parts);
    let i = 0;
    const next = () => {
      if (i * size >= payload.length) { req.end(); return; }
      req.write(payload.subarray(i * size, (i + 1) * size));
      i++;
      setTimeout(next, gapMs);
    };
    next();
  });
}

/** An HTTP/1.1 keep-alive connection that has made one request and now sits idle; resolves when it is open. */
async function idleKeepAlive(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write('GET /server/ping HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  return { socket, closed };
}

/** What a new connection meets: refused, reset before any answer, or a complete answer (its status line). Never a
 * partial answer: a response whose body is shorter than its content-length is reported as such. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(text ? `partial: ${text}` : err.code ?? err.message));
    socket.once('connect', () => {
      socket.write('GET /server/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      socket.on('data', (d) => { text += d; });
      socket.once('close', () => {
        if (!text) { resolve('closed before an answer'); return; }
        const [head, body = ''] = text.split('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? -1);
        resolve(Buffer.byteLength(body) === length ? head.split('\r\n')[0] : `partial: ${text}`);
      });
    });
  });
}

describe.skipIf(!PG_URL)(`graceful shutdown${PG_SKIP}`, () => {
  beforeAll(async () => {
    database = await cloneTestDatabase();
    await withPg(database.url!, async (c) => {
      await c.query('create table notes (id serial primary key, title text)');
      await c.query("insert into svc_collections (collection, accountability) values ('notes', 'all')");
    });
    [drained, deadlined] = await Promise.all([
      // Named, so that its backends can be told apart from the other server's.
      spawnServer({ databaseUrl: `${database.url!}?application_name=faults-drained`, env: env({ SHUTDOWN_TIMEOUT: '8s' }) }),
      spawnServer({ databaseUrl: database.url!, env: env({ SHUTDOWN_TIMEOUT: '700ms' }) }),
    ]);
    servers.push(drained, deadlined);
  }, 180_000);

  afterAll(async () => {
    for (const s of servers) await s.stop();
    await database?.drop();
  });

  it('SIGTERM: refuses new connections, finishes in-flight requests with full bodies, closes idle ones, exits 0', async () => {
    const server = drained;
    const idle = await idleKeepAlive(server.port);

    const bytes = 300_000;
    const slow = call(server.url, 'GET', `/sleepy?ms=1500&bytes=${bytes}`, { timeoutMs: 15_000 });
    const upload = slowPost(server.url, '/items/notes', { title: `slow body ${'y'.repeat(2000)}` }, 8, 150);
    await sleep(400);
    const signalledAt = Date.now();
    server.proc.kill('SIGTERM');
    // The drain has begun once the process says so (closing the listening socket is the first thing it does).
    while (!server.output().includes('draining')) await sleep(20);

    // The listening socket is closed: a new connection is refused (or, if the kernel had already queued it, reset
    // before any answer, or answered with a complete 503); never a partial answer.
    expect(['ECONNREFUSED', 'ECONNRESET', 'closed before an answer', 'HTTP/1.1 503 Service Unavailable']).toContain(await connectOutcome(server.port));
    // The idle keep-alive connection is closed by the server rather than left to be reused.
    await Promise.race([idle.closed, sleep(2000).then(() => { throw new Error('idle keep-alive connection left open'); })]);

    const [answer, posted] = await Promise.all([slow, upload]);
    expect(answer.status).toBe(200);
    expect(answer.body.data.filler.length).toBe(bytes);
    expect(answer.headers.connection).toBe('close');
    expect(posted.status, posted.text).toBe(200);
    const id = JSON.parse(posted.text).data;

    const exit = await server.exited;
    expect(exit, server.output()).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    expect(server.output()).toContain('shutdown complete');
    expect(server.output()).not.toContain('were cut');
    // The write acknowledged during the drain is durable, with its audit rows.
    await withPg(database.url!, async (c) => {
      expect((await c.query('select title from notes where id = $1', [id])).rows[0].title).toMatch(/^slow body/);
      const audit = await c.query(`select 1 from svc_activity a join svc_revisions r on r.activity = a.id
        where a.collection = 'notes' and a.item = $1 and a.action = 'create'`, [String(id)]);
      expect(audit.rowCount).toBe(1);
      // The pool was closed on the way out: no backend of that server is left behind.
      const left = await c.query("select count(*)::int as n from pg_stat_activity where application_name = 'faults-drained'");
      expect(left.rows[0].n).toBe(0);
    });
  }, 60_000);

  it('cuts a request still running at SHUTDOWN_TIMEOUT (a reset, not a short body) and still exits 0', async () => {
    const server = deadlined;
    const stuck = call(server.url, 'GET', '/sleepy?ms=20000&bytes=10', { timeoutMs: 15_000 }).then(
      (r) => `answered ${r.status}`, (err: NodeJS.ErrnoException) => err.code ?? err.message);
    await sleep(300);
    const signalledAt = Date.now();
    server.proc.kill('SIGTERM');
    const exit = await server.exited;
    expect(exit, server.output()).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(5000);
    expect(server.output()).toContain('1 request(s) were cut');
    expect(await stuck).toMatch(/ECONNRESET|socket hang up/);
  }, 60_000);
});
