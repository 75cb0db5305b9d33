/** GET /realtime: one subscription as Server-Sent Events, for clients without WebSocket (docs/realtime.md). The
 * same subscription as a WebSocket's `subscribe`: `collection`, `query` (JSON text, or query-string brackets),
 * `event`, `item`; the credential as for REST (authenticated by the app's middleware). Each event carries its id,
 * so a reconnecting EventSource sends `Last-Event-ID` and receives what it missed (or `resync` then `init`).
 * A bad subscription is answered as REST answers a bad read (4xx in the error envelope), before the stream starts. */
import type { Context, Hono } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { Accountability } from '../../core/access/accountability.ts';
import { InvalidQueryError, RouteNotFoundError } from '../../core/errors.ts';
import type { RealtimeClient } from '../../core/realtime/hub.ts';
import { requestCredential } from '../../functions/http/authenticate.ts';
import { clientIp } from '../../functions/http/client-ip.ts';
import type { AppEnv } from '../../functions/http/env.ts';
import { parseQueryString } from '../../functions/http/query-string.ts';
import { accountabilityOf, describe, type Held } from '../realtime/credential.ts';
import { realtime, type Connection } from '../realtime/instance.ts';

type Message = Record<string, unknown>;

class SseConnection implements RealtimeClient, Connection {
  #stream: SSEStreamingApi | null = null;
  /** Written before the stream opened (the first answer). */
  readonly #early: Message[] = [];
  #pendingBytes = 0;
  #done!: () => void;
  readonly finished = new Promise<void>((resolve) => { this.#done = resolve; });
  closed = false;

  constructor(public accountability: Accountability | null, private readonly held: Held | null,
    private readonly c: Context<AppEnv>, private readonly maxBuffer: number) {}

  attach(stream: SSEStreamingApi): void {
    this.#stream = stream;
    // A stream outlives no access token: at its expiry the stream ends with TOKEN_EXPIRED, and the client reconnects
    // with a fresh one (and Last-Event-ID).
    const expiresAt = this.held?.expiresAt;
    if (expiresAt) {
      const timer = setTimeout(() => {
        this.send({ type: 'auth', status: 'error', error: { code: 'TOKEN_EXPIRED', message: 'Token expired.' } });
      }, Math.max(0, Math.min(expiresAt - Date.now(), 2 ** 31 - 1)));
      timer.unref();
      void this.finished.then(() => clearTimeout(timer));
    }
    stream.onAbort(() => this.close(1001, 'aborted'));
    for (const m of this.#early.splice(0)) this.send(m);
  }

  send(message: Message): void {
    if (this.closed) return;
    const stream = this.#stream;
    if (!stream) { this.#early.push(message); return; }
    let frame: { event: string; data: string; id?: string };
    if (message.type === 'subscription') {
      const event = String(message.event);
      frame = { event, data: JSON.stringify(message.data ?? (event === 'error' ? message.error : null)) };
      if (typeof message.id === 'string') frame.id = message.id;
    } else if (message.type === 'auth' && message.status === 'error') {
      frame = { event: 'error', data: JSON.stringify(message.error) };
    } else {
      return;
    }
    const bytes = frame.data.length + 64;
    if (this.#pendingBytes + bytes > this.maxBuffer) {
      // A reader that does not keep up is dropped; it reconnects with Last-Event-ID and resumes.
      this.close(1013, 'slow consumer');
      return;
    }
    this.#pendingBytes += bytes;
    void stream.writeSSE(frame).then(() => { this.#pendingBytes -= bytes; }, () => this.close(1001, 'write failed'));
    if (frame.event === 'error') this.close(1008, 'error');
  }

  beat(): void {
    if (this.closed || !this.#stream) return;
    void this.#stream.write(': ping\n\n').catch(() => this.close(1001, 'write failed'));
  }

  async recheck(sessionsOnly: boolean): Promise<void> {
    if (this.closed) return;
    if (sessionsOnly && (!this.held || !this.held.sessionBound)) return;
    const services = this.c.get('services');
    try {
      const next = await accountabilityOf(services, this.held?.token ?? null, {
        ip: clientIp(this.c), userAgent: this.c.req.header('user-agent') ?? null, origin: this.c.req.header('origin') ?? null,
      });
      await realtime(services).hub.regroup(this, next, () => { this.accountability = next; });
    } catch (err) {
      this.send({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED', message: (err as Error).message } });
      this.close(1008, 'credential no longer valid');
    }
  }

  close(_code: number, _reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.#done();
  }
}

function jsonQuery(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidQueryError('Invalid JSON in "query".');
  }
}

export function mountRealtimeRoutes(app: Hono<AppEnv>): void {
  app.get('/realtime', async (c) => {
    const services = c.get('services');
    const config = services.config.realtime;
    if (!config.enabled) throw new RouteNotFoundError('/realtime');
    const raw = parseQueryString(c);
    const token = requestCredential(c);
    const conn = new SseConnection(c.get('accountability'), token ? describe(token) : null, c, config.maxBufferBytes);
    const rt = realtime(services);
    const lastEventId = c.req.header('last-event-id');
    await rt.hub.subscribe(conn, {
      collection: raw.collection, query: typeof raw.query === 'string' ? jsonQuery(raw.query) : raw.query,
      event: raw.event, item: raw.item, since: lastEventId || raw.since,
    });
    rt.connections.add(conn);
    c.header('cache-control', 'no-store');
    c.header('x-accel-buffering', 'no');
    return streamSSE(c, async (stream) => {
      conn.attach(stream);
      await conn.finished;
      rt.hub.drop(conn);
      rt.connections.delete(conn);
    });
  });
}
