/** The unchanged `@directus/sdk` realtime client against /websocket (docs/realtime.md: "the unchanged
 * @directus/sdk realtime() client works"): handshake with a static token, subscribe with a query and iterate the
 * subscription (init, create, update, delete), items through sendMessage, unsubscribe, the SDK's re-authentication on
 * TOKEN_EXPIRED with a json login, and the `public` and `strict` auth modes.
 *
 * The SDK waits for each message with a listener it adds per message (utils/message-callback), so a message that
 * arrives while the test is not awaiting the subscription is lost by the SDK itself; each write here therefore
 * happens while the subscription's next() is pending. */
import { authentication, createDirectus, realtime, staticToken } from '@directus/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { run } from '../../core/db/database.ts';
import { realtime as realtimeOf } from '../../container/realtime/instance.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_TOKEN } from '../helpers/template.ts';
import { startRealtimeApp, type Msg, type RealtimeApp } from './helpers.ts';

// Node 20 has no global WebSocket: the SDK takes ws's through its globals.
const globals = { WebSocket: WebSocket as unknown as typeof globalThis.WebSocket };

type Sub = AsyncGenerator<Msg, void, unknown>;

/** Starts waiting for the subscription's next message, then runs `write`, then returns the message. */
async function during(sub: Sub, write: () => Promise<unknown>): Promise<Msg> {
  const next = sub.next();
  await write();
  const r = await next;
  if (r.done) throw new Error('the subscription ended');
  return r.value;
}

async function nextOf(sub: Sub): Promise<Msg> {
  const r = await sub.next();
  if (r.done) throw new Error('the subscription ended');
  return r.value;
}

/** Every parsed message of the SDK's socket (added after connect). */
function record(ws: unknown): Msg[] {
  const seen: Msg[] = [];
  (ws as globalThis.WebSocket).addEventListener('message', (e: MessageEvent) => { seen.push(JSON.parse(String(e.data)) as Msg); });
  return seen;
}

async function until(check: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function grantPublicRead(t: RealtimeApp): Promise<void> {
  const [{ policy }] = await run<{ policy: string }>(t.services.database.db, 'select a.policy from svc_settings s join svc_access a on a.role = s.public_role where s.id = 1');
  const res = await t.req('POST', '/permissions', { policy, collection: 'posts', action: 'read', fields: ['id', 'title'], permissions: { status: { _eq: 'published' } } });
  expect(res.status).toBe(200);
}

describe('handshake mode', () => {
  let t: RealtimeApp;
  beforeAll(async () => {
    t = await startRealtimeApp({ env: { ACCESS_TOKEN_TTL: '3s' } });
    await createContentModel(t.services);
  });
  afterAll(async () => { await t?.close(); });

  it('subscribes with fields and filter, then iterates init, create, update, delete; unsubscribes', async () => {
    const client = createDirectus(t.url, { globals }).with(staticToken(ADMIN_TOKEN)).with(realtime({ authMode: 'handshake', reconnect: false }));
    await client.connect();
    const { subscription, unsubscribe } = await client.subscribe('posts', {
      query: { fields: ['id', 'title', 'status'], filter: { status: { _eq: 'published' } } },
      uid: 'sdk-posts',
    });
    const sub = subscription as Sub;
    const init = await nextOf(sub);
    const rest = await t.req('GET', '/items/posts?fields=id,title,status&filter[status][_eq]=published');
    expect(init).toMatchObject({ type: 'subscription', event: 'init', uid: 'sdk-posts' });
    expect(init.data).toEqual(rest.body.data);
    expect(init.data.length).toBe(3);

    let id = 0;
    const created = await during(sub, async () => {
      id = (await t.req('POST', '/items/posts', { title: 'From SDK test', status: 'published' })).body.data;
    });
    expect(created).toMatchObject({ event: 'create', data: [{ id, title: 'From SDK test', status: 'published' }] });
    const updated = await during(sub, () => t.req('PATCH', `/items/posts/${id}`, { title: 'Renamed' }));
    expect(updated).toMatchObject({ event: 'update', data: [{ id, title: 'Renamed', status: 'published' }] });
    // Leaving the filter: a delete for this subscriber.
    const left = await during(sub, () => t.req('PATCH', `/items/posts/${id}`, { status: 'draft' }));
    expect(left).toMatchObject({ event: 'delete' });
    expect(left.data.map(String)).toEqual([String(id)]);
    const back = await during(sub, () => t.req('PATCH', `/items/posts/${id}`, { status: 'published' }));
    expect(back).toMatchObject({ event: 'update', data: [{ id, title: 'Renamed', status: 'published' }] });
    const deleted = await during(sub, () => t.req('DELETE', `/items/posts/${id}`));
    expect(deleted).toMatchObject({ event: 'delete' });
    expect(deleted.data.map(String)).toEqual([String(id)]);

    const hub = realtimeOf(t.services).hub;
    expect(hub.stats().subscriptions).toBe(1);
    unsubscribe();
    await until(() => hub.stats().subscriptions === 0, 'the unsubscribe');
    client.disconnect();
  });

  it('sends items messages and reads the answers through onWebSocket', async () => {
    const client = createDirectus(t.url, { globals }).with(staticToken(ADMIN_TOKEN)).with(realtime({ reconnect: false }));
    await client.connect();
    const answers: Msg[] = [];
    client.onWebSocket('message', (m: Msg) => { if (m.type === 'items') answers.push(m); });
    client.sendMessage({ type: 'items', action: 'create', collection: 'tags', data: { id: 'sdk-tag', label: 'SDK' }, uid: 'c' });
    await until(() => answers.some((m) => m.uid === 'c'), 'the create answer');
    client.sendMessage({ type: 'items', action: 'read', collection: 'tags', id: 'sdk-tag', uid: 'r' });
    await until(() => answers.some((m) => m.uid === 'r'), 'the read answer');
    client.sendMessage({ type: 'items', action: 'read', collection: 'nope', uid: 'e' });
    const rest = await t.req('GET', '/items/nope');
    await until(() => answers.some((m) => m.uid === 'e'), 'the error answer');
    expect(answers.find((m) => m.uid === 'c')).toMatchObject({ status: 'ok', data: { id: 'sdk-tag', label: 'SDK' } });
    expect(answers.find((m) => m.uid === 'r')).toMatchObject({ status: 'ok', data: { id: 'sdk-tag', label: 'SDK' } });
    expect(answers.find((m) => m.uid === 'e')).toMatchObject({ status: 'error', error: { code: rest.body.errors[0].extensions.code } });
    // A message without a uid gets one from the SDK, echoed back.
    client.sendMessage({ type: 'items', action: 'delete', collection: 'tags', id: 'sdk-tag' });
    await until(() => answers.length === 4, 'the delete answer');
    expect(answers[3]).toMatchObject({ status: 'ok', data: 'sdk-tag', uid: expect.any(String) });
    client.disconnect();
  });

  it('re-authenticates on TOKEN_EXPIRED with a refreshed json token, and the subscription goes on', async () => {
    const client = createDirectus(t.url, { globals })
      .with(authentication('json', { autoRefresh: false, msRefreshBeforeExpires: 1500 }))
      .with(realtime({ authMode: 'handshake', reconnect: false }));
    await client.login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const first = await client.getToken();
    const ws = await client.connect();
    const seen = record(ws);
    const { subscription } = await client.subscribe('posts', { query: { fields: ['id', 'title'] }, uid: 'exp' });
    const sub = subscription as Sub;
    expect((await nextOf(sub)).event).toBe('init');
    // The 3 s token expires: the server says TOKEN_EXPIRED, the SDK refreshes and sends auth with the new token.
    await until(() => seen.some((m) => m.type === 'auth' && m.status === 'ok'), 're-authentication');
    const expired = seen.findIndex((m) => m.type === 'auth' && m.status === 'error');
    expect(seen[expired]).toMatchObject({ error: { code: 'TOKEN_EXPIRED' } });
    expect(seen.findIndex((m) => m.type === 'auth' && m.status === 'ok')).toBeGreaterThan(expired);
    expect(await client.getToken()).not.toBe(first);
    let id = 0;
    const created = await during(sub, async () => { id = (await t.req('POST', '/items/posts', { title: 'After refresh' })).body.data; });
    expect(created).toMatchObject({ event: 'create', data: [{ id, title: 'After refresh' }] });
    client.disconnect();
  });
});

describe('public mode (WEBSOCKETS_REST_AUTH=public)', () => {
  let t: RealtimeApp;
  beforeAll(async () => {
    t = await startRealtimeApp({ env: { WEBSOCKETS_REST_AUTH: 'public' } });
    await createContentModel(t.services);
    await grantPublicRead(t);
  });
  afterAll(async () => { await t?.close(); });

  it('subscribes without credentials as the Public role', async () => {
    const client = createDirectus(t.url, { globals }).with(realtime({ authMode: 'public', reconnect: false }));
    await client.connect();
    const { subscription } = await client.subscribe('posts', { query: { fields: ['*'], sort: ['id'] }, uid: 'pub' });
    const sub = subscription as Sub;
    const init = await nextOf(sub);
    expect(init.data).toEqual((await t.req('GET', '/items/posts?fields=*&sort=id', undefined, { token: null })).body.data);
    expect(init.data.map((r: Msg) => Object.keys(r).sort())).toEqual([['id', 'title'], ['id', 'title'], ['id', 'title']]);
    let id = 0;
    const created = await during(sub, async () => {
      await t.req('POST', '/items/posts', { title: 'hidden draft', status: 'draft' });
      id = (await t.req('POST', '/items/posts', { title: 'public one', status: 'published', body: 'not public' })).body.data;
    });
    // The draft never reached the Public role; the published row came with its public fields only.
    expect(created).toMatchObject({ event: 'create', data: [{ id, title: 'public one' }] });
    expect(Object.keys(created.data[0]).sort()).toEqual(['id', 'title']);
    client.disconnect();
  });
});

describe('strict mode (WEBSOCKETS_REST_AUTH=strict)', () => {
  let t: RealtimeApp;
  beforeAll(async () => {
    t = await startRealtimeApp({ env: { WEBSOCKETS_REST_AUTH: 'strict' } });
    await createContentModel(t.services);
  });
  afterAll(async () => { await t?.close(); });

  it('connects with the token on the URL and subscribes', async () => {
    const client = createDirectus(t.url, { globals }).with(staticToken(ADMIN_TOKEN)).with(realtime({ authMode: 'strict', reconnect: false }));
    await client.connect();
    const { subscription } = await client.subscribe('tags', { query: { fields: ['id', 'label'], sort: ['id'] }, uid: 'strict' });
    const sub = subscription as Sub;
    expect((await nextOf(sub)).data).toEqual((await t.req('GET', '/items/tags?fields=id,label&sort=id')).body.data);
    const created = await during(sub, () => t.req('POST', '/items/tags', { id: 'strict-tag', label: 'S' }));
    expect(created).toMatchObject({ event: 'create', data: [{ id: 'strict-tag', label: 'S' }] });
    client.disconnect();
  });

  it('refuses a connection without a token', async () => {
    const connections = realtimeOf(t.services).connections;
    await until(() => connections.size === 0, 'the previous test\'s socket to close');
    const client = createDirectus(t.url, { globals }).with(realtime({ authMode: 'strict', reconnect: false }));
    await expect(client.connect()).rejects.toBeDefined();
    expect(realtimeOf(t.services).connections.size).toBe(0);
  });
});
