import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { columnsOf, createAppUser, tableExists } from './helpers.ts';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

describe('POST /collections', () => {
  it('creates a table with an auto-increment id when no fields are given', async () => {
    const res = await t.req('POST', '/collections', { collection: 'articles', meta: { icon: 'article', note: 'News' }, schema: {} });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      collection: 'articles',
      meta: { collection: 'articles', icon: 'article', note: 'News', singleton: false, hidden: false },
      schema: { name: 'articles' },
    });
    expect(await tableExists(t, 'articles')).toBe(true);
    const fields = await t.req('GET', '/fields/articles');
    expect(fields.body.data).toHaveLength(1);
    expect(fields.body.data[0]).toMatchObject({
      collection: 'articles', field: 'id', type: 'integer',
      meta: { hidden: true, interface: 'numeric', readonly: true },
      schema: { is_primary_key: true, has_auto_increment: true, is_nullable: false, data_type: 'integer', table: 'articles' },
    });
  });

  it('creates uuid and string primary keys with the given fields', async () => {
    const uuid = await t.req('POST', '/collections', {
      collection: 'events',
      schema: {},
      fields: [
        { field: 'id', type: 'uuid', schema: { is_primary_key: true } },
        { field: 'title', type: 'string', schema: { max_length: 80, is_nullable: false } },
        { field: 'starts', type: 'timestamp' },
      ],
    });
    expect(uuid.status).toBe(200);
    const cols = await columnsOf(t, 'events');
    expect(cols.id.type).toBe('uuid');
    expect(cols.title).toMatchObject({ type: 'character varying', nullable: false });
    expect(cols.starts.type).toBe('timestamp with time zone');
    const pk = await t.req('GET', '/fields/events/id');
    expect(pk.body.data).toMatchObject({ type: 'uuid', schema: { is_primary_key: true, has_auto_increment: false } });

    const str = await t.req('POST', '/collections', {
      collection: 'countries', schema: {},
      fields: [{ field: 'code', type: 'string', schema: { is_primary_key: true, max_length: 2 } }, { field: 'name', type: 'string' }],
    });
    expect(str.status).toBe(200);
    const code = await t.req('GET', '/fields/countries/code');
    expect(code.body.data).toMatchObject({ type: 'string', schema: { is_primary_key: true, max_length: 2 } });
  });

  it('creates folders without a table', async () => {
    const res = await t.req('POST', '/collections', { collection: 'content', meta: { icon: 'folder' }, schema: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ collection: 'content', meta: { icon: 'folder' }, schema: null });
    expect(await tableExists(t, 'content')).toBe(false);
    const flag = await t.req('POST', '/collections', { collection: 'misc', folder: true });
    expect(flag.body.data.schema).toBeNull();
    expect(await tableExists(t, 'misc')).toBe(false);
  });

  it('creates singletons', async () => {
    const res = await t.req('POST', '/collections', { collection: 'home', meta: { singleton: true }, schema: {} });
    expect(res.body.data.meta.singleton).toBe(true);
    const schema = await t.services.schema.get();
    expect(schema.collections.home.singleton).toBe(true);
  });

  it('refuses duplicates, svc_ names, bad names and non-admins', async () => {
    const dup = await t.req('POST', '/collections', { collection: 'articles', schema: {} });
    expect(dup.status).toBe(400);
    expect(dup.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect(dup.body.errors[0].message).toMatch(/already exists/);
    for (const collection of ['svc_things', 'SVC_x', '1abc', 'a-b', 'x'.repeat(64), '', 42, 'a b']) {
      const res = await t.req('POST', '/collections', { collection, schema: {} });
      expect(res.status, String(collection)).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
    const missing = await t.req('POST', '/collections', { schema: {} });
    expect(missing.status).toBe(400);
    const anon = await t.req('POST', '/collections', { collection: 'nope', schema: {} }, { token: null });
    expect(anon.status).toBe(403);
    expect(anon.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await tableExists(t, 'nope')).toBe(false);
  });

  it('refuses bad fields and leaves nothing behind', async () => {
    const cases = [
      { fields: [{ field: 'id', type: 'nonsense', schema: { is_primary_key: true } }] },
      { fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }, { field: 'x', type: 'integer', schema: { default_value: 'abc' } }] },
      { fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }, { field: 'd', type: 'date', schema: { default_value: 'not a date' } }] },
      { fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }, { field: 'id', type: 'string' }] },
      { fields: [{ field: 'id', type: 'json', schema: { is_primary_key: true } }] },
      { fields: 'nope' },
    ];
    for (const c of cases) {
      const res = await t.req('POST', '/collections', { collection: 'broken', schema: {}, ...c });
      expect(res.status, JSON.stringify(c)).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
      expect(await tableExists(t, 'broken')).toBe(false);
      expect(await run(t.services.database.db, "select 1 from svc_collections where collection = 'broken'")).toHaveLength(0);
    }
  });
});

describe('GET /collections', () => {
  it('lists user and system collections for admins', async () => {
    const res = await t.req('GET', '/collections');
    expect(res.status).toBe(200);
    const names = res.body.data.map((c: { collection: string }) => c.collection);
    expect(names).toEqual(expect.arrayContaining(['articles', 'events', 'content', 'svc_users', 'svc_files']));
    const users = res.body.data.find((c: { collection: string }) => c.collection === 'svc_users');
    expect(users.meta.system).toBe(true);
    expect(users.schema).toEqual({ name: 'svc_users', comment: null });
  });

  it('reads one collection; unknown ones are 404 for admins', async () => {
    const one = await t.req('GET', '/collections/articles');
    expect(one.body.data).toMatchObject({ collection: 'articles', schema: { name: 'articles' } });
    const missing = await t.req('GET', '/collections/unknown_thing');
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].extensions.code).toBe('COLLECTION_NOT_FOUND');
  });

  it('shows app users only what they can read, and refuses callers without app access', async () => {
    const token = await createAppUser(t, { readable: { articles: null } });
    const list = await t.req('GET', '/collections', undefined, { token });
    expect(list.status).toBe(200);
    // svc_ collections appear per the built-in app_access grants (core/access/builtin.ts).
    expect(list.body.data.map((c: { collection: string }) => c.collection).filter((c: string) => !c.startsWith('svc_'))).toEqual(['articles']);
    expect((await t.req('GET', '/collections/articles', undefined, { token })).status).toBe(200);
    expect((await t.req('GET', '/collections/events', undefined, { token })).status).toBe(403);
    expect((await t.req('GET', '/collections/unknown_thing', undefined, { token })).status).toBe(403);
    expect((await t.req('PATCH', '/collections/articles', { meta: { note: 'x' } }, { token })).status).toBe(403);
    expect((await t.req('DELETE', '/collections/articles', undefined, { token })).status).toBe(403);

    const anon = await t.req('GET', '/collections', undefined, { token: null });
    expect(anon.status).toBe(403);
    expect(anon.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const noApp = await createAppUser(t, { app: false, readable: { articles: null } });
    expect((await t.req('GET', '/collections', undefined, { token: noApp })).status).toBe(403);
  });
});

describe('PATCH /collections/{collection}', () => {
  it('updates meta', async () => {
    const res = await t.req('PATCH', '/collections/articles', { meta: { note: 'Updated', hidden: true, sort_field: 'id', translations: [{ language: 'de-DE', translation: 'Artikel' }] } });
    expect(res.status).toBe(200);
    expect(res.body.data.meta).toMatchObject({ note: 'Updated', hidden: true, sort_field: 'id', translations: [{ language: 'de-DE' }] });
    expect((await t.services.schema.get()).collections.articles.sortField).toBe('id');
  });

  it('refuses bad meta, unknown and system collections', async () => {
    expect((await t.req('PATCH', '/collections/articles', { meta: { hidden: 'yes' } })).status).toBe(400);
    expect((await t.req('PATCH', '/collections/articles', { meta: { accountability: 'bogus' } })).status).toBe(400);
    expect((await t.req('PATCH', '/collections/unknown_thing', { meta: {} })).status).toBe(404);
    expect((await t.req('PATCH', '/collections/svc_users', { meta: { note: 'x' } })).status).toBe(403);
  });
});

describe('DELETE /collections/{collection}', () => {
  it('drops the table and its metadata and permissions', async () => {
    await t.req('POST', '/collections', { collection: 'temp', schema: {}, fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'name', type: 'string', meta: { note: 'n' } },
    ] });
    const [policy] = await run<{ id: string }>(t.services.database.db, 'select id from svc_policies limit 1');
    await run(t.services.database.db, "insert into svc_permissions (policy, collection, action) values ($1, 'temp', 'read')", [policy.id]);
    const res = await t.req('DELETE', '/collections/temp');
    expect(res.status).toBe(204);
    expect(await tableExists(t, 'temp')).toBe(false);
    const db = t.services.database.db;
    expect(await run(db, "select 1 from svc_collections where collection = 'temp'")).toHaveLength(0);
    expect(await run(db, "select 1 from svc_fields where collection = 'temp'")).toHaveLength(0);
    expect(await run(db, "select 1 from svc_permissions where collection = 'temp'")).toHaveLength(0);
    expect((await t.req('GET', '/collections/temp')).status).toBe(404);
  });

  it('deletes folders, refuses system and unknown collections', async () => {
    expect((await t.req('DELETE', '/collections/misc')).status).toBe(204);
    expect((await t.req('GET', '/collections/misc')).status).toBe(404);
    const sys = await t.req('DELETE', '/collections/svc_users');
    expect(sys.status).toBe(403);
    expect(await tableExists(t, 'svc_users')).toBe(true);
    expect((await t.req('DELETE', '/collections/unknown_thing')).status).toBe(404);
  });
});
