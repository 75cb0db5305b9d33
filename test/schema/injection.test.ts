import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { columnsOf, tableExists } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await t.req('POST', '/collections', { collection: 'victim', schema: {}, fields: [
    { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
    { field: 'name', type: 'string' },
  ] });
  await run(t.services.database.db, "insert into victim (name) values ('kept')");
});
afterAll(async () => { await t.close(); });

const PAYLOADS = [
  'victim; drop table victim; --',
  'victim"; drop table victim; --',
  "x'); drop table victim; --",
  'x" (id int); drop table victim; create table "y',
  'victim--',
  'a b',
  'x\u0000y',
  '"quoted"',
];

async function intact() {
  expect(await tableExists(t, 'victim')).toBe(true);
  expect(await run(t.services.database.db, 'select name from victim')).toEqual([{ name: 'kept' }]);
  expect(Object.keys(await columnsOf(t, 'victim')).sort()).toEqual(['id', 'name']);
}

describe('SQL in identifiers and values', () => {
  it.each(PAYLOADS)('refuses %j everywhere with a 4xx', async (evil) => {
    const attempts: [string, string, unknown][] = [
      ['POST', '/collections', { collection: evil, schema: {} }],
      ['POST', '/collections', { collection: 'okname', schema: {}, fields: [{ field: evil, type: 'string' }] }],
      ['POST', '/fields/victim', { field: evil, type: 'string' }],
      ['POST', '/fields/victim', { field: 'ok', type: evil }],
      ['POST', `/fields/${encodeURIComponent(evil)}`, { field: 'ok', type: 'string' }],
      ['PATCH', `/fields/victim/${encodeURIComponent(evil)}`, { type: 'text' }],
      ['DELETE', `/fields/victim/${encodeURIComponent(evil)}`, undefined],
      ['DELETE', `/collections/${encodeURIComponent(evil)}`, undefined],
      ['POST', '/relations', { collection: 'victim', field: 'name', related_collection: evil }],
      ['POST', '/relations', { collection: evil, field: 'name', related_collection: 'victim' }],
      ['POST', '/relations', { collection: 'victim', field: evil, related_collection: 'victim' }],
      ['POST', '/relations', { collection: 'victim', field: 'name', related_collection: null, meta: { one_allowed_collections: [evil], one_collection_field: 'name' } }],
      ['POST', '/relations', { collection: 'victim', field: 'name', related_collection: 'victim', schema: { on_delete: evil } }],
      ['PATCH', '/collections/victim', { meta: { sort_field: 123 } }],
    ];
    for (const [method, path, body] of attempts) {
      const res = await t.req(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.errors[0].extensions.code).toMatch(/^(INVALID_PAYLOAD|COLLECTION_NOT_FOUND|FIELD_NOT_FOUND|NOT_FOUND|FORBIDDEN)$/);
    }
    await intact();
    expect(await tableExists(t, 'okname')).toBe(false);
  });

  it('stores hostile default values as plain data', async () => {
    const evil = "'); drop table victim; --";
    const res = await t.req('POST', '/fields/victim', { field: 'note', type: 'string', schema: { default_value: evil } });
    expect(res.status).toBe(200);
    expect(res.body.data.schema.default_value).toBe(evil);
    const json = await t.req('POST', '/fields/victim', { field: 'doc', type: 'json', schema: { default_value: { evil } } });
    expect(json.body.data.schema.default_value).toEqual({ evil });
    await run(t.services.database.db, "insert into victim (name) values ('second')");
    const [row] = await run<{ note: string; doc: unknown }>(t.services.database.db, "select note, doc from victim where name = 'second'");
    expect(row).toEqual({ note: evil, doc: { evil } });
    expect(await tableExists(t, 'victim')).toBe(true);
  });

  it('answers malformed bodies with 400', async () => {
    for (const body of ['{not json', '[1,2]', '"string"']) {
      const res = await t.req('POST', '/collections', body);
      expect(res.status).toBe(400);
    }
    expect((await t.req('POST', '/fields/victim', { field: 'x', type: 'string', schema: 'nope' })).status).toBe(400);
    expect((await t.req('PATCH', '/fields/victim/name', { schema: { is_nullable: 'no' } })).status).toBe(400);
  });
});
