/** O2M sort_field (svc_relations.sort_field): kept on nested creates and updates, and the default order of
 * nested O2M reads. Also the M2M junction's sort_field, which goes through the same O2M code. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

/** lists 1-* list_items (sorted by list_items.sort), lists *-* tags through lists_tags (sorted by lists_tags.sort),
 * boards 1-* cards (no sort_field: the collection's own order). */
const MODEL = `
create table lists (id serial primary key, name varchar(255));
create table list_items (id serial primary key, list integer references lists(id) on delete set null, label varchar(255), sort integer);
create table tags (id serial primary key, name varchar(64));
create table lists_tags (id serial primary key, lists_id integer references lists(id) on delete cascade,
  tags_id integer references tags(id) on delete cascade, sort integer);
create table boards (id serial primary key, name varchar(255));
create table cards (id serial primary key, board integer references boards(id), label varchar(255), sort integer);
insert into svc_collections (collection, singleton, accountability) values
  ('lists', false, 'all'), ('list_items', false, 'all'), ('tags', false, 'all'), ('lists_tags', false, 'all'),
  ('boards', false, 'all'), ('cards', false, 'all');
insert into svc_fields (collection, field, special) values ('lists', 'items', 'o2m'), ('lists', 'tags', 'm2m'), ('boards', 'cards', 'o2m');
insert into svc_relations (many_collection, many_field, one_collection, one_field, junction_field, sort_field) values
  ('list_items', 'list', 'lists', 'items', null, 'sort'),
  ('lists_tags', 'lists_id', 'lists', 'tags', 'tags_id', 'sort'),
  ('lists_tags', 'tags_id', 'tags', null, 'lists_id', null),
  ('cards', 'board', 'boards', 'cards', null, null);
`;

async function itemsOf(list: number) {
  return q<{ label: string; sort: number | null }>('select label, sort from list_items where list = $1 order by id', [list]);
}

async function readLabels(list: number, query = '', token?: string) {
  const res = await t.req('GET', `/items/lists/${list}?fields=items.label${query}`, undefined, token ? { token } : {});
  expect(res.status).toBe(200);
  return res.body.data.items.map((i: { label: string }) => i.label);
}

beforeAll(async () => {
  t = await createTestApp();
  await run(t.services.database.db, MODEL);
  await t.services.schema.invalidate();
});
afterAll(async () => { await t.close(); });

describe('nested creates', () => {
  it('array shape: new children get 1, 2, 3... in payload order; an explicit value is kept and later children follow it', async () => {
    const res = await t.req('POST', '/items/lists', { name: 'groceries', items: [{ label: 'a' }, { label: 'b' }, { label: 'c', sort: 10 }, { label: 'd' }] });
    expect(res.status).toBe(200);
    expect(await itemsOf(res.body.data)).toEqual([
      { label: 'a', sort: 1 }, { label: 'b', sort: 2 }, { label: 'c', sort: 10 }, { label: 'd', sort: 11 },
    ]);
    expect(await readLabels(res.body.data)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('{create} shape on a new parent starts at 1; an explicit null is kept', async () => {
    const res = await t.req('POST', '/items/lists', { name: 'x', items: { create: [{ label: 'a' }, { label: 'b', sort: null }, { label: 'c' }] } });
    expect(res.status).toBe(200);
    expect(await itemsOf(res.body.data)).toEqual([{ label: 'a', sort: 1 }, { label: 'b', sort: null }, { label: 'c', sort: 2 }]);
  });

  it('a batch of parents: each parent numbers its own children', async () => {
    const res = await t.req('POST', '/items/lists', [{ name: 'p1', items: [{ label: 'a' }] }, { name: 'p2', items: [{ label: 'b' }, { label: 'c' }] }]);
    expect(res.status).toBe(200);
    const [p1, p2] = res.body.data;
    expect(await itemsOf(p1)).toEqual([{ label: 'a', sort: 1 }]);
    expect(await itemsOf(p2)).toEqual([{ label: 'b', sort: 1 }, { label: 'c', sort: 2 }]);
  });
});

describe('nested updates', () => {
  it('{create} appends after the highest existing value, in payload order', async () => {
    const list = (await t.req('POST', '/items/lists', { name: 'l' })).body.data;
    await q('insert into list_items (list, label, sort) values ($1, $2, 7), ($1, $3, 3), ($1, $4, null)', [list, 'x', 'y', 'z']);
    const res = await t.req('PATCH', `/items/lists/${list}`, { items: { create: [{ label: 'e' }, { label: 'f' }] } });
    expect(res.status).toBe(200);
    expect((await itemsOf(list)).slice(3)).toEqual([{ label: 'e', sort: 8 }, { label: 'f', sort: 9 }]);
    expect(await readLabels(list)).toEqual(['y', 'x', 'e', 'f', 'z']);
  });

  it('array shape: children already linked keep their value, new and newly linked ones are appended', async () => {
    const list = (await t.req('POST', '/items/lists', { name: 'l', items: [{ label: 'a' }, { label: 'b' }] })).body.data;
    const other = (await t.req('POST', '/items/lists', { name: 'other', items: [{ label: 'moved' }] })).body.data;
    const [a, b] = (await q<{ id: number }>('select id from list_items where list = $1 order by id', [list])).map((r) => r.id);
    const [moved] = (await q<{ id: number }>('select id from list_items where list = $1', [other])).map((r) => r.id);
    const res = await t.req('PATCH', `/items/lists/${list}`, { items: [b, a, { label: 'c' }, moved, { id: a, label: 'a2' }] });
    expect(res.status).toBe(200);
    expect(await q('select id, label, sort from list_items where list = $1 order by id', [list])).toEqual([
      { id: a, label: 'a2', sort: 1 }, { id: b, label: 'b', sort: 2 }, { id: moved, label: 'moved', sort: 4 }, { id: moved + 1, label: 'c', sort: 3 },
    ]);
    expect(await readLabels(list)).toEqual(['a2', 'b', 'c', 'moved']);
  });

  it('{update}: an explicit value is kept (reordering); a child moved in from another parent is appended', async () => {
    const list = (await t.req('POST', '/items/lists', { name: 'l', items: [{ label: 'a' }, { label: 'b' }] })).body.data;
    const other = (await t.req('POST', '/items/lists', { name: 'other', items: [{ label: 'o1' }, { label: 'o2' }] })).body.data;
    const [a, b] = (await q<{ id: number }>('select id from list_items where list = $1 order by id', [list])).map((r) => r.id);
    const [, o2] = (await q<{ id: number }>('select id from list_items where list = $1 order by id', [other])).map((r) => r.id);
    const res = await t.req('PATCH', `/items/lists/${list}`, { items: { update: [{ id: a, sort: 5 }, { id: b, label: 'b2' }, { id: o2 }] } });
    expect(res.status).toBe(200);
    expect(await q('select id, sort from list_items where id = any($1::int4[]) order by id', [[a, b, o2]])).toEqual([
      { id: a, sort: 5 }, { id: b, sort: 2 }, { id: o2, sort: 6 },
    ]);
    expect(await readLabels(list)).toEqual(['b2', 'a', 'o2']);
  });

  it('a bad sort value is 400 INVALID_PAYLOAD and nothing is written', async () => {
    const before = await q('select count(*)::int as n from list_items');
    const lists = await q('select count(*)::int as n from lists');
    const res = await t.req('POST', '/items/lists', { name: 'bad', items: [{ label: 'ok' }, { label: 'bad', sort: 'first' }] });
    expect(res.status).toBe(400);
    expect(code(res)).toBe('INVALID_PAYLOAD');
    expect(await q('select count(*)::int as n from list_items')).toEqual(before);
    expect(await q('select count(*)::int as n from lists')).toEqual(lists);
  });

  it('relations without a sort_field are left alone', async () => {
    const res = await t.req('POST', '/items/boards', { name: 'b', cards: [{ label: 'x' }, { label: 'y' }] });
    expect(res.status).toBe(200);
    expect(await q('select sort from cards where board = $1', [res.body.data])).toEqual([{ sort: null }, { sort: null }]);
  });
});

describe('M2M junction sort_field', () => {
  it('junction rows are numbered in payload order on create and appended on update; reads follow it', async () => {
    const [{ id: existing }] = await q<{ id: number }>("insert into tags (name) values ('zeta') returning id");
    const res = await t.req('POST', '/items/lists', { name: 'tagged', tags: [{ tags_id: { name: 'new' } }, { tags_id: existing }] });
    expect(res.status).toBe(200);
    const list = res.body.data;
    expect(await q('select tags_id, sort from lists_tags where lists_id = $1 order by id', [list])).toEqual([
      { tags_id: expect.any(Number), sort: 1 }, { tags_id: existing, sort: 2 },
    ]);
    expect((await t.req('PATCH', `/items/lists/${list}`, { tags: { create: [{ tags_id: { name: 'alpha' } }] } })).status).toBe(200);
    const read = await t.req('GET', `/items/lists/${list}?fields=tags.tags_id.name`);
    expect(read.body.data.tags.map((j: any) => j.tags_id.name)).toEqual(['new', 'zeta', 'alpha']);
    // Reversing the junction's order is a matter of explicit values.
    const rows = await q<{ id: number }>('select id from lists_tags where lists_id = $1 order by id', [list]);
    await t.req('PATCH', `/items/lists/${list}`, { tags: { update: rows.map((r, i) => ({ id: r.id, sort: 10 - i })) } });
    const reversed = await t.req('GET', `/items/lists/${list}?fields=tags.tags_id.name`);
    expect(reversed.body.data.tags.map((j: any) => j.tags_id.name)).toEqual(['alpha', 'zeta', 'new']);
  });
});

describe('nested O2M reads', () => {
  it('follow the sort_field (nulls last, ties by key); deep _sort overrides it', async () => {
    const list = (await t.req('POST', '/items/lists', { name: 'read' })).body.data;
    await q(`insert into list_items (list, label, sort) values ($1, 'c', 3), ($1, 'n', null), ($1, 'a', 1), ($1, 'b2', 2), ($1, 'b1', 2)`, [list]);
    expect(await readLabels(list)).toEqual(['a', 'b2', 'b1', 'c', 'n']);
    expect(await readLabels(list, '&deep[items][_sort]=-label')).toEqual(['n', 'c', 'b2', 'b1', 'a']);
    const keys = await t.req('GET', `/items/lists/${list}?fields=items`);
    const ids = (await q<{ id: number }>('select id from list_items where list = $1 order by sort nulls last, id', [list])).map((r) => r.id);
    expect(keys.body.data.items).toEqual(ids);
  });
});

describe('permissions', () => {
  it('without write access to the sort field, nested writes still work (the value is not set); reads need no access to it', async () => {
    const { user } = await createPrincipal(t.services, {
      token: 'o2m-sort-editor',
      permissions: [
        { collection: 'lists', action: 'create' },
        { collection: 'lists', action: 'read' },
        { collection: 'list_items', action: 'create', fields: ['label', 'list'] },
        { collection: 'list_items', action: 'read', fields: ['id', 'label', 'list'] },
      ],
    });
    expect(user).toBeTruthy();
    const res = await t.req('POST', '/items/lists', { name: 'limited', items: [{ label: 'a' }, { label: 'b' }] }, { token: 'o2m-sort-editor' });
    expect(res.status).toBe(200);
    expect(await itemsOf(res.body.data)).toEqual([{ label: 'a', sort: null }, { label: 'b', sort: null }]);
    // Setting the field explicitly is still refused, as any field outside the permission.
    const refused = await t.req('POST', '/items/lists', { name: 'x', items: [{ label: 'a', sort: 1 }] }, { token: 'o2m-sort-editor' });
    expect(refused.status).toBe(403);

    await q('update list_items set sort = 3 - id + (select min(id) from list_items where list = $1) where list = $1', [res.body.data]);
    expect(await readLabels(res.body.data, '', 'o2m-sort-editor')).toEqual(['b', 'a']);
    // Sorting on it by choice is refused like any unreadable field.
    const chosen = await t.req('GET', `/items/lists/${res.body.data}?fields=items.label&deep[items][_sort]=sort`, undefined, { token: 'o2m-sort-editor' });
    expect(chosen.status).toBe(403);
  });
});
