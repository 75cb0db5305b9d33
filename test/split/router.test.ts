/** The split harness's router (test/split/harness.ts) against stand-in upstreams: the realtime routes, WebSocket
 * upgrades passed through (and refused or failed ones answered), SSE answers streamed as they come, round robin over
 * the running containers. Runs everywhere (no database). With TEST_DATABASE_URL and REDIS_URL set, startSplit with
 * several containers. */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { call, roundRobin, routeOf, SPLIT_ENABLED, SPLIT_SKIP_REASON, startRouter, startSplit, until, type Half, type Routed, type Router, type Split, type SplitProcess } from './harness.ts';

describe('routeOf (the rule of infra/router.ts and infra/Caddyfile)', () => {
  const mp = 'multipart/form-data; boundary=x';
  const cases: [method: string, url: string, contentType: string | undefined, half: Half][] = [
    ['GET', '/websocket', undefined, 'container'],
    ['GET', '/websocket?access_token=abc', undefined, 'container'],
    ['GET', '/realtime', undefined, 'container'],
    ['GET', '/realtime?collection=articles&query=%7B%22fields%22%3A%5B%22id%22%5D%7D', undefined, 'container'],
    ['GET', '/realtime/', undefined, 'container'],
    ['GET', '/realtime?since=12-0', undefined, 'container'],
    ['GET', '/websockets', undefined, 'functions'],
    ['GET', '/realtimex', undefined, 'functions'],
    ['GET', '/items/realtime', undefined, 'functions'],
    ['GET', '/items/articles?filter=/websocket', undefined, 'functions'],
    // The routes that were there before.
    ['GET', '/assets/abc?width=10', undefined, 'container'],
    ['POST', '/tus', 'application/offset+octet-stream', 'container'],
    ['POST', '/files', mp, 'container'],
    ['POST', '/files', 'application/json', 'functions'],
    ['GET', '/items/articles', undefined, 'functions'],
    ['GET', '/server/health', undefined, 'functions'],
  ];
  it.each(cases)('%s %s (%s) -> %s', (method, url, contentType, half) => {
    expect(routeOf(method, url, contentType)).toBe(half);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Stand-in upstreams

interface Upstream {
  name: string;
  server: Server;
  url: string;
  /** Requests it received (upgrades included), with their headers. */
  seen: { url: string; headers: IncomingMessage['headers'] }[];
  /** Open SSE answers. */
  streams: ServerResponse[];
  /** Its WebSocket connections (server side). */
  sockets: WebSocket[];
  /** Every TCP connection it accepted. */
  connections: Set<Socket>;
}

/** A container stand-in: /websocket upgrades with `?token=ok` (echoes text frames, `close-me` closes with 4000; a
 * subprotocol offered is accepted), answers 401 otherwise; /realtime is an SSE stream that writes only when told;
 * anything else is a 200 naming the upstream. */
async function startUpstream(name: string): Promise<Upstream> {
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => protocols.values().next().value ?? false });
  const up: Upstream = { name, server: null as unknown as Server, url: '', seen: [], streams: [], sockets: [], connections: new Set() };
  up.server = createServer((req, res) => {
    up.seen.push({ url: req.url ?? '', headers: req.headers });
    if ((req.url ?? '').startsWith('/realtime')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      up.streams.push(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(name);
  });
  up.server.on('connection', (socket: Socket) => {
    up.connections.add(socket);
    socket.once('close', () => up.connections.delete(socket));
  });
  up.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    up.seen.push({ url: req.url ?? '', headers: req.headers });
    if (!(req.url ?? '').includes('token=ok')) {
      const body = JSON.stringify({ errors: [{ message: 'Invalid token.', extensions: { code: 'INVALID_CREDENTIALS' } }] });
      socket.end(`HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      up.sockets.push(ws);
      ws.on('message', (data) => {
        const text = String(data);
        if (text === 'close-me') ws.close(4000, 'bye');
        else ws.send(`${name}:${text}`);
      });
    });
  });
  await new Promise<void>((resolve) => up.server.listen(0, '127.0.0.1', resolve));
  up.url = `http://127.0.0.1:${(up.server.address() as AddressInfo).port}`;
  return up;
}

async function stopUpstream(up: Upstream): Promise<void> {
  for (const socket of up.connections) socket.destroy();
  up.server.closeAllConnections();
  await new Promise<void>((resolve) => up.server.close(() => resolve()));
}

/** A SplitProcess whose `running` state the test sets (roundRobin reads exitCode and signalCode only). */
function fakeProcess(url: string): SplitProcess & { stop(): void } {
  const proc = { exitCode: null as number | null, signalCode: null };
  return { half: 'container', port: Number(new URL(url).port), url, proc: proc as unknown as ChildProcess, output: '', stop: () => { proc.exitCode = 137; } };
}

function openSocket(url: string, protocols: string[] = []): Promise<WebSocket> {
  const ws = new WebSocket(url, protocols);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`unexpected ${res.statusCode}`)));
  });
}

/** `promise`, or a failure naming `what` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Drops a client whose upgrade was refused (ws reports that as an error once terminated). */
function abandon(ws: WebSocket): void {
  ws.on('error', () => {});
  ws.terminate();
}

const nextMessage = (ws: WebSocket) => once(ws, 'message').then(([data]) => String(data));
const closed = (ws: WebSocket) => once(ws, 'close').then(([code, reason]) => ({ code: code as number, reason: String(reason) }));

describe('the split router (stand-in upstreams)', () => {
  let functions: Upstream;
  let containers: Upstream[];
  let procs: (SplitProcess & { stop(): void })[];
  let router: Router;
  let log: Routed[];
  const ws = (path: string) => router.url.replace(/^http/, 'ws') + path;

  beforeAll(async () => {
    functions = await startUpstream('functions');
    containers = [await startUpstream('c0'), await startUpstream('c1')];
  });

  afterEach(async () => {
    await router?.close();
  });

  afterAll(async () => {
    for (const up of [functions, ...containers]) await stopUpstream(up);
  });

  /** A router over both containers, or over the first only. */
  async function route(count = 1) {
    procs = containers.slice(0, count).map((c) => fakeProcess(c.url));
    log = [];
    router = await startRouter({ functions: () => functions.url, container: roundRobin(() => procs) }, log);
  }

  it('passes a WebSocket upgrade to the container: subprotocol, frames both ways, X-Forwarded-For', async () => {
    await route();
    const client = await openSocket(ws('/websocket?token=ok'), ['svc-test']);
    expect(client.protocol).toBe('svc-test');
    client.send('hello');
    expect(await nextMessage(client)).toBe('c0:hello');
    // A frame larger than one TCP segment, in both directions.
    const big = 'x'.repeat(300_000);
    client.send(big);
    expect(await nextMessage(client)).toBe(`c0:${big}`);
    expect(log.at(-1)).toEqual({ method: 'GET', path: '/websocket?token=ok', half: 'container', status: 101, upgrade: true, container: 0 });
    const seen = containers[0].seen.at(-1)!;
    expect(seen.url).toBe('/websocket?token=ok');
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers['sec-websocket-protocol']).toBe('svc-test');
    expect(functions.seen.some((s) => s.url.startsWith('/websocket'))).toBe(false);

    // The server's close frame (code and reason) reaches the client.
    client.send('close-me');
    expect(await closed(client)).toEqual({ code: 4000, reason: 'bye' });
  });

  it('a client closing its socket closes the upstream one', async () => {
    await route();
    const client = await openSocket(ws('/websocket?token=ok'));
    const server = containers[0].sockets.at(-1)!;
    const serverClosed = closed(server);
    client.close(1000, 'done');
    expect(await serverClosed).toEqual({ code: 1000, reason: 'done' });
  });

  it('a refused upgrade comes back as the upstream answered it', async () => {
    await route();
    const client = new WebSocket(ws('/websocket?token=bad'));
    const [, res] = await once(client, 'unexpected-response') as [unknown, IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(Buffer.concat(chunks).toString()).errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
    expect(log.at(-1)).toMatchObject({ path: '/websocket?token=bad', status: 401, upgrade: true });
    abandon(client);
  });

  it('an upstream that dies closes its clients\' sockets; an unreachable one is a 502', async () => {
    await route();
    const client = await openSocket(ws('/websocket?token=ok'));
    const clientClosed = closed(client);
    // The task dies: its TCP connections go with it.
    for (const socket of containers[0].connections) socket.destroy();
    expect((await clientClosed).code).toBe(1006);

    // Nothing listens at the upstream's address any more.
    const dead = await startUpstream('dead');
    await stopUpstream(dead);
    procs = [fakeProcess(dead.url)];
    const refused = new WebSocket(ws('/websocket?token=ok'));
    const [, res] = await once(refused, 'unexpected-response') as [unknown, IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    expect(res.statusCode).toBe(502);
    expect(JSON.parse(Buffer.concat(chunks).toString()).errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    abandon(refused);
  });

  it('closing the router closes open WebSockets', async () => {
    await route();
    const client = await openSocket(ws('/websocket?token=ok'));
    const clientClosed = closed(client);
    await router.close();
    expect((await clientClosed).code).toBe(1006);
  });

  it('streams an SSE answer: the head at once, each event as it is written, the upstream closed with the client', async () => {
    await route();
    const before = containers[0].streams.length;
    const req = httpRequest(`${router.url}/realtime?collection=articles`, { agent: false, headers: { accept: 'text/event-stream', 'last-event-id': '7-0' } });
    req.end();
    // Nothing of the body has been written yet: the head alone must come through.
    const [res] = await within(once(req, 'response'), 5_000, 'the SSE head before any event') as [IncomingMessage];
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const stream = containers[0].streams[before];
    expect(containers[0].seen.at(-1)!.headers['last-event-id']).toBe('7-0');
    expect(log.at(-1)).toEqual({ method: 'GET', path: '/realtime?collection=articles', half: 'container', status: 200, container: 0 });

    let received = '';
    res.on('data', (c: Buffer) => { received += c.toString(); });
    for (const [i, event] of ['id: 1\nevent: init\ndata: []\n\n', ': ping\n\n', 'id: 2\nevent: create\ndata: [{"id":1}]\n\n'].entries()) {
      stream.write(event);
      // Each event arrives while the stream is still open (nothing waits for the end or for more bytes).
      await until(() => received.endsWith(event), 5_000, `event ${i} through the router`);
    }
    expect(received).toBe('id: 1\nevent: init\ndata: []\n\n: ping\n\nid: 2\nevent: create\ndata: [{"id":1}]\n\n');

    const upstreamClosed = once(stream, 'close');
    req.destroy();
    await within(upstreamClosed, 5_000, 'the upstream stream to close with the client');
    expect(stream.writableFinished).toBe(false);
  });

  it('spreads container routes over the running containers, skips a dead one, and fails with none', async () => {
    await route(2);
    const served = async (path: string) => (await call(router.url, 'GET', path, { token: null })).text;
    const order = [];
    for (let i = 0; i < 4; i++) order.push(await served(`/assets/a${i}`));
    expect(order).toEqual(['c0', 'c1', 'c0', 'c1']);
    expect(log.map((r) => r.container)).toEqual([0, 1, 0, 1]);
    // The functions' routes are not spread.
    expect(await served('/items/articles')).toBe('functions');
    expect(log.at(-1)).not.toHaveProperty('container');

    procs[0].stop();
    for (let i = 0; i < 3; i++) expect(await served('/tus/x')).toBe('c1');
    expect(log.slice(-3).map((r) => r.container)).toEqual([1, 1, 1]);
    // WebSockets too.
    const client = await openSocket(ws('/websocket?token=ok'));
    client.send('who');
    expect(await nextMessage(client)).toBe('c1:who');
    client.close();

    // None running: the first one's address (a 502 once nothing listens there).
    procs[1].stop();
    await served('/assets/z');
    expect(log.at(-1)!.container).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------------------

const suite = SPLIT_ENABLED ? describe : describe.skip;

suite(SPLIT_ENABLED ? 'startSplit with several containers' : `startSplit with several containers (skipped: ${SPLIT_SKIP_REASON})`, () => {
  let split: Split;

  beforeAll(async () => {
    split = await startSplit({ containers: 2 });
  }, 180_000);

  afterAll(async () => {
    await split?.close();
  }, 60_000);

  it('starts N containers on the same database and Redis namespace, each reachable directly, `container` the first', async () => {
    expect(split.containers).toHaveLength(2);
    expect(split.container).toBe(split.containers[0]);
    expect(new Set(split.containers.map((c) => c.url)).size).toBe(2);
    for (const c of split.containers) {
      expect(c.half).toBe('container');
      expect((await call(c.url, 'GET', '/server/ping', { token: null })).status).toBe(200);
      // Each is a container (no item routes) on the same database: both see the admin's token.
      expect((await call(c.url, 'GET', '/items/articles')).status).toBe(404);
      expect((await call(c.url, 'GET', '/assets/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    }
    expect(split.functions.half).toBe('functions');
  });

  it('the router spreads container routes over both; kill and restart work per index', async () => {
    const from = split.routed.length;
    for (let i = 0; i < 4; i++) await split.req('GET', '/assets/00000000-0000-0000-0000-000000000000');
    expect(new Set(split.routed.slice(from).map((r) => r.container))).toEqual(new Set([0, 1]));

    const firstUrl = split.containers[0].url;
    const secondUrl = split.containers[1].url;
    await split.killContainer(1);
    expect(split.containers[1].proc.signalCode).toBe('SIGKILL');
    expect(split.containers[0].proc.exitCode).toBeNull();
    const afterKill = split.routed.length;
    for (let i = 0; i < 3; i++) expect((await split.req('GET', '/assets/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect(split.routed.slice(afterKill).map((r) => r.container)).toEqual([0, 0, 0]);

    await split.restartContainer(1);
    expect(split.containers[1].url).not.toBe(secondUrl);
    expect(split.containers[0].url).toBe(firstUrl);
    expect((await call(split.containers[1].url, 'GET', '/server/ping', { token: null })).status).toBe(200);
    await expect(split.killContainer(2)).rejects.toThrow(/no container 2/);
  }, 120_000);
});
