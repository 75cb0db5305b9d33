/** Permission `validation` rules on create and update: every operator, dynamic variables, nested rules,
 * _and/_or, several failures at once; nothing is written when a rule fails. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
let seq = 0;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
});
afterAll(async () => t?.close());

/** A principal allowed to create and update posts under `validation`; returns the create/update results. */
async function attempt(validation: Record<string, unknown>, payload: Record<string, unknown>) {
  const token = `validator-${++seq}`;
  await createPrincipal(t.services, { token, permissions: [
    { collection: 'posts', action: 'create', validation }, { collection: 'posts', action: 'update', validation },
  ] });
  const before = Number((await q('select count(*)::int as n from posts'))[0].n);
  const res = await t.req('POST', '/items/posts', payload, { token });
  const after = Number((await q('select count(*)::int as n from posts'))[0].n);
  expect(after - before).toBe(res.status === 200 ? 1 : 0);
  const update = await t.req('PATCH', '/items/posts/1', payload, { token });
  return { create: res, update };
}

const failure = (field: string, type: string, message: string) => ({
  status: 400, body: { errors: [{ message: `Validation failed for field "${field}". ${message}`, extensions: { code: 'INVALID_PAYLOAD', field, type } }] },
});

describe('operators', () => {
  it.each([
    [{ views: { _eq: 3 } }, { views: 3 }, null],
    [{ views: { _eq: 3 } }, { views: 4 }, failure('views', '_eq', 'Value has to be "3".')],
    [{ status: { _neq: 'archived' } }, { status: 'archived' }, failure('status', '_neq', 'Value can\'t be "archived".')],
    [{ views: { _lt: 10 } }, { views: 10 }, failure('views', '_lt', 'Value has to be less than "10".')],
    [{ views: { _lte: 10 } }, { views: 10 }, null],
    [{ views: { _gt: 10 } }, { views: 10 }, failure('views', '_gt', 'Value has to be greater than "10".')],
    [{ views: { _gte: 10 } }, { views: 10 }, null],
    [{ status: { _in: ['draft', 'review'] } }, { status: 'review' }, null],
    [{ status: { _in: ['draft', 'review'] } }, { status: 'published' }, failure('status', '_in', 'Value has to be one of draft, review.')],
    [{ status: { _nin: 'published,archived' } }, { status: 'published' }, failure('status', '_nin', "Value can't be one of published, archived.")],
    [{ body: { _null: true } }, { body: 'x' }, failure('body', '_null', 'Value has to be null.')],
    [{ body: { _nnull: true } }, { body: null }, failure('body', '_nnull', "Value can't be null.")],
    [{ title: { _nempty: true } }, { title: '' }, failure('title', '_nempty', "Value can't be empty.")],
    [{ title: { _empty: true } }, { title: '' }, null],
    [{ title: { _contains: 'ok' } }, { title: 'not here' }, failure('title', '_contains', 'Value has to contain "ok".')],
    [{ title: { _ncontains: 'bad' } }, { title: 'so bad' }, failure('title', '_ncontains', 'Value can\'t contain "bad".')],
    [{ title: { _icontains: 'OK' } }, { title: 'is ok' }, null],
    [{ title: { _starts_with: 'A' } }, { title: 'B' }, failure('title', '_starts_with', 'Value has to start with "A".')],
    [{ title: { _ends_with: '!' } }, { title: 'B' }, failure('title', '_ends_with', 'Value has to end with "!".')],
    [{ views: { _between: [1, 5] } }, { views: 5 }, null],
    [{ views: { _between: [1, 5] } }, { views: 6 }, failure('views', '_between', 'Value has to be between 1 and 5.')],
    [{ views: { _nbetween: [1, 5] } }, { views: 3 }, failure('views', '_nbetween', "Value can't be between 1 and 5.")],
    [{ published_on: { _lte: '$NOW' } }, { published_on: '2000-01-01T00:00:00Z' }, null],
  ])('%j with %j', async (validation, payload, want) => {
    const { create, update } = await attempt(validation, payload);
    if (want === null) {
      expect(create.status).toBe(200);
      expect(update).toMatchObject({ status: 200, body: { data: 1 } });
    } else {
      expect({ status: create.status, body: create.body }).toEqual(want);
      expect({ status: update.status, body: update.body }).toEqual(want);
    }
  });
});

describe('composition', () => {
  it('fields absent from the payload are not checked (Directus), presets are', async () => {
    expect((await attempt({ views: { _eq: 3 } }, { title: 'no views' })).create.status).toBe(200);
  });

  it('_or passes when one branch holds; _and reports every failure', async () => {
    expect((await attempt({ _or: [{ views: { _eq: 1 } }, { views: { _eq: 2 } }] }, { views: 2 })).create.status).toBe(200);
    const { create } = await attempt({ _and: [{ views: { _gt: 5 } }, { title: { _starts_with: 'X' } }] }, { views: 1, title: 'Y' });
    expect(create.status).toBe(400);
    expect(create.body.errors.map((e: any) => e.extensions)).toEqual([
      { code: 'INVALID_PAYLOAD', field: 'views', type: '_gt' }, { code: 'INVALID_PAYLOAD', field: 'title', type: '_starts_with' },
    ]);
  });

  it('$NOW resolves to the current time', async () => {
    const { create } = await attempt({ published_on: { _lte: '$NOW' } }, { published_on: '2999-01-01T00:00:00Z' });
    expect(create.status).toBe(400);
    expect(create.body.errors[0].message).toMatch(/^Validation failed for field "published_on". Value has to be less than or equal to "\d{4}-\d{2}-\d{2}T/);
    expect(create.body.errors[0].extensions).toEqual({ code: 'INVALID_PAYLOAD', field: 'published_on', type: '_lte' });
  });

  it('$CURRENT_USER resolves to the caller', async () => {
    await q('alter table posts add column owner uuid');
    await t.services.schema.invalidate();
    const me = await createPrincipal(t.services, { token: 'owner-check', permissions: [{ collection: 'posts', action: 'create', validation: { owner: { _eq: '$CURRENT_USER' } } }] });
    expect((await t.req('POST', '/items/posts', { owner: me.user }, { token: 'owner-check' })).status).toBe(200);
    const other = await t.req('POST', '/items/posts', { owner: '00000000-0000-4000-8000-000000000009' }, { token: 'owner-check' });
    expect(other.body.errors[0].extensions).toEqual({ code: 'INVALID_PAYLOAD', field: 'owner', type: '_eq' });
  });

  it('nested rules check nested payload objects', async () => {
    const { create } = await attempt({ author: { name: { _starts_with: 'A' } } }, { title: 'n', author: { name: 'Bob' } });
    expect(create.body.errors[0]).toEqual({ message: 'Validation failed for field "author.name". Value has to start with "A".', extensions: { code: 'INVALID_PAYLOAD', field: 'author.name', type: '_starts_with' } });
  });

  it('admins are not bound by validation', async () => {
    expect((await t.req('POST', '/items/posts', { views: 999 })).status).toBe(200);
  });
});

describe('the fields\' own validation (meta.validation), as Directus\' items service applies it', () => {
  beforeAll(async () => {
    await t.req('POST', '/collections', { collection: 'codes', schema: {}, fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'code', type: 'string', meta: { validation: { _and: [{ code: { _regex: '^[A-Z]{3}$' } }] }, validation_message: 'Use three capital letters, like ABC.' } },
      { field: 'qty', type: 'integer', meta: { validation: { qty: { _gte: 0 } } } },
      { field: 'note', type: 'string' },
    ] });
  });
  const count = async () => Number((await q('select count(*)::int as n from codes'))[0].n);

  const CASES: { name: string; payload: Record<string, unknown>; refused: { field: string; message: RegExp }[] }[] = [
    { name: 'a code against its pattern, with the field\'s own message', payload: { code: 'abc' }, refused: [{ field: 'code', message: /^Use three capital letters, like ABC\.$/ }] },
    { name: 'a quantity below zero, in the rule\'s words', payload: { qty: -1 }, refused: [{ field: 'qty', message: /Validation failed for field "qty"/ }] },
    { name: 'both at once', payload: { code: 'x', qty: -5 }, refused: [{ field: 'code', message: /three capital/ }, { field: 'qty', message: /qty/ }] },
    { name: 'nothing, when the payload is valid', payload: { code: 'ABC', qty: 2 }, refused: [] },
    { name: 'nothing, when the fields are left out', payload: { note: 'only a note' }, refused: [] },
  ];
  it.each(CASES)('refuses $name on create and update, for admins too', async ({ payload, refused }) => {
    const before = await count();
    const created = await t.req('POST', '/items/codes', payload);
    if (refused.length === 0) {
      expect(created.status).toBe(200);
      expect(await count()).toBe(before + 1);
    } else {
      expect(created.status).toBe(400);
      expect(await count()).toBe(before);
      const errors = created.body.errors as { message: string; extensions: { code: string; field: string } }[];
      expect(errors.map((e) => e.extensions.field).sort()).toEqual(refused.map((r) => r.field).sort());
      for (const r of refused) expect(errors.find((e) => e.extensions.field === r.field)!.message).toMatch(r.message);
      expect(errors.every((e) => e.extensions.code === 'INVALID_PAYLOAD')).toBe(true);
    }
    const [{ id }] = await q<{ id: number }>("insert into codes (code, qty) values ('OKK', 1) returning id");
    const updated = await t.req('PATCH', `/items/codes/${id}`, payload);
    expect(updated.status).toBe(refused.length === 0 ? 200 : 400);
    if (refused.length > 0) expect((await q('select code, qty from codes where id = $1', [id]))[0]).toEqual({ code: 'OKK', qty: 1 });
  });

  it('follows a changed rule at once, and a rule taken away', async () => {
    expect((await t.req('PATCH', '/fields/codes/qty', { meta: { validation: { qty: { _lte: 10 } }, validation_message: 'At most ten.' } })).status).toBe(200);
    expect((await t.req('POST', '/items/codes', { qty: 11 })).body.errors[0].message).toBe('At most ten.');
    expect((await t.req('POST', '/items/codes', { qty: -1 })).status).toBe(200);
    expect((await t.req('PATCH', '/fields/codes/qty', { meta: { validation: null } })).status).toBe(200);
    expect((await t.req('POST', '/items/codes', { qty: 11 })).status).toBe(200);
  });
});
