/** GET /utils/export/{collection}: streamed CSV and JSON under the permissions of GET /items, paged by
 * EXPORT_BATCH_SIZE (keyset on the primary key, or a cursor in one snapshot for other orders), and an export that
 * imports back into an empty copy unchanged. */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { createProducts, errorOf, send } from './helpers.ts';

let t: TestApp;
const BIG = 20_000;

beforeAll(async () => {
  t = await createTestApp({ env: { EXPORT_BATCH_SIZE: '1000' } });
  await createProducts(t);
  await createProducts(t, 'products_copy');
  await createProducts(t, 'products_copy_json');
  const seed = await t.req('POST', '/items/products', [
    { name: 'Lamp', price: 12.5, qty: 3, active: true, tags: ['a', 'b'], meta: { w: 1, nested: { deep: [1, 'x'] } }, released: '2024-05-01', note: null, big: '9007199254740993' },
    { name: 'Desk, "oak"', price: 99, qty: 12, active: false, tags: [], meta: [1, 2], released: null, note: '', big: null },
    { name: 'Chair', price: null, qty: 20, active: null, tags: null, meta: null, released: '2023-01-02', note: 'line 1\nline 2', big: '-5' },
    { name: 'Shelf', price: 45.25, qty: 7, active: true, tags: ['solo'], meta: 'text', released: null, note: 'ünïcødé ✓', big: '0' },
  ]);
  expect(seed.status).toBe(200);
  // 20k rows straight into a table created through the API.
  const big = await t.req('POST', '/collections', {
    collection: 'big', schema: {}, meta: {},
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'label', type: 'string' },
      { field: 'bucket', type: 'integer' },
    ],
  });
  expect(big.status).toBe(200);
  await run(t.services.database.db, `insert into big (label, bucket) select 'row ' || g, g % 7 from generate_series(1, ${BIG}) g`);
  await createContentModel(t.services);
  await createPrincipal(t.services, {
    token: 'partial',
    permissions: [{ collection: 'products', action: 'read', fields: ['id', 'name', 'qty'], permissions: { qty: { _gte: 10 } } }],
  });
  await createPrincipal(t.services, { token: 'writer', permissions: [{ collection: 'products', action: 'create' }] });
});
afterAll(async () => { await t.close(); });

const exportOf = (collection: string, query = '', token: string | null = ADMIN_TOKEN) => send(t, 'GET', `/utils/export/${collection}${query}`, undefined, {}, token);
const itemsOf = async (path: string) => {
  const r = await t.req('GET', path);
  expect(r.status).toBe(200);
  return r.body.data;
};
const csvRows = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

describe('JSON', () => {
  it('is the default: a streamed attachment holding what GET /items returns', async () => {
    const res = await exportOf('products');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="products-\d{8}-\d{6}\.json"$/);
    expect(res.json).toEqual(await itemsOf('/items/products?limit=-1'));
    expect(res.json).toHaveLength(4);
  });

  it('honours fields, filter, sort, search, limit and nested relations', async () => {
    const q = '?fields=id,name,qty&filter[qty][_gt]=5&sort=-price';
    expect((await exportOf('products', q)).json).toEqual(await itemsOf(`/items/products${q}`));
    expect((await exportOf('products', '?fields=name&search=lamp')).json).toEqual([{ name: 'Lamp' }]);
    expect((await exportOf('products', '?fields=id&limit=2&offset=1')).json).toEqual([{ id: 2 }, { id: 3 }]);
    const nested = '?fields=id,title,author.name,comments.text&deep[comments][_sort]=text';
    expect((await exportOf('posts', nested)).json).toEqual(await itemsOf(`/items/posts${nested}&limit=-1`));
  });

  it('an empty selection is an empty array', async () => {
    const res = await exportOf('products', '?filter[qty][_gt]=1000');
    expect(res.status).toBe(200);
    expect(res.text).toBe('[]');
  });
});

describe('CSV', () => {
  it('has a header row of the selected fields; nested values as JSON text, null as an empty cell, "" quoted', async () => {
    const res = await exportOf('products', '?format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="products-\d{8}-\d{6}\.csv"$/);
    const lines = res.text.split('\n');
    expect(lines[0]).toBe('id,name,price,qty,active,tags,meta,released,note,big');
    expect(lines[1]).toBe('1,Lamp,12.5,3,true,"[""a"",""b""]","{""w"":1,""nested"":{""deep"":[1,""x""]}}",2024-05-01,,9007199254740993');
    expect(lines[2]).toBe('2,"Desk, ""oak""",99,12,false,[],"[1,2]",,"",');
    const rows = csvRows(res.text);
    expect(rows).toHaveLength(4);
    expect(rows[2]).toMatchObject({ name: 'Chair', note: 'line 1\nline 2', price: '', active: '' });
    expect(rows[3]).toMatchObject({ note: 'ünïcødé ✓', meta: '"text"' });
  });

  it('honours fields and sort; an empty selection is the header alone', async () => {
    const res = await exportOf('products', '?format=csv&fields=name,qty&sort=-qty');
    expect(res.text).toBe('name,qty\nChair,20\n"Desk, ""oak""",12\nShelf,7\nLamp,3\n');
    expect((await exportOf('products', '?format=csv&fields=name&filter[id][_eq]=999')).text).toBe('name\n');
  });
});

describe('round trip', () => {
  it.each([['csv', 'products_copy'], ['json', 'products_copy_json']])('an export as %s imports into an empty copy unchanged', async (format, copy) => {
    const exported = await exportOf('products', `?format=${format}`);
    expect(exported.status).toBe(200);
    const type = format === 'csv' ? 'text/csv' : 'application/json';
    const imported = await send(t, 'POST', `/utils/import/${copy}`, exported.text, { 'content-type': type });
    expect(imported.status, imported.text).toBe(200);
    const original = await itemsOf('/items/products?limit=-1');
    expect(await itemsOf(`/items/${copy}?limit=-1`)).toEqual(original);
  });
});

describe('permissions', () => {
  it('a role that reads some rows and fields exports only those, in both formats', async () => {
    const json = await exportOf('products', '', 'partial');
    expect(json.status).toBe(200);
    expect(json.json).toEqual([{ id: 2, name: 'Desk, "oak"', qty: 12 }, { id: 3, name: 'Chair', qty: 20 }]);
    const csv = await exportOf('products', '?format=csv', 'partial');
    expect(csv.text).toBe('id,name,qty\n2,"Desk, ""oak""",12\n3,Chair,20\n');
  });

  it('filtering or sorting on a field outside the permission is a 403 before any byte; such a field is dropped from fields', async () => {
    for (const q of ['?filter[price][_gt]=1', '?sort=price', '?search=Desk&filter[note][_null]=true']) {
      const res = await exportOf('products', q, 'partial');
      expect([res.status, errorOf(res).code], q).toEqual([403, 'FORBIDDEN']);
    }
    const items = await t.req('GET', '/items/products?fields=name,price', undefined, { token: 'partial' });
    const res = await exportOf('products', '?fields=name,price', 'partial');
    expect(res.json).toEqual(items.body.data);
    expect(res.json).toEqual([{ name: 'Desk, "oak"' }, { name: 'Chair' }]);
  });

  it('refuses a caller without read permission and an anonymous one', async () => {
    expect((await exportOf('products', '', 'writer')).status).toBe(403);
    expect((await exportOf('products', '', null)).status).toBe(403);
  });

  it('answers an unknown collection with 404 and a bad query with 400', async () => {
    const missing = await exportOf('nope');
    expect([missing.status, errorOf(missing).code]).toEqual([404, 'COLLECTION_NOT_FOUND']);
    const format = await exportOf('products', '?format=xml');
    expect([format.status, errorOf(format).code]).toEqual([400, 'INVALID_QUERY']);
    const field = await exportOf('products', '?fields=colour');
    expect([field.status, errorOf(field).code]).toEqual([400, 'INVALID_QUERY']);
    const aggregate = await exportOf('products', '?aggregate[count]=*');
    expect(aggregate.status).toBe(400);
  });
});

describe('paging (EXPORT_BATCH_SIZE 1000 here)', () => {
  it('20k rows in key order (keyset pages) are complete and ordered', async () => {
    const res = await exportOf('big', '?fields=id,label');
    expect(res.status).toBe(200);
    const data = res.json as { id: number; label: string }[];
    expect(data).toHaveLength(BIG);
    data.forEach((r, i) => {
      if (r.id !== i + 1 || r.label !== `row ${i + 1}`) throw new Error(`row ${i} is ${JSON.stringify(r)}`);
    });
  });

  it('20k rows in descending key order as CSV', async () => {
    const res = await exportOf('big', '?format=csv&fields=id&sort=-id');
    const ids = res.text.trim().split('\n').slice(1).map(Number);
    expect(ids).toHaveLength(BIG);
    expect(ids[0]).toBe(BIG);
    expect(ids.every((id, i) => id === BIG - i)).toBe(true);
  });

  it('20k rows in another order (cursor pages in one snapshot), ties broken by key', async () => {
    const res = await exportOf('big', '?format=csv&fields=id,bucket&sort=-bucket');
    const rows = csvRows(res.text).map((r) => [Number(r.bucket), Number(r.id)]);
    expect(rows).toHaveLength(BIG);
    const expected = Array.from({ length: BIG }, (_, i) => [(i + 1) % 7, i + 1]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    expect(rows).toEqual(expected);
  });

  it('limit and offset across pages, in both paging modes; a filter across keyset pages', async () => {
    const keyset = await exportOf('big', '?fields=id&limit=2500&offset=1500&filter[bucket][_neq]=0');
    const expectedKeyset = Array.from({ length: BIG }, (_, i) => i + 1).filter((id) => id % 7 !== 0).slice(1500, 4000);
    expect((keyset.json as { id: number }[]).map((r) => r.id)).toEqual(expectedKeyset);
    const filtered = await exportOf('big', '?fields=id&filter[bucket][_eq]=3&sort=-id');
    expect((filtered.json as { id: number }[]).map((r) => r.id)).toEqual(Array.from({ length: BIG }, (_, i) => BIG - i).filter((id) => id % 7 === 3));
    const cursor = await exportOf('big', '?fields=id&limit=2500&offset=1500&sort=bucket');
    expect(cursor.json).toEqual(await itemsOf('/items/big?fields=id&limit=2500&offset=1500&sort=bucket,id'));
  });

  it('a client that stops reading releases the export (the server serves on)', async () => {
    for (const q of ['?fields=id', '?fields=id&sort=-bucket']) {
      const res = await t.app.request(`/utils/export/big${q}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      await reader.cancel();
    }
    const after = await t.req('GET', '/items/big?fields=id&limit=1&sort=-id');
    expect(after.body.data).toEqual([{ id: BIG }]);
  });
});
