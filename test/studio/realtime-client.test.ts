/** The Studio's realtime client (studio/src/api/realtime.ts) against a scripted socket: authenticated by the session
 * cookie on the upgrade (no auth message), subscriptions multiplexed by uid, ping/pong, reconnect with backoff and
 * resume (`since` = the last event id seen), resync, re-authentication after TOKEN_EXPIRED or AUTH_FAILED (refresh,
 * then a new upgrade carrying the refreshed cookie; no endless loop when the server keeps refusing), a refused
 * upgrade after the socket had worked (refresh first), a subscription refused, a server without the endpoint
 * (unavailable, tried again only rarely), and closing when nothing is wanted.
 * The browser journey (realtime.test.ts) runs it against the real server. */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

/** The client's surface as this test uses it (the module is the Studio's: loaded by path, typed here). */
type Message = { event: string; data?: unknown[]; id?: string | null; code?: string };
interface Client {
  subscribe(spec: { collection: string; query?: Record<string, unknown> }, listener: (m: Message) => void): () => void;
  getStatus(): string;
  reset(): void;
}
interface Module {
  RealtimeClient: new (opts: { url: string; createSocket(url: string): FakeSocket; refresh(): Promise<boolean> }) => Client;
  socketUrl(loc: { protocol: string; host: string }): string;
}

class FakeSocket {
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  closed: { code?: number; reason?: string } | null = null;
  onopen: ((ev: unknown) => unknown) | null = null;
  onclose: ((ev: unknown) => unknown) | null = null;
  onerror: ((ev: unknown) => unknown) | null = null;
  onmessage: ((ev: { data: unknown }) => unknown) | null = null;
  constructor(readonly url: string) {}
  send(data: string): void { this.sent.push(JSON.parse(data) as Record<string, unknown>); }
  close(code?: number, reason?: string): void {
    this.closed = { code, reason };
    this.readyState = 3;
    this.onclose?.({ code });
  }
  open(): void { this.readyState = 1; this.onopen?.({}); }
  /** The server's answer. */
  receive(message: Record<string, unknown>): void { this.onmessage?.({ data: JSON.stringify(message) }); }
  /** The connection failed (no endpoint: the upgrade answered 404). */
  fail(): void { this.readyState = 3; this.onerror?.({}); this.onclose?.({ code: 1006 }); }
  ofType(type: string): Record<string, unknown>[] { return this.sent.filter((m) => m.type === type); }
}

let mod: Module;

beforeAll(async () => {
  // The client module imports the REST client, which reads location.origin when loaded.
  (globalThis as unknown as { location: unknown }).location = { origin: 'http://studio.test', protocol: 'http:', host: 'studio.test' };
  const path = '../../studio/src/api/realtime.ts';
  mod = (await import(/* @vite-ignore */ path)) as Module;
});

afterEach(() => { vi.useRealTimers(); });

function setup(refresh: () => Promise<boolean> = async () => true) {
  const sockets: FakeSocket[] = [];
  const client = new mod.RealtimeClient({
    url: 'ws://studio.test/websocket',
    createSocket: (url) => { const s = new FakeSocket(url); sockets.push(s); return s; },
    refresh,
  });
  const last = (): FakeSocket => sockets[sockets.length - 1];
  return { client, sockets, last };
}

describe('studio realtime client', () => {
  it('builds ws:// or wss:// from the page address', () => {
    expect(mod.socketUrl({ protocol: 'http:', host: 'localhost:8055' })).toBe('ws://localhost:8055/websocket');
    expect(mod.socketUrl({ protocol: 'https:', host: 'cms.example.com' })).toBe('wss://cms.example.com/websocket');
  });

  it('subscribes as soon as the socket opens (the cookie authenticated the upgrade), multiplexes by uid, answers ping and unsubscribes', () => {
    const { client, sockets, last } = setup();
    const a: Message[] = [];
    const b: Message[] = [];
    const stopA = client.subscribe({ collection: 'posts', query: { fields: ['id', 'title'] } }, (m) => a.push(m));
    client.subscribe({ collection: 'svc_notifications' }, (m) => b.push(m));
    expect(sockets).toHaveLength(1);
    expect(client.getStatus()).toBe('connecting');
    expect(last().sent).toEqual([]);
    last().open();
    // No auth message: the script holds no token, the session cookie went with the upgrade request.
    expect(last().ofType('auth')).toEqual([]);
    expect(client.getStatus()).toBe('live');
    const subs = last().ofType('subscribe');
    expect(subs.map((s) => s.collection)).toEqual(['posts', 'svc_notifications']);
    expect(subs[0].query).toEqual({ fields: ['id', 'title'] });
    expect(subs[0].uid).not.toBe(subs[1].uid);
    expect(subs.some((s) => 'since' in s)).toBe(false);

    last().receive({ type: 'subscription', event: 'init', data: [{ id: 1 }], uid: subs[0].uid });
    last().receive({ type: 'subscription', event: 'create', data: [{ id: 2 }], uid: subs[1].uid, id: '5-0' });
    expect(a).toEqual([{ event: 'init', data: [{ id: 1 }] }]);
    expect(b).toEqual([{ event: 'create', data: [{ id: 2 }], id: '5-0' }]);

    last().receive({ type: 'ping' });
    expect(last().ofType('pong')).toHaveLength(1);

    stopA();
    expect(last().ofType('unsubscribe')).toEqual([{ type: 'unsubscribe', uid: subs[0].uid }]);
    client.reset();
    expect(last().closed?.code).toBe(1000);
    expect(client.getStatus()).toBe('idle');
  });

  it('reconnects with backoff and resumes each subscription from the last event id it saw', () => {
    vi.useFakeTimers();
    const { client, sockets, last } = setup();
    const seen: Message[] = [];
    client.subscribe({ collection: 'posts' }, (m) => seen.push(m));
    last().open();
    const uid = last().ofType('subscribe')[0].uid;
    last().receive({ type: 'subscription', event: 'init', data: [], uid });
    last().receive({ type: 'subscription', event: 'update', data: [{ id: 1 }], uid, id: '10-0' });
    last().receive({ type: 'subscription', event: 'delete', data: [3], uid, id: '10-1' });

    last().close(1006);
    expect(client.getStatus()).toBe('connecting');
    expect(sockets).toHaveLength(1);
    // The first retry comes within the first backoff step (1 s, with jitter), not at once.
    vi.advanceTimersByTime(400);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(700);
    expect(sockets).toHaveLength(2);
    last().open();
    expect(last().ofType('subscribe')).toEqual([{ type: 'subscribe', uid, collection: 'posts', since: '10-1' }]);
    // Replayed events continue the same listener.
    last().receive({ type: 'subscription', event: 'create', data: [{ id: 4 }], uid, id: '11-0' });
    expect(seen.map((m) => m.event)).toEqual(['init', 'update', 'delete', 'create']);
    expect(seen[2].data).toEqual([3]);

    // Failing again and again backs off further each time, up to 30 s.
    const gaps: number[] = [];
    for (let i = 0; i < 8; i++) {
      const before = sockets.length;
      last().close(1006);
      let waited = 0;
      while (sockets.length === before) { vi.advanceTimersByTime(100); waited += 100; }
      gaps.push(waited);
      last().open();
    }
    expect(gaps[gaps.length - 1]).toBeGreaterThan(gaps[0]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(30_000);
    expect(gaps[gaps.length - 1]).toBeGreaterThanOrEqual(15_000);
    client.reset();
  });

  it('passes a resync on and forgets the resume point, so the next reconnect starts afresh', () => {
    vi.useFakeTimers();
    const { client, last } = setup();
    const seen: Message[] = [];
    client.subscribe({ collection: 'posts' }, (m) => seen.push(m));
    last().open();
    const uid = last().ofType('subscribe')[0].uid;
    last().receive({ type: 'subscription', event: 'update', data: [{ id: 1 }], uid, id: '3-0' });
    last().receive({ type: 'subscription', event: 'resync', uid });
    last().receive({ type: 'subscription', event: 'init', data: [{ id: 1 }], uid });
    expect(seen.map((m) => m.event)).toEqual(['update', 'resync', 'init']);
    last().close(1006);
    vi.advanceTimersByTime(1_000);
    last().open();
    expect(last().ofType('subscribe')[0]).not.toHaveProperty('since');
    client.reset();
  });

  it('refreshes the session on TOKEN_EXPIRED and connects again with the new cookie; gives up when it cannot refresh', async () => {
    vi.useFakeTimers();
    let refreshes = 0;
    let refreshOk = true;
    const { client, sockets, last } = setup(async () => { refreshes++; return refreshOk; });
    client.subscribe({ collection: 'posts' }, () => {});
    last().open();
    const uid = last().ofType('subscribe')[0].uid;
    last().receive({ type: 'subscription', event: 'create', data: [{ id: 1 }], uid, id: '7-0' });
    last().receive({ type: 'auth', status: 'error', error: { code: 'TOKEN_EXPIRED', message: 'Token expired.' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(refreshes).toBe(1);
    expect(sockets[0].closed?.reason).toBe('reauthenticate');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sockets).toHaveLength(2);
    last().open();
    expect(last().ofType('subscribe')[0].since).toBe('7-0');

    // A message on the new socket resets the recovery count.
    last().receive({ type: 'subscription', event: 'update', data: [{ id: 1 }], uid, id: '8-0' });
    // Every subscription of a socket may report the failure: one refresh for them all.
    client.subscribe({ collection: 'pages' }, () => {});
    const uids = last().ofType('subscribe').map((m) => m.uid);
    last().receive({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED', message: 'Authenticate first.' }, uid: uids[0] });
    last().receive({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED', message: 'Authenticate first.' }, uid: uids[1] });
    await vi.advanceTimersByTimeAsync(0);
    expect(refreshes).toBe(2);
    expect(client.getStatus()).not.toBe('unavailable');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sockets).toHaveLength(3);
    last().open();

    // The session is gone: no loop of refreshes, realtime stops for this tab (REST signs the user out).
    refreshOk = false;
    last().receive({ type: 'auth', status: 'error', error: { code: 'TOKEN_EXPIRED', message: 'Token expired.' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(refreshes).toBe(3);
    expect(client.getStatus()).toBe('unavailable');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sockets).toHaveLength(3);
    client.reset();
  });

  it('stops after two recoveries when the server keeps refusing the refreshed session', async () => {
    vi.useFakeTimers();
    let refreshes = 0;
    const { client, sockets, last } = setup(async () => { refreshes++; return true; });
    client.subscribe({ collection: 'posts' }, () => {});
    for (let i = 0; i < 3; i++) {
      last().open();
      const uid = last().ofType('subscribe')[0].uid;
      last().receive({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED', message: 'Authenticate first.' }, uid });
      await vi.advanceTimersByTimeAsync(5_000);
    }
    expect(refreshes).toBe(2);
    expect(sockets).toHaveLength(3);
    expect(client.getStatus()).toBe('unavailable');
    client.reset();
  });

  it('refreshes the session before trying again when an upgrade is refused after the socket had worked', async () => {
    vi.useFakeTimers();
    let refreshes = 0;
    const { client, sockets, last } = setup(async () => { refreshes++; return true; });
    client.subscribe({ collection: 'posts' }, () => {});
    last().open();
    last().close(1006);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(refreshes).toBe(0);
    // The upgrade is refused (401: the cookie ran out): refresh, then the next attempt.
    last().fail();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(refreshes).toBe(1);
    expect(sockets).toHaveLength(3);
    last().open();
    expect(client.getStatus()).toBe('live');
    client.reset();
  });

  it('tells a subscriber its subscription was refused, and keeps the others', () => {
    const { client, last } = setup();
    const refused: Message[] = [];
    const other: Message[] = [];
    client.subscribe({ collection: 'svc_workflow_instance_steps' }, (m) => refused.push(m));
    client.subscribe({ collection: 'posts' }, (m) => other.push(m));
    last().open();
    const [first, second] = last().ofType('subscribe');
    last().receive({ type: 'subscribe', status: 'error', error: { code: 'FORBIDDEN', message: 'No.' }, uid: first.uid });
    last().receive({ type: 'subscription', event: 'init', data: [], uid: second.uid });
    // A late message for the refused uid is not delivered.
    last().receive({ type: 'subscription', event: 'create', data: [{ id: 1 }], uid: first.uid, id: '1-0' });
    expect(refused).toEqual([{ event: 'error', code: 'FORBIDDEN', message: 'No.' }]);
    expect(other.map((m) => m.event)).toEqual(['init']);
    expect(client.getStatus()).toBe('live');
    client.reset();
  });

  it('counts a server without the endpoint as unavailable and tries again only every few minutes', async () => {
    vi.useFakeTimers();
    const { client, sockets, last } = setup();
    const statuses: string[] = [];
    client.subscribe({ collection: 'posts' }, () => {});
    last().fail();
    statuses.push(client.getStatus());
    await vi.advanceTimersByTimeAsync(1_000);
    last().fail();
    statuses.push(client.getStatus());
    expect(statuses).toEqual(['connecting', 'unavailable']);
    const tried = sockets.length;
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(sockets).toHaveLength(tried);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sockets).toHaveLength(tried + 1);
    client.reset();
    expect(client.getStatus()).toBe('idle');
  });

  it('closes the socket when the last subscription ends, and opens one again when wanted', () => {
    const { client, sockets, last } = setup();
    const stop = client.subscribe({ collection: 'posts' }, () => {});
    last().open();
    stop();
    expect(sockets[0].closed?.code).toBe(1000);
    expect(client.getStatus()).toBe('idle');
    client.subscribe({ collection: 'posts' }, () => {});
    expect(sockets).toHaveLength(2);
    client.reset();
  });
});
