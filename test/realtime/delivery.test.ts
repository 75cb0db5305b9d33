/** Delivery: resume after a reconnect (since / Last-Event-ID) within the retention and `resync` beyond it; one read
 * per subscriber group however many subscribers share it; slow consumers dropped without holding up the others;
 * the SSE endpoint. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareIds } from '../../core/realtime/change.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { statementsOn } from '../helpers/statements.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { Client, startRealtimeApp, until, type Msg, type RealtimeApp } from './helpers.ts';

let t: RealtimeApp;

beforeAll(async () => {
  t = await startRealtimeApp({ env: { REALTIME_RETENTION_EVENTS: '100', WEBSOCKETS_MAX_BUFFER: '64kb' } });
  await createContentModel(t.services);
});
afterAll(async () => { await t?.close(); });

async function tagsClient(uid: string, extra: Msg = {}): Promise<{ c: Client; first: Msg }> {
  const c = await Client.open(t.wsUrl);
  await c.auth(ADMIN_TOKEN);
  const first = await c.subscribe({ collection: 'tags', uid, query: { fields: ['id', 'label'] }, ...extra });
  return { c, first };
}

describe('resume', () => {
  it('replays exactly what was missed, in order, without init, then goes on live', async () => {
    const { c } = await tagsClient('r');
    await t.req('POST', '/items/tags', { id: 'r-1', label: 'one' });
    const seen = await c.next((m) => m.uid === 'r' && m.event === 'create');
    c.close();

    await t.req('POST', '/items/tags', { id: 'r-2', label: 'two' });
    await t.req('PATCH', '/items/tags/r-1', { label: 'one!' });
    await t.req('DELETE', '/items/tags/r-2');
    await t.settled();

    // A replay reads the rows as they are now: r-2, created and deleted while the client was away, is only its
    // delete (its row is gone); r-1's update carries its current row.
    const { c: back, first } = await tagsClient('r', { since: seen.id });
    expect(first).toMatchObject({ event: 'update', data: [{ id: 'r-1', label: 'one!' }] });
    const del = await back.next((m) => m.uid === 'r' && m.event === 'delete');
    expect(del.data).toEqual(['r-2']);
    await t.req('POST', '/items/tags', { id: 'r-4', label: 'four' });
    await t.settled();
    const { c: third, first: replayed } = await tagsClient('r', { since: del.id });
    expect(replayed).toMatchObject({ event: 'create', data: [{ id: 'r-4', label: 'four' }] });
    third.close();
    await t.req('POST', '/items/tags', { id: 'r-3', label: 'three' });
    const live = await back.next((m) => m.uid === 'r' && m.event === 'create' && m.data[0]?.id === 'r-3');
    expect(live.data).toEqual([{ id: 'r-3', label: 'three' }]);
    const ids = back.events('r').map((m) => m.id);
    expect([...ids].sort(compareIds)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(back.messages.some((m) => m.event === 'init')).toBe(false);
    back.close();
  });

  it('a gap beyond the retention is a resync followed by a fresh init', async () => {
    const { c } = await tagsClient('g');
    await t.req('POST', '/items/tags', { id: 'g-0', label: 'x' });
    const seen = await c.next((m) => m.uid === 'g' && m.event === 'create');
    c.close();
    // REALTIME_RETENTION_EVENTS is 100 here: 300 changes push the last seen one out (a Redis stream trims in whole
    // nodes of 100 entries, so it keeps at least 100 and may keep up to about 200).
    for (let i = 0; i < 300; i++) await t.req('PATCH', '/items/tags/g-0', { label: `x${i}` });
    await t.settled();
    const { c: back, first } = await tagsClient('g', { since: seen.id });
    expect(first).toEqual({ type: 'subscription', event: 'resync', uid: 'g' });
    const init = await back.next((m) => m.uid === 'g' && m.event === 'init');
    expect(init.data).toContainEqual({ id: 'g-0', label: 'x299' });
    back.close();
  });

  it('an id this log never handed out is a resync too; a malformed one is refused', async () => {
    const { c, first } = await tagsClient('f', { since: `${Date.now() + 3_600_000}-1` });
    expect(first).toMatchObject({ event: 'resync' });
    expect(await c.subscribe({ collection: 'tags', uid: 'm', since: 'yesterday' })).toMatchObject({ type: 'subscribe', status: 'error', error: { code: 'INVALID_PAYLOAD' } });
    // A resuming subscription's query is checked as an init's would be, though it reads no init.
    const head = await t.services.changes.head();
    expect(await c.subscribe({ collection: 'tags', uid: 'q', since: head, query: { filter: { nope: { _eq: 1 } } } }))
      .toMatchObject({ type: 'subscribe', status: 'error', uid: 'q' });
    c.close();
  });
});

describe('fan-out', () => {
  it('subscribers with the same permissions and query share one read per change; other queries get their own', async () => {
    await createPrincipal(t.services, { token: 'fan-reader', permissions: [{ collection: 'tags', action: 'read' }] });
    const same: Client[] = [];
    for (let i = 0; i < 20; i++) {
      const c = await Client.open(t.wsUrl);
      // Ten on the admin's token, ten of another role: two groups.
      await c.auth(i % 2 ? ADMIN_TOKEN : 'fan-reader');
      await c.subscribe({ collection: 'tags', uid: 'fan', query: { fields: ['id', 'label'] } });
      same.push(c);
    }
    const other = await Client.open(t.wsUrl);
    await other.auth(ADMIN_TOKEN);
    await other.subscribe({ collection: 'tags', uid: 'fan', query: { fields: ['label'] } });

    const reads = await statementsOn(['tags'], async () => {
      await t.req('POST', '/items/tags', { id: 'fan-1', label: 'fan' });
      await Promise.all([...same, other].map((c) => c.next((m) => m.uid === 'fan' && m.event === 'create')));
    });
    const selects = reads.filter((sql) => /^\s*(\/\*[^*]*\*\/\s*)?select/i.test(sql));
    // Three groups (admin with both field lists, the reader role): three reads, not 21.
    expect(selects.length, selects.join('\n')).toBe(3);
    expect(other.messages.find((m) => m.event === 'create')!.data).toEqual([{ label: 'fan' }]);

    const deletes = await statementsOn(['tags'], async () => {
      await t.req('DELETE', '/items/tags/fan-1');
      await Promise.all(same.map((c) => c.next((m) => m.uid === 'fan' && m.event === 'delete')));
    });
    // Only the delete statement itself: a delete event needs no read.
    expect(deletes.filter((sql) => /^\s*(\/\*[^*]*\*\/\s*)?select/i.test(sql))).toEqual([]);
    for (const c of [...same, other]) c.close();
  });

  it('a client that stops reading is dropped after a bounded buffer; the others get every event', async () => {
    const slow = await Client.open(t.wsUrl);
    await slow.auth(ADMIN_TOKEN);
    await slow.subscribe({ collection: 'posts', uid: 's' });
    const fast = await Client.open(t.wsUrl);
    await fast.auth(ADMIN_TOKEN);
    await fast.subscribe({ collection: 'posts', uid: 's', query: { fields: ['id'] } });
    // Stop reading the slow client's socket: the server's buffer for it grows until the limit (64 KiB here).
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    // Loopback's socket buffers take a few MB before the server's own buffer grows: send well beyond that.
    const body = 'x'.repeat(200_000);
    const n = 50;
    for (let i = 0; i < n; i++) await t.req('POST', '/items/posts', { title: `slow ${i}`, body });
    // Counted in rows: changes fanned out together arrive as one message.
    const rows = (c: Client) => c.events('s').reduce((sum, m) => sum + (m.data as unknown[]).length, 0);
    await until(() => rows(fast) === n, 15_000, 'the fast client to get every event');
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await until(() => slow.closed !== null, 10_000, 'the slow client to be closed');
    expect(slow.closed!.code).toBe(1013);
    expect(rows(slow)).toBeLessThan(n);
    fast.close();
  });
});

/** Reads an SSE response until `count` events arrived. */
async function sseEvents(res: Response, count: number): Promise<{ id?: string; event: string; data: unknown }[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const out: { id?: string; event: string; data: unknown }[] = [];
  while (out.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const e: { id?: string; event: string; data: unknown } = { event: 'message', data: null };
      let isEvent = false;
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) e.id = line.slice(3).trim();
        else if (line.startsWith('event:')) { e.event = line.slice(6).trim(); isEvent = true; } else if (line.startsWith('data:')) { e.data = JSON.parse(line.slice(5)); isEvent = true; }
      }
      if (isEvent) out.push(e);
    }
  }
  await reader.cancel();
  return out;
}

describe('server-sent events', () => {
  it('streams init and changes with ids, and resumes from Last-Event-ID', async () => {
    const ctrl = new AbortController();
    const res = await fetch(`${t.url}/realtime?collection=tags&query=${encodeURIComponent(JSON.stringify({ fields: ['id', 'label'], filter: { id: { _starts_with: 'sse-' } } }))}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: ctrl.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reading = sseEvents(res, 3);
    await t.req('POST', '/items/tags', { id: 'sse-1', label: 'a' });
    await t.req('POST', '/items/tags', { id: 'other', label: 'not mine' });
    await t.req('PATCH', '/items/tags/sse-1', { label: 'b' });
    const events = await reading;
    expect(events.map((e) => e.event)).toEqual(['init', 'create', 'update']);
    expect(events[1].data).toEqual([{ id: 'sse-1', label: 'a' }]);
    ctrl.abort();

    await t.req('DELETE', '/items/tags/sse-1');
    await t.settled();
    const again = await fetch(`${t.url}/realtime?collection=tags&access_token=${ADMIN_TOKEN}&query=${encodeURIComponent(JSON.stringify({ fields: ['id', 'label'] }))}`, {
      headers: { 'last-event-id': events[2].id! },
    });
    const missed = await sseEvents(again, 1);
    expect(missed).toEqual([{ id: expect.any(String), event: 'delete', data: ['sse-1'] }]);
  });

  it('answers a bad subscription as REST answers a bad read, before the stream starts', async () => {
    const forbidden = await fetch(`${t.url}/realtime?collection=tags`);
    expect(forbidden.status).toBe(403);
    const bad = await fetch(`${t.url}/realtime?collection=tags&query=%7Bnope`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors[0].extensions.code).toBe('INVALID_QUERY');
  });
});
