/** The WebSocket protocol (docs/realtime.md): auth, subscribe/init, create/update/delete messages, unsubscribe,
 * items over the socket, ping/pong, errors in the envelope of the message type. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContentModel } from '../helpers/fixtures.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_TOKEN } from '../helpers/template.ts';
import { Client, startRealtimeApp, type RealtimeApp } from './helpers.ts';

let t: RealtimeApp;

beforeAll(async () => {
  t = await startRealtimeApp();
  await createContentModel(t.services);
});
afterAll(async () => { await t?.close(); });

describe('websocket protocol', () => {
  it('authenticates with an access token, subscribes, and receives init then create/update/delete', async () => {
    const c = await Client.open(t.wsUrl);
    expect(await c.auth(ADMIN_TOKEN)).toMatchObject({ type: 'auth', status: 'ok' });
    const init = await c.subscribe({ collection: 'posts', uid: 'p', query: { fields: ['id', 'title'], sort: ['id'] } });
    expect(init).toMatchObject({ type: 'subscription', event: 'init', uid: 'p' });
    expect(init.data.length).toBeGreaterThan(0);
    expect(Object.keys(init.data[0]).sort()).toEqual(['id', 'title']);

    const created = await t.req('POST', '/items/posts', { title: 'Live' });
    expect(created.status).toBe(200);
    const id = created.body.data.id ?? created.body.data;
    const create = await c.next((m) => m.uid === 'p' && m.event === 'create');
    expect(create.data).toEqual([{ id, title: 'Live' }]);
    expect(typeof create.id).toBe('string');

    await t.req('PATCH', `/items/posts/${id}`, { title: 'Live 2' });
    const update = await c.next((m) => m.uid === 'p' && m.event === 'update');
    expect(update.data).toEqual([{ id, title: 'Live 2' }]);

    await t.req('DELETE', `/items/posts/${id}`);
    const del = await c.next((m) => m.uid === 'p' && m.event === 'delete');
    expect(del.data.map(String)).toEqual([String(id)]);
    c.close();
  });

  it('authenticates with email and password and answers ping with pong', async () => {
    const c = await Client.open(t.wsUrl);
    const ok = await c.call({ type: 'auth', email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    expect(ok).toMatchObject({ type: 'auth', status: 'ok' });
    expect(typeof ok.refresh_token).toBe('string');
    expect(await c.call({ type: 'ping' }, 'pong')).toEqual({ type: 'pong' });
    const again = await Client.open(t.wsUrl);
    expect(await again.call({ type: 'auth', refresh_token: ok.refresh_token })).toMatchObject({ status: 'ok' });
    c.close();
    again.close();
  });

  it('refuses bad credentials and anything before auth', async () => {
    const c = await Client.open(t.wsUrl);
    expect(await c.call({ type: 'subscribe', collection: 'posts', uid: 'x' }, 'auth')).toMatchObject({ status: 'error', error: { code: 'AUTH_FAILED' } });
    expect(await c.auth('nope')).toMatchObject({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED' } });
    c.close();
  });

  it('answers errors of a subscribe in its envelope', async () => {
    const c = await Client.open(t.wsUrl);
    await c.auth(ADMIN_TOKEN);
    expect(await c.subscribe({ collection: 'nope', uid: 'a' })).toMatchObject({ type: 'subscribe', status: 'error', uid: 'a', error: { code: 'FORBIDDEN' } });
    expect(await c.subscribe({ collection: 'posts', uid: 'b', query: { filter: { nope: { _eq: 1 } } } })).toMatchObject({ type: 'subscribe', status: 'error', uid: 'b' });
    expect(await c.subscribe({ collection: 'posts', uid: 'c', query: { aggregate: { count: '*' } } })).toMatchObject({ type: 'subscribe', status: 'error', error: { code: 'INVALID_QUERY' } });
    expect(await c.subscribe({ collection: 'svc_users', uid: 'd' })).toMatchObject({ type: 'subscribe', status: 'error', error: { code: 'FORBIDDEN' } });
    c.close();
  });

  it('stops sending after unsubscribe', async () => {
    const c = await Client.open(t.wsUrl);
    await c.auth(ADMIN_TOKEN);
    await c.subscribe({ collection: 'tags', uid: 't' });
    c.send({ type: 'unsubscribe', uid: 't' });
    await c.call({ type: 'ping' }, 'pong');
    await t.req('POST', '/items/tags', { id: 'after-unsub', label: 'x' });
    await t.settled();
    await c.call({ type: 'ping' }, 'pong');
    expect(c.events('t')).toEqual([]);
    c.close();
  });

  it('does items CRUD over the socket under the connection permissions', async () => {
    const c = await Client.open(t.wsUrl);
    await c.auth(ADMIN_TOKEN);
    const created = await c.call({ type: 'items', action: 'create', collection: 'tags', data: { id: 'ws-made', label: 'WS' }, uid: '1' });
    expect(created).toMatchObject({ type: 'items', status: 'ok', uid: '1', data: { id: 'ws-made', label: 'WS' } });
    const read = await c.call({ type: 'items', action: 'read', collection: 'tags', id: 'ws-made', uid: '2' });
    expect(read.data).toMatchObject({ id: 'ws-made', label: 'WS' });
    const updated = await c.call({ type: 'items', action: 'update', collection: 'tags', id: 'ws-made', data: { label: 'WS2' }, uid: '3' });
    expect(updated.data).toMatchObject({ label: 'WS2' });
    const deleted = await c.call({ type: 'items', action: 'delete', collection: 'tags', id: 'ws-made', uid: '4' });
    expect(deleted).toMatchObject({ status: 'ok', data: 'ws-made' });
    // The same error REST answers for the same read.
    const rest = await t.req('GET', '/items/nope');
    const missing = await c.call({ type: 'items', action: 'read', collection: 'nope', uid: '5' });
    expect(missing).toMatchObject({ status: 'error', uid: '5', error: { code: rest.body.errors[0].extensions.code } });
    c.close();
  });
});
