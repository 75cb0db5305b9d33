/** Realtime tests: the test app on a real HTTP server with /websocket attached (as container/main.ts does), and a
 * WebSocket client that keeps every message and waits for the ones a test expects. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { WebSocket } from 'ws';
import { attachRealtime, type RealtimeServer } from '../../container/realtime/server.ts';
import { realtime } from '../../container/realtime/instance.ts';
import { createTestApp, type TestApp, type TestAppOptions, type TestDatabase } from '../helpers/app.ts';

export type Msg = Record<string, any>;

export interface RealtimeApp extends TestApp {
  database: TestDatabase;
  url: string;
  wsUrl: string;
  server: Server;
  realtimeServer: RealtimeServer;
  /** Resolves once every change appended so far has been fanned out. */
  settled(): Promise<void>;
}

export async function startRealtimeApp(opts: TestAppOptions = {}): Promise<RealtimeApp> {
  const t = await createTestApp(opts);
  const server = serve({ fetch: t.app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const realtimeServer = attachRealtime(server, t.services);
  return {
    ...t,
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/websocket`,
    server,
    realtimeServer,
    settled: () => realtime(t.services).hub.idle(),
    async close() {
      await realtimeServer.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}

export class Client {
  readonly messages: Msg[] = [];
  readonly ws: WebSocket;
  closed: { code: number; reason: string } | null = null;
  readonly #waiters: { match: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  #read = 0;

  constructor(url: string, opts: { headers?: Record<string, string> } = {}) {
    this.ws = new WebSocket(url, { headers: opts.headers });
    this.ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as Msg;
      this.messages.push(m);
      const i = this.#waiters.findIndex((w) => w.match(m));
      if (i >= 0) this.#waiters.splice(i, 1)[0].resolve(m);
    });
    this.ws.on('close', (code, reason) => { this.closed = { code, reason: reason.toString() }; });
  }

  static async open(url: string, opts: { headers?: Record<string, string> } = {}): Promise<Client> {
    const c = new Client(url, opts);
    await new Promise<void>((resolve, reject) => {
      c.ws.once('open', () => resolve());
      c.ws.once('error', reject);
      c.ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    return c;
  }

  send(m: Msg): void {
    this.ws.send(JSON.stringify(m));
  }

  /** The first message (already received or still to come) after those taken before that matches. */
  next(match: (m: Msg) => boolean, timeoutMs = 15_000, what = 'a message'): Promise<Msg> {
    const found = this.messages.findIndex((m, i) => i >= this.#read && match(m));
    if (found >= 0) {
      this.#read = found + 1;
      return Promise.resolve(this.messages[found]);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.messages.slice(-5))}`)), timeoutMs);
      this.#waiters.push({ match, resolve: (m) => { clearTimeout(timer); this.#read = this.messages.indexOf(m) + 1; resolve(m); } });
    });
  }

  /** Sends and waits for the reply of the same type (and uid). */
  async call(m: Msg, type = String(m.type)): Promise<Msg> {
    const reply = this.next((r) => r.type === type && (m.uid === undefined || r.uid === m.uid), 15_000, `${type} reply`);
    this.send(m);
    return reply;
  }

  async auth(token: string): Promise<Msg> {
    return this.call({ type: 'auth', access_token: token });
  }

  /** Subscribes and returns the init (or the first) answer. */
  async subscribe(m: Msg): Promise<Msg> {
    const reply = this.next((r) => r.uid === m.uid && (r.type === 'subscription' || r.type === 'subscribe'), 15_000, `subscription ${m.uid}`);
    this.send({ type: 'subscribe', ...m });
    return reply;
  }

  /** Subscription messages of `uid` received so far (not init). */
  events(uid: string): Msg[] {
    return this.messages.filter((m) => m.type === 'subscription' && m.uid === uid && m.event !== 'init');
  }

  close(): void {
    this.ws.close();
  }
}

/** Waits until `check` holds. */
export async function until(check: () => boolean, timeoutMs = 5000, what = 'a condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
