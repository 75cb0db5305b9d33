/** Action events on items through the real HTTP app (standalone: the in-process queue): after commit, never for a
 * rolled-back change, with collection, keys, payload and the caller; at least once with duplicates dropped. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { InvalidPayloadError } from '../../core/errors.ts';
import type { ActionContext, EventMeta } from '../../core/events/bus.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

let t: TestApp;
let adminId: string;
const off: (() => void)[] = [];
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  [{ id: adminId }] = await q<{ id: string }>('select id from svc_users where token = $1', [ADMIN_TOKEN]);
});
afterEach(() => { for (const f of off.splice(0)) f(); });
afterAll(async () => { await t.close(); });

interface Call { meta: EventMeta & { event: string }; context: ActionContext }
function record(event: string, fn?: (meta: EventMeta & { event: string }, context: ActionContext) => unknown): Call[] {
  const calls: Call[] = [];
  off.push(t.services.events.action(event, async (meta, context) => {
    calls.push({ meta, context });
    return fn?.(meta, context);
  }));
  return calls;
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
/** Long enough for the in-process queue to have delivered anything that was sent. */
async function settle(): Promise<void> {
  await t.services.events.drain();
  await new Promise((r) => setTimeout(r, 100));
}

describe('action items.create / update / delete', () => {
  it('runs after the write with collection, key(s), payload and the caller', async () => {
    const calls = record('items.create');
    const res = await t.req('POST', '/items/authors', { name: 'Ann', email: 'ann@example.com' });
    expect(res.status).toBe(200);
    await until(() => calls.length === 1);
    const { meta, context } = calls[0];
    expect(meta).toEqual({
      event: 'items.create', collection: 'authors', key: res.body.data, keys: [res.body.data],
      payload: { name: 'Ann', email: 'ann@example.com' },
    });
    expect(context.accountability?.user).toBe(adminId);
    expect(context.event).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), event: 'items.create' });
  });

  it('fires {collection}.items.create too, only for that collection', async () => {
    const authors = record('authors.items.create');
    const tags = record('tags.items.create');
    await t.req('POST', '/items/tags', { id: 'scoped', label: 'S' });
    await until(() => tags.length === 1);
    expect(tags[0].meta).toMatchObject({ event: 'tags.items.create', collection: 'tags', key: 'scoped', keys: ['scoped'] });
    await settle();
    expect(authors).toHaveLength(0);
  });

  it('one event per item of a batch', async () => {
    const calls = record('items.create');
    const res = await t.req('POST', '/items/tags', [{ id: 'ab1' }, { id: 'ab2' }]);
    expect(res.body.data).toEqual(['ab1', 'ab2']);
    await until(() => calls.length === 2);
    expect(calls.map((c) => c.meta.key).sort()).toEqual(['ab1', 'ab2']);
  });

  it('update and delete carry the keys', async () => {
    const updates = record('items.update');
    const deletes = record('tags.items.delete');
    await t.req('POST', '/items/tags', [{ id: 'ud1' }, { id: 'ud2' }]);
    expect((await t.req('PATCH', '/items/tags', { keys: ['ud1', 'ud2'], data: { label: 'U' } })).status).toBe(200);
    expect((await t.req('DELETE', '/items/tags', ['ud1', 'ud2'])).status).toBe(204);
    await until(() => updates.length === 1 && deletes.length === 1);
    expect(updates[0].meta).toMatchObject({ collection: 'tags', keys: ['ud1', 'ud2'], payload: { label: 'U' } });
    expect(deletes[0].meta).toMatchObject({ collection: 'tags', keys: ['ud1', 'ud2'], payload: ['ud1', 'ud2'] });
  });

  it('an event too large for a queue message goes without its payload', async () => {
    const calls = record('authors.items.update');
    const bio = 'x'.repeat(300 * 1024);
    const res = await t.req('PATCH', '/items/authors/3', { bio });
    expect(res.status).toBe(200);
    await until(() => calls.length === 1);
    expect(calls[0].meta).toEqual({ event: 'authors.items.update', collection: 'authors', keys: [3], payloadOmitted: true });
    expect((await q('select length(bio) as n from authors where id = 3'))[0].n).toBe(bio.length);
  });

  it('runs after the commit: a handler reading through another connection sees the rows', async () => {
    // A nested create is one multi-statement transaction.
    const seen: unknown[] = [];
    record('authors.items.create', async (meta) => {
      const rows = await run(t.services.database.db, 'select a.name, p.title from authors a join posts p on p.author = a.id where a.id = $1', [meta.key]);
      seen.push(...rows);
    });
    const res = await t.req('POST', '/items/authors', { name: 'Committed', posts: [{ title: 'Child' }] });
    expect(res.status).toBe(200);
    await until(() => seen.length > 0);
    expect(seen).toEqual([{ name: 'Committed', title: 'Child' }]);
  });

  it('nested rows are item writes of their own collection: posts.items.create filter and action fire for them', async () => {
    const posts = record('posts.items.create');
    off.push(t.services.events.filter('posts.items.create', (payload: Record<string, unknown>) => ({ ...payload, title: `${payload.title} (filtered)` })));
    const res = await t.req('POST', '/items/authors', { name: 'Nester', posts: [{ title: 'First' }, { title: 'Second' }] });
    expect(res.status).toBe(200);
    await until(() => posts.length === 2);
    expect(posts.map((c) => c.meta.payload).map((p) => (p as { title: string }).title).sort()).toEqual(['First (filtered)', 'Second (filtered)']);
    expect(posts.every((c) => (c.meta.payload as { author: unknown }).author === res.body.data)).toBe(true);
    const stored = await q<{ title: string }>('select title from posts where author = $1 order by title', [res.body.data]);
    expect(stored.map((r) => r.title)).toEqual(['First (filtered)', 'Second (filtered)']);
  });

  it('a nested row refused by its filter refuses the whole write', async () => {
    const calls = record('items.create');
    off.push(t.services.events.filter('posts.items.create', () => { throw new InvalidPayloadError('No posts today.'); }));
    const res = await t.req('POST', '/items/authors', { name: 'NestRefused', posts: [{ title: 'x' }] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('No posts today.');
    expect((await q("select count(*)::int as n from authors where name = 'NestRefused'"))[0].n).toBe(0);
    await settle();
    expect(calls).toHaveLength(0);
  });

  it('never runs for a rolled-back change (nested write failing after the row, batch with a bad second item)', async () => {
    const calls = record('items.create');
    const nested = await t.req('POST', '/items/authors', { name: 'RolledBack', email: 'rb@example.com', posts: [{ title: 'c', rating: '1e12' }] });
    expect(nested.status).toBe(400);
    const batch = await t.req('POST', '/items/authors', [{ name: 'RB1', email: 'rb1@example.com' }, { name: 'RB2', email: 'ada@example.com' }]);
    expect(batch.status).toBe(409);
    expect((await q("select count(*)::int as n from authors where name in ('RolledBack', 'RB1', 'RB2')"))[0].n).toBe(0);
    // The same handler does see the next committed write, so silence above is not a dead handler.
    const ok = await t.req('POST', '/items/tags', { id: 'after-rollback' });
    expect(ok.status).toBe(200);
    await until(() => calls.length >= 1);
    await settle();
    expect(calls.map((c) => c.meta.collection)).toEqual(['tags']);
  });

  it('a refused change (filter throws) emits no action', async () => {
    const calls = record('items.create');
    off.push(t.services.events.filter('items.create', () => { throw new Error('refused'); }));
    expect((await t.req('POST', '/items/tags', { id: 'refused-action' })).status).toBe(500);
    await settle();
    expect(calls).toHaveLength(0);
  });
});

describe('at-least-once delivery (in-process queue)', () => {
  it('retries a handler that threw, without running again the handler that already succeeded', async () => {
    const steady = record('tags.items.create');
    let attempts = 0;
    record('tags.items.create', () => {
      attempts += 1;
      if (attempts === 1) throw new Error('transient failure');
    });
    await t.req('POST', '/items/tags', { id: 'retried' });
    await until(() => attempts === 2);
    await settle();
    expect(attempts).toBe(2);
    expect(steady).toHaveLength(1);
  });

  it('a duplicate of an event runs each handler once, even while the first copy is still running', async () => {
    // Slow, so the two deliveries overlap.
    const calls = record('items.create', () => new Promise((r) => setTimeout(r, 100)));
    const event = { id: `dup-${Date.now()}`, event: 'items.create', meta: { collection: 'tags', keys: ['x'] }, accountability: null, emittedAt: new Date().toISOString() };
    await t.services.queue.send({ id: event.id, type: 'event.action', body: event });
    await t.services.queue.send({ id: event.id, type: 'event.action', body: event });
    await until(() => calls.length >= 1);
    await settle();
    await new Promise((r) => setTimeout(r, 500));
    expect(calls).toHaveLength(1);
  });
});
