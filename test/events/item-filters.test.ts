/** Filter events on items (SPEC.md > Events 2) through the real HTTP app: they run inline before the write, may
 * change the payload and may refuse the change by throwing. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { InvalidPayloadError } from '../../core/errors.ts';
import type { EventMeta, FilterContext } from '../../core/events/bus.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

let t: TestApp;
let adminId: string;
const off: (() => void)[] = [];
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const count = async (sql: string, params: unknown[] = []) => Number((await q<{ n: number }>(`select count(*)::int as n from ${sql}`, params))[0].n);
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  [{ id: adminId }] = await q<{ id: string }>('select id from svc_users where token = $1', [ADMIN_TOKEN]);
});
afterEach(() => { for (const f of off.splice(0)) f(); });
afterAll(async () => { await t.close(); });

interface Call { payload: any; meta: EventMeta & { event: string }; context: FilterContext }
function record(event: string, change?: (payload: any) => unknown): Call[] {
  const calls: Call[] = [];
  off.push(t.services.events.filter(event, (payload, meta, context) => {
    calls.push({ payload: structuredClone(payload), meta, context });
    return change?.(payload);
  }));
  return calls;
}

describe('filter items.create', () => {
  it('changes the payload: the stored row shows the returned one', async () => {
    const calls = record('items.create', (p) => ({ ...p, name: String(p.name).toUpperCase(), bio: 'set by filter' }));
    const res = await t.req('POST', '/items/authors', { name: 'eve', email: 'eve@example.com' });
    expect(res.status).toBe(200);
    const [row] = await q('select name, bio from authors where id = $1', [res.body.data]);
    expect(row).toEqual({ name: 'EVE', bio: 'set by filter' });
    expect(calls).toHaveLength(1);
    expect(calls[0].payload).toEqual({ name: 'eve', email: 'eve@example.com' });
    expect(calls[0].meta).toMatchObject({ event: 'items.create', collection: 'authors' });
    expect(calls[0].context.accountability.user).toBe(adminId);
    // The activity row and revision record what was written, i.e. the filtered payload.
    const [rev] = await q("select r.delta from svc_revisions r join svc_activity a on a.id = r.activity where a.collection = 'authors' and a.item = $1", [String(res.body.data)]);
    expect(rev.delta).toMatchObject({ name: 'EVE', bio: 'set by filter' });
  });

  it('runs each filter on the payload the previous one returned, then the collection-scoped one', async () => {
    record('items.create', (p) => ({ ...p, label: `${p.label}+general` }));
    const scoped = record('tags.items.create', (p) => ({ ...p, label: `${p.label}+scoped` }));
    const other = record('authors.items.create');
    const res = await t.req('POST', '/items/tags', { id: 'filtered', label: 'L' });
    expect(res.status).toBe(200);
    expect((await q("select label from tags where id = 'filtered'"))[0].label).toBe('L+general+scoped');
    expect(scoped[0].payload).toEqual({ id: 'filtered', label: 'L+general' });
    expect(other).toHaveLength(0);
  });

  it('runs per item of a batch', async () => {
    const calls = record('items.create', (p) => ({ ...p, label: 'batch' }));
    const res = await t.req('POST', '/items/tags', [{ id: 'fb1' }, { id: 'fb2' }]);
    expect(res.status).toBe(200);
    expect(calls.map((c) => c.payload)).toEqual([{ id: 'fb1' }, { id: 'fb2' }]);
    expect(await count("tags where id in ('fb1', 'fb2') and label = 'batch'")).toBe(2);
  });

  it('a filter that throws refuses the change: 400, no row, no activity', async () => {
    record('items.create', (p) => {
      if (p.name === 'refused') throw new InvalidPayloadError('Names like that are not allowed');
    });
    const authors = await count('authors');
    const activity = await count("svc_activity where collection = 'authors'");
    const res = await t.req('POST', '/items/authors', { name: 'refused', email: 'refused@example.com' });
    expect(res.status).toBe(400);
    expect(code(res)).toBe('INVALID_PAYLOAD');
    expect(res.body.errors[0].message).toBe('Names like that are not allowed');
    expect(await count('authors')).toBe(authors);
    expect(await count("authors where name = 'refused'")).toBe(0);
    expect(await count("svc_activity where collection = 'authors'")).toBe(activity);

    // Refusing one item of a batch refuses the whole batch.
    const batch = await t.req('POST', '/items/authors', [{ name: 'fine' }, { name: 'refused' }]);
    expect(batch.status).toBe(400);
    expect(await count("authors where name in ('fine', 'refused')")).toBe(0);
    expect(await count("svc_activity where collection = 'authors'")).toBe(activity);
  });

  it('a filter that throws a plain Error is a 500 that still writes nothing', async () => {
    record('items.create', () => { throw new Error('hook bug'); });
    const res = await t.req('POST', '/items/tags', { id: 'never' });
    expect(res.status).toBe(500);
    expect(await count("tags where id = 'never'")).toBe(0);
  });
});

describe('filter items.update', () => {
  it('sees payload and keys, and may change the payload', async () => {
    const calls = record('items.update', (p) => ({ ...p, age: 99 }));
    const res = await t.req('PATCH', '/items/authors/1', { bio: 'updated' });
    expect(res.status).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0].payload).toEqual({ bio: 'updated' });
    expect(calls[0].meta).toMatchObject({ event: 'items.update', collection: 'authors', keys: [1] });
    expect((await q('select bio, age from authors where id = 1'))[0]).toEqual({ bio: 'updated', age: 99 });
  });

  it('gets every key of a keys + data update', async () => {
    const calls = record('authors.items.update');
    const res = await t.req('PATCH', '/items/authors', { keys: [1, 2], data: { score: 1.5 } });
    expect(res.status).toBe(200);
    expect(calls[0].payload).toEqual({ score: 1.5 });
    expect(calls[0].meta.keys).toEqual([1, 2]);
  });

  it('refuses by throwing: the row stays as it was', async () => {
    record('items.update', () => { throw new InvalidPayloadError('frozen'); });
    const before = (await q('select name from authors where id = 2'))[0].name;
    const res = await t.req('PATCH', '/items/authors/2', { name: 'Changed' });
    expect(res.status).toBe(400);
    expect((await q('select name from authors where id = 2'))[0].name).toBe(before);
  });
});

describe('filter items.delete', () => {
  it('receives the keys as payload and may refuse', async () => {
    await t.req('POST', '/items/tags', [{ id: 'd1' }, { id: 'd2' }, { id: 'd3' }]);
    const calls = record('items.delete', (keys: string[]) => {
      if (keys.includes('d3')) throw new InvalidPayloadError('d3 is protected');
    });
    const one = await t.req('DELETE', '/items/tags/d1');
    expect(one.status).toBe(204);
    expect(calls[0].payload).toEqual(['d1']);
    expect(calls[0].meta).toMatchObject({ event: 'items.delete', collection: 'tags' });

    const refused = await t.req('DELETE', '/items/tags', ['d2', 'd3']);
    expect(refused.status).toBe(400);
    expect(calls[1].payload).toEqual(['d2', 'd3']);
    expect(await count("tags where id in ('d2', 'd3')")).toBe(2);
    expect(await count("tags where id = 'd1'")).toBe(0);
  });

  it('may narrow the keys that are deleted', async () => {
    await t.req('POST', '/items/tags', [{ id: 'n1' }, { id: 'n2' }]);
    record('tags.items.delete', (keys: string[]) => keys.filter((k) => k !== 'n2'));
    const res = await t.req('DELETE', '/items/tags', ['n1', 'n2']);
    expect(res.status).toBe(204);
    expect((await q("select id from tags where id in ('n1', 'n2')")).map((r) => r.id)).toEqual(['n2']);
  });
});
