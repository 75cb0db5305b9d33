import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { columnsOf, createAppUser, tableExists } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  const res = await t.req('POST', '/collections', { collection: 'things', schema: {}, meta: {} });
  expect(res.status).toBe(200);
});
afterAll(async () => { await t.close(); });

const TYPES: [string, Record<string, unknown>, string, unknown][] = [
  ['string', { max_length: 40, default_value: "it's" }, 'character varying', "it's"],
  ['text', { default_value: 'long' }, 'text', 'long'],
  ['integer', { default_value: 7 }, 'integer', 7],
  ['bigInteger', { default_value: '9007199254740993' }, 'bigint', null],
  ['float', { default_value: 1.5 }, 'double precision', 1.5],
  ['decimal', { numeric_precision: 8, numeric_scale: 3, default_value: '2.5' }, 'numeric', 2.5],
  ['boolean', { default_value: true, is_nullable: false }, 'boolean', true],
  ['date', { default_value: '2024-01-02' }, 'date', '2024-01-02'],
  ['time', { default_value: '10:11:12' }, 'time without time zone', '10:11:12'],
  ['timestamp', { default_value: 'CURRENT_TIMESTAMP' }, 'timestamp with time zone', 'CURRENT_TIMESTAMP'],
  ['dateTime', {}, 'timestamp without time zone', null],
  ['uuid', { default_value: '6f1c4a64-3b0e-4f53-9a51-0f0a0e4f7b01' }, 'uuid', '6f1c4a64-3b0e-4f53-9a51-0f0a0e4f7b01'],
  ['json', { default_value: { a: [1, "x'y"] } }, 'json', { a: [1, "x'y"] }],
  ['csv', { default_value: ['a', 'b'] }, 'text', 'a,b'],
  ['hash', {}, 'character varying', null],
];

describe('POST /fields/{collection}', () => {
  it.each(TYPES)('adds a %s field', async (type, schema, dataType, defaultValue) => {
    const field = `f_${type.toLowerCase()}`;
    const res = await t.req('POST', '/fields/things', { field, type, meta: { note: `a ${type}` }, schema });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ collection: 'things', field, type, meta: { collection: 'things', field, note: `a ${type}` } });
    expect(res.body.data.schema).toMatchObject({ name: field, table: 'things', data_type: dataType });
    if (defaultValue !== null) expect(res.body.data.schema.default_value).toEqual(defaultValue);
    expect((await columnsOf(t, 'things'))[field].type).toBe(dataType);
  });

  it('stores specials comma-joined and returns them as arrays', async () => {
    const csv = await t.req('GET', '/fields/things/f_csv');
    expect(csv.body.data.meta.special).toEqual(['cast-csv']);
    const [row] = await run<{ special: string }>(t.services.database.db, "select special from svc_fields where collection = 'things' and field = 'f_hash'");
    expect(row.special).toBe('hash');
    const s = await t.req('GET', '/fields/things/f_string');
    expect(s.body.data.schema).toMatchObject({ max_length: 40, is_nullable: true });
    const b = await t.req('GET', '/fields/things/f_boolean');
    expect(b.body.data.schema.is_nullable).toBe(false);
    const d = await t.req('GET', '/fields/things/f_decimal');
    expect(d.body.data.schema).toMatchObject({ numeric_precision: 8, numeric_scale: 3 });
  });

  it('adds alias fields without a column', async () => {
    const res = await t.req('POST', '/fields/things', { field: 'divider', type: 'alias', meta: { special: ['alias', 'no-data'], interface: 'presentation-divider' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'alias', schema: null, meta: { special: ['alias', 'no-data'] } });
    expect((await columnsOf(t, 'things')).divider).toBeUndefined();
  });

  it('adds unique fields', async () => {
    const res = await t.req('POST', '/fields/things', { field: 'slug', type: 'string', schema: { is_unique: true } });
    expect(res.body.data.schema.is_unique).toBe(true);
  });

  it('refuses bad input with 4xx and changes nothing', async () => {
    const cases: [string, unknown, number, string][] = [
      ['/fields/things', { field: 'x', type: 'wat' }, 400, 'INVALID_PAYLOAD'],
      ['/fields/things', { field: 'x' }, 400, 'INVALID_PAYLOAD'],
      ['/fields/things', { type: 'string' }, 400, 'INVALID_PAYLOAD'],
      ['/fields/things', { field: 'f_text', type: 'string' }, 400, 'INVALID_PAYLOAD'],
      ['/fields/things', { field: 'x', type: 'integer', schema: { default_value: 'one' } }, 400, 'INVALID_PAYLOAD'],
      ['/fields/things', { field: 'x', type: 'boolean', schema: { default_value: 'maybe' } }, 400, 'INVALID_PAYLOAD'],
      ['/fields/things', { field: 'x', type: 'uuid', schema: { default_value: 'nope' } }, 400, 'INVALID_PAYLOAD'],
      ['/fields/things', { field: 'x', type: 'timestamp', schema: { default_value: '2024-99-99' } }, 400, 'INVALID_PAYLOAD'],
      ['/fields/things', { field: 'x', type: 'string', schema: { max_length: -1 } }, 400, 'INVALID_PAYLOAD'],
      ['/fields/things', { field: 'x', type: 'string', schema: { is_primary_key: true } }, 400, 'INVALID_PAYLOAD'],
      ['/fields/things', { field: 'x', type: 'string', meta: 'bad' }, 400, 'INVALID_PAYLOAD'],
      ['/fields/nowhere', { field: 'x', type: 'string' }, 404, 'COLLECTION_NOT_FOUND'],
    ];
    for (const [path, body, status, code] of cases) {
      const res = await t.req('POST', path, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.errors[0].extensions.code).toBe(code);
    }
    expect((await columnsOf(t, 'things')).x).toBeUndefined();
    expect(await run(t.services.database.db, "select 1 from svc_fields where field = 'x'")).toHaveLength(0);
    expect((await t.req('POST', '/fields/things', { field: 'y', type: 'string' }, { token: null })).status).toBe(403);
  });

  it('refuses a NOT NULL column without default on a table with rows', async () => {
    await run(t.services.database.db, 'insert into things default values');
    const res = await t.req('POST', '/fields/things', { field: 'req', type: 'integer', schema: { is_nullable: false } });
    expect(res.status).toBe(400);
    const ok = await t.req('POST', '/fields/things', { field: 'req', type: 'integer', schema: { is_nullable: false, default_value: 0 } });
    expect(ok.status).toBe(200);
  });
});

describe('GET /fields', () => {
  it('lists all fields, per collection, and one field', async () => {
    const all = await t.req('GET', '/fields');
    expect(all.status).toBe(200);
    expect(all.body.data.some((f: { collection: string; field: string }) => f.collection === 'things' && f.field === 'f_json')).toBe(true);
    expect(all.body.data.some((f: { collection: string }) => f.collection === 'svc_users')).toBe(true);
    const list = await t.req('GET', '/fields/things');
    expect(list.body.data.map((f: { field: string }) => f.field)).toEqual(expect.arrayContaining(['id', 'f_string', 'divider']));
    const missing = await t.req('GET', '/fields/things/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].extensions.code).toBe('FIELD_NOT_FOUND');
    expect((await t.req('GET', '/fields/nowhere')).status).toBe(404);
  });

  it('shows app users the fields they may read only', async () => {
    const token = await createAppUser(t, { readable: { things: ['id', 'f_text'] } });
    const list = await t.req('GET', '/fields/things', undefined, { token });
    expect(list.body.data.map((f: { field: string }) => f.field).sort()).toEqual(['f_text', 'id']);
    expect((await t.req('GET', '/fields/things/f_json', undefined, { token })).status).toBe(403);
    const all = await t.req('GET', '/fields', undefined, { token });
    expect(new Set(all.body.data.map((f: { collection: string }) => f.collection).filter((c: string) => !c.startsWith('svc_')))).toEqual(new Set(['things']));
    expect((await t.req('GET', '/fields', undefined, { token: null })).status).toBe(403);
    expect((await t.req('PATCH', '/fields/things/f_text', { meta: { note: 'x' } }, { token })).status).toBe(403);
  });
});

describe('PATCH /fields/{collection}/{field}', () => {
  it('updates meta', async () => {
    const res = await t.req('PATCH', '/fields/things/f_text', { meta: { note: 'changed', hidden: true, options: { a: 1 } } });
    expect(res.status).toBe(200);
    expect(res.body.data.meta).toMatchObject({ note: 'changed', hidden: true, options: { a: 1 } });
  });

  it('changes type with a cast, nullability, default, length and uniqueness', async () => {
    const db = t.services.database.db;
    await t.req('POST', '/fields/things', { field: 'num', type: 'string' });
    await run(db, "update things set num = '42'");
    const toInt = await t.req('PATCH', '/fields/things/num', { type: 'integer' });
    expect(toInt.status, JSON.stringify(toInt.body)).toBe(200);
    expect(toInt.body.data).toMatchObject({ type: 'integer', schema: { data_type: 'integer' } });
    expect((await run<{ num: number }>(db, 'select num from things'))[0].num).toBe(42);

    const notNull = await t.req('PATCH', '/fields/things/num', { schema: { is_nullable: false, default_value: 5, is_unique: true } });
    expect(notNull.body.data.schema).toMatchObject({ is_nullable: false, default_value: 5, is_unique: true });
    const back = await t.req('PATCH', '/fields/things/num', { schema: { is_nullable: true, default_value: null, is_unique: false } });
    expect(back.body.data.schema).toMatchObject({ is_nullable: true, default_value: null, is_unique: false });

    const len = await t.req('PATCH', '/fields/things/f_string', { schema: { max_length: 100 } });
    expect(len.body.data.schema.max_length).toBe(100);
    expect(len.body.data.schema.default_value).toBe("it's");

    const toCsv = await t.req('PATCH', '/fields/things/f_text', { type: 'csv' });
    expect(toCsv.body.data).toMatchObject({ type: 'csv', meta: { special: ['cast-csv'] } });
  });

  it('refuses impossible changes with 400 and keeps the data', async () => {
    const db = t.services.database.db;
    await t.req('POST', '/fields/things', { field: 'word', type: 'string' });
    await run(db, "update things set word = 'hello'");
    const bad = await t.req('PATCH', '/fields/things/word', { type: 'integer' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect((await run<{ word: string }>(db, 'select word from things'))[0].word).toBe('hello');
    expect((await t.req('PATCH', '/fields/things/f_json', { type: 'integer' })).status).toBe(400);
    expect((await t.req('PATCH', '/fields/things/word', { type: 'bogus' })).status).toBe(400);
    expect((await t.req('PATCH', '/fields/things/word', { type: 'alias' })).status).toBe(400);
    expect((await t.req('PATCH', '/fields/things/word', { schema: { max_length: 2 } })).status).toBe(400);
    expect((await t.req('PATCH', '/fields/things/nope', { meta: {} })).status).toBe(404);
    expect((await t.req('PATCH', '/fields/svc_users/email', { meta: { note: 'x' } })).status).toBe(403);
  });
});

describe('DELETE /fields/{collection}/{field}', () => {
  it('drops the column and the metadata row', async () => {
    const res = await t.req('DELETE', '/fields/things/word');
    expect(res.status).toBe(204);
    expect((await columnsOf(t, 'things')).word).toBeUndefined();
    expect(await run(t.services.database.db, "select 1 from svc_fields where collection = 'things' and field = 'word'")).toHaveLength(0);
    expect((await t.req('GET', '/fields/things/word')).status).toBe(404);
    expect((await t.req('DELETE', '/fields/things/divider')).status).toBe(204);
  });

  it('refuses primary keys, system fields and unknown fields', async () => {
    expect((await t.req('DELETE', '/fields/things/id')).status).toBe(400);
    expect((await t.req('DELETE', '/fields/svc_users/email')).status).toBe(403);
    expect((await t.req('DELETE', '/fields/things/nope')).status).toBe(404);
    expect(await tableExists(t, 'things')).toBe(true);
  });
});
