/** Slow and idle clients, for real, against a server process with short HTTP_* timeouts: a body sent one byte a
 * second (cut at HTTP_REQUEST_TIMEOUT, nothing written), headers sent one byte a second (cut at
 * HTTP_HEADERS_TIMEOUT), a client that never reads a large response (cut at HTTP_SOCKET_TIMEOUT), and thousands
 * of idle keep-alive connections (closed at HTTP_KEEP_ALIVE_TIMEOUT). Meanwhile other requests are answered
 * normally. The idle-socket count is 10k, or less where the open-file limit (`ulimit -n`) of this process does
 * not allow it. */
import { execSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { call } from '../split/harness.ts';
import { type FaultServer, notesDatabase, PG_SKIP, PG_URL, sleep, spawnServer, withPg } from './harness.ts';

const TIMEOUTS = { HTTP_HEADERS_TIMEOUT: '2s', HTTP_REQUEST_TIMEOUT: '3s', HTTP_KEEP_ALIVE_TIMEOUT: '1s', HTTP_SOCKET_TIMEOUT: '2s' };
const fdLimit = Number(execSync('ulimit -n', { shell: '/bin/sh' }).toString().trim()) || 1024;
/** 10k idle sockets, or what the open-file limit leaves room for (a margin for the test runner's own files). */
const IDLE = Math.min(10_000, Math.max(100, fdLimit - 1000));

let database: TestDatabase;
let server: FaultServer;

/** Probes GET /items/notes/1 every 100 ms until stopped; returns the worst status and latency seen. */
function probe(): { stop: () => Promise<{ count: number; bad: string[]; maxMs: number }> } {
  let running = true;
  const bad: string[] = [];
  let maxMs = 0;
  let count = 0;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const res = await call(server.url, 'GET', '/items/notes/1', { timeoutMs: 5000 });
        if (res.status !== 200) bad.push(`${res.status} ${res.text}`);
      } catch (err) {
        bad.push((err as Error).message);
      }
      maxMs = Math.max(maxMs, Date.now() - started);
      count++;
      await sleep(100);
    }
  })();
  return { async stop() { running = false; await loop; return { count, bad, maxMs }; } };
}

function open(): Promise<{ socket: Socket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now())));
    socket.once('error', (err) => reject(err));
    socket.once('connect', () => { socket.removeAllListeners('error'); socket.on('error', () => {}); resolve({ socket, closed }); });
  });
}

describe.skipIf(!PG_URL)(`slow and idle clients${PG_SKIP}`, () => {
  beforeAll(async () => {
    database = await notesDatabase();
    server = await spawnServer({ databaseUrl: database.url!, env: { ...TIMEOUTS, EXTENSIONS_PATH: 'test/faults/extensions' } });
  }, 150_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('cuts a body sent one byte a second at HTTP_REQUEST_TIMEOUT, and headers sent so at HTTP_HEADERS_TIMEOUT', async () => {
    const prober = probe();
    const body = JSON.stringify({ title: 'trickled' });
    const bodyClient = await open();
    bodyClient.socket.write(`POST /items/notes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n`
      + `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    const headerClient = await open();
    let answer = '';
    bodyClient.socket.on('data', (d) => { answer += d; });
    const started = Date.now();
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < body.length) bodyClient.socket.write(body[sent++]);
      headerClient.socket.write('GET /server/ping HTTP/1.1\r\nHost: x\r\n'[Math.min(sent, 20)]);
    }, 1000);
    try {
      const [bodyClosed, headersClosed] = await Promise.all([bodyClient.closed, headerClient.closed]);
      // Node checks both timeouts every quarter of HTTP_HEADERS_TIMEOUT: allow that much (and a loaded machine) on top.
      expect(headersClosed - started).toBeGreaterThanOrEqual(1500);
      expect(headersClosed - started).toBeLessThan(6000);
      expect(bodyClosed - started).toBeGreaterThanOrEqual(2500);
      expect(bodyClosed - started).toBeLessThan(7000);
      expect(sent).toBeLessThan(body.length);
      // Either a 408 or a bare close: never an answer from the app for a body it never got.
      expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    } finally {
      clearInterval(trickle);
    }
    const seen = await prober.stop();
    expect(seen.bad).toEqual([]);
    expect(seen.count).toBeGreaterThan(0);
    // Generous: a loaded CI machine alone makes single requests take a second or two.
    expect(seen.maxMs).toBeLessThan(4000);
    await withPg(database.url!, async (c) => {
      expect((await c.query("select count(*)::int as n from notes where title = 'trickled'")).rows[0].n).toBe(0);
    });
  });

  it('cuts a client that never reads a large response at HTTP_SOCKET_TIMEOUT', async () => {
    const prober = probe();
    // A paused socket reads nothing, so its receive buffer never grows: a few MB stall the response.
    const bytes = 8_000_000;
    const reader = await open();
    reader.socket.pause();
    const started = Date.now();
    reader.socket.write(`GET /sleepy?bytes=${bytes} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`);
    // The response fills the socket buffers and stalls; the server gives up on the connection after 2 s without
    // progress. A paused socket cannot see that, so it looks after a while that covers building the answer too.
    await sleep(6000);
    let received = 0;
    reader.socket.on('data', (d: Buffer) => { received += d.length; });
    reader.socket.resume();
    const closedAt = await Promise.race([reader.closed, sleep(5000).then(() => 0)]);
    expect(closedAt, 'the server closed the stalled connection').toBeGreaterThan(0);
    expect(received).toBeLessThan(bytes);
    const seen = await prober.stop();
    expect(seen.bad).toEqual([]);
    expect(seen.maxMs).toBeLessThan(4000);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('lets a slow handler (silent for longer than HTTP_SOCKET_TIMEOUT) answer in full', async () => {
    const res = await call(server.url, 'GET', '/sleepy?ms=3000&bytes=1000', { timeoutMs: 10_000 });
    expect(res.status).toBe(200);
    expect(res.body.data.filler.length).toBe(1000);
  });

  it(`closes ${IDLE} idle keep-alive connections after HTTP_KEEP_ALIVE_TIMEOUT, serving others meanwhile`, async () => {
    const sockets: Array<{ socket: Socket; closed: Promise<number> }> = [];
    const request = 'GET /server/ping HTTP/1.1\r\nHost: x\r\n\r\n';
    try {
      for (let i = 0; i < IDLE; i += 2000) {
        const batch = await Promise.all(Array.from({ length: Math.min(2000, IDLE - i) }, async () => {
          const s = await open();
          const answered = new Promise<void>((r) => s.socket.once('data', () => r()));
          s.socket.write(request);
          await answered;
          return s;
        }));
        sockets.push(...batch);
      }
      const idleSince = Date.now();
      // Others are served while thousands of connections sit open.
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        expect((await call(server.url, 'GET', '/items/notes/1', { timeoutMs: 5000 })).status).toBe(200);
        expect(Date.now() - started).toBeLessThan(4000);
      }
      const closedAt = await Promise.all(sockets.map((s) => Promise.race([s.closed, sleep(8000).then(() => 0)])));
      const open_ = closedAt.filter((t) => t === 0).length;
      expect(open_, 'idle connections left open').toBe(0);
      expect(Math.max(...closedAt) - idleSince).toBeLessThan(6000);
      expect(server.proc.exitCode, server.output()).toBeNull();
    } finally {
      for (const s of sockets) s.socket.destroy();
    }
  }, 150_000);
});
