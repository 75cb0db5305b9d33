/** The Studio's realtime connection (Directus' WebSocket protocol at /websocket; docs/studio.md > Live updates): one socket per
 * tab, opened when the first subscription is wanted and closed when the last one goes. Loaded on demand through
 * ./live.ts, so it is not part of the first load.
 *
 * - Authentication as the REST calls do (./client.ts): the httpOnly session cookie, which the browser sends with the
 *   upgrade request, and which the server accepts there in every auth mode: the socket is authenticated when it
 *   opens, with no `auth` message (the script never holds a token to put in one). When the server says the
 *   credential ran out (`TOKEN_EXPIRED`, or `AUTH_FAILED`: say the session cookie was missing), the session is
 *   refreshed (POST /auth/refresh, the same single refresh REST uses) and the socket opened again, as the
 *   refreshed cookie only travels with a new upgrade request; subscriptions resume from their last event. A socket
 *   that had been up and then fails to open is also preceded by a refresh (an upgrade with an expired cookie is
 *   refused with 401 before any message).
 * - Subscriptions are multiplexed by `uid`. Every create/update/delete carries an event id; after a reconnect each
 *   subscription is sent again with `since` = the last id it saw, so the server replays what was missed. A
 *   `resync` (the gap is older than the server keeps) tells the subscriber to reload.
 * - Reconnects with exponential backoff and jitter. A server without the endpoint (WEBSOCKETS_ENABLED=false, the
 *   functions deployment) answers the upgrade with an error: the client marks itself unavailable and tries again
 *   only rarely; subscribers keep polling as they did before realtime, and nothing is shown to the user.
 * - Answers the server's `{type:'ping'}` with `{type:'pong'}`. */
import { refreshSession } from './client.ts';

export type ChangeEvent = 'create' | 'update' | 'delete';

export interface SubscriptionSpec {
  collection: string;
  /** The REST query as an object (fields, filter, search ...). */
  query?: Record<string, unknown>;
  event?: ChangeEvent;
  item?: string | number;
}

/** What a subscriber hears: a change (with the event id), `init` (the current rows, at the first subscribe and
 * after a resync), `resync` (events were missed: reload), or an error (the subscription is dropped). */
export type SubscriptionMessage =
  | { event: 'init'; data: unknown[] }
  | { event: ChangeEvent; data: unknown[]; id: string | null }
  | { event: 'resync' }
  | { event: 'error'; code: string; message: string };

export type Listener = (message: SubscriptionMessage) => void;

/** `connecting`: not yet (or no longer) live; `live`: authenticated, subscriptions flow; `unavailable`: the server
 * does not offer realtime here (or refused this session), subscribers rely on polling. */
export type Status = 'idle' | 'connecting' | 'live' | 'unavailable';

interface Subscription {
  uid: string;
  spec: SubscriptionSpec;
  listener: Listener;
  /** The last event id delivered (sent as `since` on a resubscribe). */
  since: string | null;
}

type Incoming = {
  type?: string;
  status?: string;
  event?: string;
  uid?: string;
  id?: string | number;
  data?: unknown;
  error?: { code?: string; message?: string };
};

const BACKOFF_START_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
/** Retry interval once the server has shown it has no realtime endpoint. */
const UNAVAILABLE_RETRY_MS = 5 * 60_000;
/** Consecutive failures to open a socket before the endpoint counts as missing. */
const FAILURES_BEFORE_UNAVAILABLE = 2;

export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: Event) => unknown) | null;
  onclose: ((ev: CloseEvent) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
  onmessage: ((ev: MessageEvent) => unknown) | null;
}

export interface RealtimeOptions {
  url?: string;
  createSocket?: (url: string) => SocketLike;
  refresh?: () => Promise<boolean>;
}

export function socketUrl(loc: Pick<Location, 'protocol' | 'host'> = location): string {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/websocket`;
}

export class RealtimeClient {
  private socket: SocketLike | null = null;
  private readonly subs = new Map<string, Subscription>();
  private status: Status = 'idle';
  private authenticated = false;
  private everOpened = false;
  private failures = 0;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private nextUid = 1;
  /** The socket whose credential is being recovered, and recoveries since a subscription last answered. */
  private recovering: SocketLike | null = null;
  private authRecoveries = 0;
  private readonly url: string;
  private readonly createSocket: (url: string) => SocketLike;
  private readonly refresh: () => Promise<boolean>;

  constructor(opts: RealtimeOptions = {}) {
    this.url = opts.url ?? socketUrl();
    this.createSocket = opts.createSocket ?? ((url) => new WebSocket(url));
    this.refresh = opts.refresh ?? refreshSession;
  }

  getStatus(): Status {
    return this.status;
  }

  /** Starts a subscription (connecting if need be); the returned function ends it. */
  subscribe(spec: SubscriptionSpec, listener: Listener): () => void {
    const uid = `studio-${this.nextUid++}`;
    const sub: Subscription = { uid, spec, listener, since: null };
    this.subs.set(uid, sub);
    if (this.authenticated) this.sendSubscribe(sub);
    else this.ensureConnection();
    return () => {
      if (!this.subs.delete(uid)) return;
      if (this.authenticated) this.send({ type: 'unsubscribe', uid });
      if (this.subs.size === 0) this.shutdown();
    };
  }

  /** Closes the socket and forgets every subscription (sign-out). */
  reset(): void {
    this.subs.clear();
    this.shutdown();
  }

  private setStatus(status: Status): void {
    this.status = status;
  }

  private ensureConnection(): void {
    if (this.socket || this.retryTimer !== undefined) return;
    this.connect();
  }

  private connect(): void {
    this.retryTimer = undefined;
    if (this.subs.size === 0) return;
    if (this.status !== 'unavailable') this.setStatus('connecting');
    let socket: SocketLike;
    try {
      socket = this.createSocket(this.url);
    } catch {
      // A URL the browser refuses outright (e.g. a policy): the same as a missing endpoint.
      this.failed(false);
      return;
    }
    this.socket = socket;
    this.authenticated = false;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.everOpened = true;
      // The session cookie authenticated the upgrade: subscribe at once.
      this.authenticated = true;
      this.failures = 0;
      this.setStatus('live');
      for (const sub of this.subs.values()) this.sendSubscribe(sub);
    };
    socket.onmessage = (ev: MessageEvent) => {
      if (typeof ev.data !== 'string') return;
      let message: Incoming;
      try {
        message = JSON.parse(ev.data) as Incoming;
      } catch {
        return;
      }
      this.handle(message);
    };
    // The close event follows every error; reconnecting is decided there.
    socket.onerror = () => {};
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.authenticated = false;
      this.failed(opened);
    };
  }

  /** A socket closed (or never opened): try again after a while, unless nothing is wanted any more. */
  private failed(opened: boolean): void {
    if (this.subs.size === 0) {
      this.setStatus('idle');
      return;
    }
    if (opened) {
      this.failures = 0;
    } else {
      this.failures++;
    }
    const missing = !this.everOpened && this.failures >= FAILURES_BEFORE_UNAVAILABLE;
    if (missing) this.setStatus('unavailable');
    else this.setStatus('connecting');
    const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** this.attempt++);
    const delay = missing ? UNAVAILABLE_RETRY_MS : backoff / 2 + Math.random() * (backoff / 2);
    // Refused after having worked: most likely the session cookie ran out; refresh it (once) before trying again.
    const refreshFirst = !opened && this.everOpened && this.failures === 1;
    this.retryTimer = setTimeout(() => {
      if (!refreshFirst) {
        this.connect();
        return;
      }
      void this.refresh().then(() => {
        if (this.retryTimer === undefined && !this.socket) this.connect();
      });
      this.retryTimer = undefined;
    }, delay);
  }

  private shutdown(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const socket = this.socket;
    this.socket = null;
    this.authenticated = false;
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      socket.close(1000, 'done');
    }
    this.attempt = 0;
    this.failures = 0;
    this.setStatus('idle');
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket && this.socket.readyState === 1) this.socket.send(JSON.stringify(message));
  }

  private sendSubscribe(sub: Subscription): void {
    const { collection, query, event, item } = sub.spec;
    this.send({
      type: 'subscribe', uid: sub.uid, collection,
      ...(query ? { query } : {}), ...(event ? { event } : {}), ...(item !== undefined ? { item } : {}),
      ...(sub.since !== null ? { since: sub.since } : {}),
    });
  }

  private handle(message: Incoming): void {
    switch (message.type) {
      case 'ping':
        this.send({ type: 'pong' });
        return;
      case 'auth':
        if (message.status === 'error') {
          void this.authFailed();
        }
        return;
      case 'subscription':
        this.deliver(message);
        return;
      case 'subscribe':
        if (message.status === 'error' && message.uid) {
          const sub = this.subs.get(message.uid);
          if (!sub) return;
          this.subs.delete(message.uid);
          sub.listener({ event: 'error', code: message.error?.code ?? 'UNKNOWN', message: message.error?.message ?? '' });
        }
        return;
      default:
    }
  }

  private deliver(message: Incoming): void {
    const sub = message.uid ? this.subs.get(message.uid) : undefined;
    if (!sub) return;
    // A subscription answering is what shows the connection works: the backoff starts over.
    this.authRecoveries = 0;
    this.attempt = 0;
    const data = Array.isArray(message.data) ? (message.data as unknown[]) : [];
    switch (message.event) {
      case 'init':
        sub.listener({ event: 'init', data });
        return;
      case 'resync':
        sub.since = null;
        sub.listener({ event: 'resync' });
        return;
      case 'create':
      case 'update':
      case 'delete': {
        const id = message.id === undefined || message.id === null ? null : String(message.id);
        if (id !== null) sub.since = id;
        sub.listener({ event: message.event, data, id });
        return;
      }
      default:
    }
  }

  /** The server no longer (or never) took this socket's credential: refresh the session, then open a new socket, as
   * the refreshed cookie only travels with a new upgrade request (subscriptions resume from their last event). One
   * recovery per socket (every subscription of it may report the same failure), and no more than two in a row
   * without a subscription answering in between: a session that cannot be refreshed, or a credential the server
   * keeps refusing, ends realtime for this tab (the REST layer signs the user out where that is the reason). */
  private async authFailed(): Promise<void> {
    const socket = this.socket;
    this.authenticated = false;
    if (!socket || this.recovering === socket) return;
    this.recovering = socket;
    const ok = this.authRecoveries++ < 2 && (await this.refresh());
    if (this.socket !== socket) return;
    if (ok) {
      socket.close(1000, 'reauthenticate');
      return;
    }
    this.socket = null;
    socket.onclose = null;
    socket.close(1000, 'auth failed');
    this.setStatus('unavailable');
    this.retryTimer = setTimeout(() => this.connect(), UNAVAILABLE_RETRY_MS);
  }
}

let shared: RealtimeClient | null = null;

/** The tab's one client. */
export function realtime(): RealtimeClient {
  shared ??= new RealtimeClient();
  return shared;
}
