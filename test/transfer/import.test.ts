/** POST /utils/import/{collection}: CSV and JSON, multipart and raw bodies, one transaction for the whole file, errors
 * naming the row and field, every malformed input a 4xx (and the server serving on). */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { activityOf, createProducts, errorOf, fileForm, rowsOf, send } from './helpers.ts';

let t: TestApp;
const off: (() => void)[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { IMPORT_BATCH_SIZE: '500', IMPORT_MAX_LINE_SIZE: '2kb', IMPORT_MAX_SIZE: '300kb' } });
  await createProducts(t);
  await createPrincipal(t.services, { token: 'importer', permissions: [{ collection: 'products', action: 'create', presets: { note: 'preset' } }] });
  await createPrincipal(t.services, { token: 'narrow-importer', permissions: [{ collection: 'products', action: 'create', fields: ['name', 'price'] }] });
  await createPrincipal(t.services, { token: 'reader', permissions: [{ collection: 'products', action: 'read' }] });
});
afterEach(async () => {
  for (const f of off.splice(0)) f();
  await run(t.services.database.db, 'truncate products restart identity');
  await run(t.services.database.db, "delete from svc_activity where collection = 'products'");
});
afterAll(async () => { await t.close(); });

const csvHeaders = { 'content-type': 'text/csv' };
const jsonHeaders = { 'content-type': 'application/json' };
const items = async () => (await t.req('GET', '/items/products?sort=id&limit=-1')).body.data;

/** Records the action events of a successful or failed import. */
function recordCreates(): unknown[] {
  const calls: unknown[] = [];
  off.push(t.services.events.action('products.items.create', (meta) => { calls.push(meta.key); }));
  return calls;
}
async function settle(): Promise<void> {
  await t.services.events.drain();
  await new Promise((r) => setTimeout(r, 100));
}

describe('CSV', () => {
  it('imports a raw text/csv body with cells converted per field type, one activity row per item', async () => {
    const csv = [
      'name,price,qty,active,tags,meta,released,note,big',
      'Lamp,12.5,3,true,"a,b","{""w"":1}",2024-05-01,,9007199254740993',
      '"Desk, oak",99,0,0,"[""x""]",[1],2024-06-30,"",',
      'Chair,,,false,,,,"line 1\nline 2",',
    ].join('\n');
    const res = await send(t, 'POST', '/utils/import/products', csv, csvHeaders);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('');
    expect(await items()).toEqual([
      { id: 1, name: 'Lamp', price: 12.5, qty: 3, active: true, tags: ['a', 'b'], meta: { w: 1 }, released: '2024-05-01', note: null, big: '9007199254740993' },
      { id: 2, name: 'Desk, oak', price: 99, qty: 0, active: false, tags: ['x'], meta: [1], released: '2024-06-30', note: '', big: null },
      { id: 3, name: 'Chair', price: null, qty: null, active: false, tags: null, meta: null, released: null, note: 'line 1\nline 2', big: null },
    ]);
    expect(await activityOf(t, 'products')).toBe(3);
  });

  it('imports a multipart file part (as Directus), content type from the part or its .csv extension', async () => {
    const byType = await send(t, 'POST', '/utils/import/products', fileForm('name,qty\nA,1\nB,2\n', 'x.txt', 'text/csv'));
    expect(byType.status, byType.text).toBe(200);
    const byName = await send(t, 'POST', '/utils/import/products', fileForm('name,qty\nC,3\n', 'more.csv', 'application/vnd.ms-excel'));
    expect(byName.status, byName.text).toBe(200);
    expect((await items()).map((r: any) => [r.name, r.qty])).toEqual([['A', 1], ['B', 2], ['C', 3]]);
  });

  it('strips a byte-order mark and accepts CRLF line ends', async () => {
    const res = await send(t, 'POST', '/utils/import/products', '\ufeffname,qty\r\nA,1\r\nB,2\r\n', csvHeaders);
    expect(res.status, res.text).toBe(200);
    expect((await items()).map((r: any) => r.name)).toEqual(['A', 'B']);
  });

  it('a header-only file imports nothing; an empty file is a 400', async () => {
    expect((await send(t, 'POST', '/utils/import/products', 'name,qty\n', csvHeaders)).status).toBe(200);
    const empty = await send(t, 'POST', '/utils/import/products', '', csvHeaders);
    expect(empty.status).toBe(400);
    expect(errorOf(empty)).toEqual({ code: 'INVALID_PAYLOAD', message: 'Invalid payload. The file is empty.' });
    expect(await rowsOf(t, 'products')).toBe(0);
  });

  it('names an unknown or repeated column', async () => {
    const unknown = await send(t, 'POST', '/utils/import/products', 'name,colour\nA,red\n', csvHeaders);
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown).message).toContain('column "colour" is not a field of "products"');
    const twice = await send(t, 'POST', '/utils/import/products', 'name,name\nA,B\n', csvHeaders);
    expect(twice.status).toBe(400);
    expect(errorOf(twice).message).toContain('"name" appears twice');
  });

  it('refuses unbalanced quotes, naming the line', async () => {
    const res = await send(t, 'POST', '/utils/import/products', 'name,qty\nA,1\n"B,2\nC,3\n', csvHeaders);
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe('INVALID_PAYLOAD');
    expect(errorOf(res).message).toMatch(/CSV error at line \d+: Quote Not Closed/);
    expect(await rowsOf(t, 'products')).toBe(0);
  });

  it('refuses a row with the wrong number of cells, naming the line', async () => {
    const res = await send(t, 'POST', '/utils/import/products', 'name,qty\nA,1\nB,2,3\n', csvHeaders);
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toContain('CSV error at line 3: Invalid Record Length');
    expect(await rowsOf(t, 'products')).toBe(0);
  });

  it('refuses a record longer than IMPORT_MAX_LINE_SIZE (2kb here)', async () => {
    const res = await send(t, 'POST', '/utils/import/products', `name,note\nA,short\nB,${'x'.repeat(5000)}\n`, csvHeaders);
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toContain('CSV error at line 3: Max Record Size');
    expect(await rowsOf(t, 'products')).toBe(0);
  });
});

describe('JSON', () => {
  it('imports a raw application/json array, values as given', async () => {
    const res = await send(t, 'POST', '/utils/import/products', JSON.stringify([
      { name: 'Lamp', price: 12.5, qty: 3, active: true, tags: ['a', 'b'], meta: { w: [1, 2] } },
      { name: 'Desk', price: '7.25', released: '2024-01-31' },
    ]), jsonHeaders);
    expect(res.status, res.text).toBe(200);
    expect(await items()).toMatchObject([
      { id: 1, name: 'Lamp', price: 12.5, qty: 3, active: true, tags: ['a', 'b'], meta: { w: [1, 2] } },
      { id: 2, name: 'Desk', price: 7.25, released: '2024-01-31', qty: null },
    ]);
    expect(await activityOf(t, 'products')).toBe(2);
  });

  it('imports a multipart .json file part', async () => {
    const res = await send(t, 'POST', '/utils/import/products', fileForm('[{"name":"A"},{"name":"B"}]', 'rows.json', 'application/json'));
    expect(res.status, res.text).toBe(200);
    expect(await rowsOf(t, 'products')).toBe(2);
  });

  it.each([
    ['malformed JSON', '[{"name":"A"},{"name":', 'Malformed JSON'],
    ['a top-level object', '{"name":"A"}', 'must be an array of objects'],
    ['an element that is not an object', '[{"name":"A"}, 5]', 'Row 2: an item must be an object'],
    ['an empty body', '', 'The file is empty'],
  ])('refuses %s with 400 INVALID_PAYLOAD and keeps nothing', async (_, body, message) => {
    const res = await send(t, 'POST', '/utils/import/products', body, jsonHeaders);
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe('INVALID_PAYLOAD');
    expect(errorOf(res).message).toContain(message);
    expect(await rowsOf(t, 'products')).toBe(0);
  });
});

describe('all or nothing', () => {
  it('a file whose row 1200 of 1500 is bad (batches of 500) keeps no row, no activity and fires no event', async () => {
    const calls = recordCreates();
    const beforeActivity = await activityOf(t, 'products');
    const lines = ['name,price,qty'];
    for (let i = 1; i <= 1500; i++) lines.push(`item ${i},${i === 1200 ? 'cheap' : i / 2},${i}`);
    const res = await send(t, 'POST', '/utils/import/products', lines.join('\n'), csvHeaders);
    expect(res.status).toBe(400);
    const error = errorOf(res);
    expect(error.code).toBe('INVALID_PAYLOAD');
    expect(error.message).toMatch(/^Invalid payload\. Row 1200: .*"price".*must be a number/);
    expect(res.json.errors[0].extensions).toMatchObject({ row: 1200, field: 'price' });
    expect(await rowsOf(t, 'products')).toBe(0);
    expect(await activityOf(t, 'products')).toBe(beforeActivity);
    await settle();
    expect(calls).toEqual([]);
  });

  it('the same file without the bad row imports all 1500 rows in one go; the action events follow the commit', async () => {
    const calls = recordCreates();
    const lines = ['name,price,qty'];
    for (let i = 1; i <= 1500; i++) lines.push(`item ${i},${i / 2},${i}`);
    const res = await send(t, 'POST', '/utils/import/products', lines.join('\n'), csvHeaders);
    expect(res.status, res.text).toBe(200);
    expect(await rowsOf(t, 'products')).toBe(1500);
    expect(await activityOf(t, 'products')).toBe(1500);
    // Dispatch runs after the response; with Redis as the shared store each event costs round trips: wait for
    // them (bounded), then check nothing more arrives.
    const end = Date.now() + 20_000;
    while (calls.length < 1500 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    await settle();
    expect(calls).toHaveLength(1500);
  });

  it('a database error (NOT NULL) is named with its row and keeps nothing', async () => {
    const res = await send(t, 'POST', '/utils/import/products', JSON.stringify([{ name: 'A' }, { name: 'B' }, { name: null }]), jsonHeaders);
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toMatch(/^Invalid payload\. Row 3: .*"name"/);
    expect(await rowsOf(t, 'products')).toBe(0);
  });

  it('a JSON value of the wrong type is named with its row and field', async () => {
    const res = await send(t, 'POST', '/utils/import/products', JSON.stringify([{ name: 'A', qty: 1 }, { name: 'B', qty: 'many' }]), jsonHeaders);
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toMatch(/^Invalid payload\. Row 2: .*"qty".*must be an integer/);
    expect(await rowsOf(t, 'products')).toBe(0);
  });
});

describe('bodies and types', () => {
  it('refuses invalid UTF-8 with 400 INVALID_PAYLOAD naming the byte', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('name\nok\nbad '), 0xc3, 0x28, 0x0a]);
    const res = await send(t, 'POST', '/utils/import/products', bytes, csvHeaders);
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ code: 'INVALID_PAYLOAD', message: 'Invalid payload. The file is not valid UTF-8: invalid byte sequence at byte 12.' });
    expect(await rowsOf(t, 'products')).toBe(0);
  });

  it.each([
    ['text/plain', 'name\nA\n'],
    ['application/xml', '<a/>'],
    ['text/csv; charset=latin1', 'name\nA\n'],
  ])('refuses a raw %s body with 400 UNSUPPORTED_MEDIA_TYPE', async (type, body) => {
    const res = await send(t, 'POST', '/utils/import/products', body, { 'content-type': type });
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses a file part that is neither CSV nor JSON, and a form without a file', async () => {
    const xml = await send(t, 'POST', '/utils/import/products', fileForm('<a/>', 'a.xml', 'application/xml'));
    expect(xml.status).toBe(400);
    expect(errorOf(xml).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const form = new FormData();
    form.append('name', 'x');
    const none = await send(t, 'POST', '/utils/import/products', form);
    expect(none.status).toBe(400);
    expect(errorOf(none).code).toBe('INVALID_PAYLOAD');
  });

  it('refuses a body over IMPORT_MAX_SIZE (300kb here) with 413, raw or multipart, declared length or not; then serves on', async () => {
    const big = `name,note\n${Array.from({ length: 400 }, (_, i) => `n${i},${'x'.repeat(1000)}`).join('\n')}\n`;
    const raw = await send(t, 'POST', '/utils/import/products', big, csvHeaders);
    expect(raw.status).toBe(413);
    expect(errorOf(raw).code).toBe('CONTENT_TOO_LARGE');
    const declared = await send(t, 'POST', '/utils/import/products', big, { ...csvHeaders, 'content-length': String(Buffer.byteLength(big)) });
    expect(declared.status).toBe(413);
    expect(errorOf(declared).message).toContain('IMPORT_MAX_SIZE');
    const multipart = await send(t, 'POST', '/utils/import/products', fileForm(big, 'big.csv', 'text/csv'));
    expect(multipart.status).toBe(413);
    // Streamed without a Content-Length: the limit is enforced while the bytes arrive.
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('name,note\n'));
        for (let i = 0; i < 400; i++) controller.enqueue(new TextEncoder().encode(`n${i},${'y'.repeat(1000)}\n`));
        controller.close();
      },
    });
    const res = await t.app.request('/utils/import/products', { method: 'POST', headers: { authorization: 'Bearer static-admin-token', 'content-type': 'text/csv' }, body: chunked, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(await rowsOf(t, 'products')).toBe(0);
    const after = await send(t, 'POST', '/utils/import/products', 'name\nstill works\n', csvHeaders);
    expect(after.status).toBe(200);
    expect(await rowsOf(t, 'products')).toBe(1);
  });
});

describe('access', () => {
  it('answers an unknown collection with 404 COLLECTION_NOT_FOUND', async () => {
    const res = await send(t, 'POST', '/utils/import/nope', 'name\nA\n', csvHeaders);
    expect(res.status).toBe(404);
    expect(errorOf(res).code).toBe('COLLECTION_NOT_FOUND');
  });

  it('refuses a caller without create permission (403) and an anonymous one', async () => {
    const reader = await send(t, 'POST', '/utils/import/products', 'name\nA\n', csvHeaders, 'reader');
    expect(reader.status).toBe(403);
    expect(errorOf(reader).code).toBe('FORBIDDEN');
    const anonymous = await send(t, 'POST', '/utils/import/products', 'name\nA\n', csvHeaders, null);
    expect(anonymous.status).toBe(403);
    expect(await rowsOf(t, 'products')).toBe(0);
  });

  it('a caller with create permission imports, with its presets applied and as the activity user', async () => {
    const res = await send(t, 'POST', '/utils/import/products', 'name,qty\nA,1\n', csvHeaders, 'importer');
    expect(res.status, res.text).toBe(200);
    expect((await items())[0]).toMatchObject({ name: 'A', qty: 1, note: 'preset' });
    const [row] = await run<{ email: string }>(t.services.database.db, "select u.email from svc_activity a join svc_users u on u.id = a.user where a.collection = 'products'");
    expect(row.email).toBe('importer@example.com');
  });

  it('field permissions apply per row: a column outside them is a 403 naming row and field', async () => {
    const res = await send(t, 'POST', '/utils/import/products', 'name,price,qty\nA,1,2\n', csvHeaders, 'narrow-importer');
    expect(res.status).toBe(403);
    expect(errorOf(res).message).toMatch(/^Row 1: .*"qty"/);
    expect(await rowsOf(t, 'products')).toBe(0);
  });
});
