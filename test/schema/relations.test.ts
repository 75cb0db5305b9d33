import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { relationOf } from '../../core/schema/relations.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { columnsOf, createAppUser, tableExists } from './helpers.ts';

let t: TestApp;
const pk = (field = 'id', type = 'integer') => ({ field, type, schema: { is_primary_key: true, has_auto_increment: type === 'integer' } });

async function ok(method: string, path: string, body?: unknown) {
  const res = await t.req(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body?.data;
}

beforeAll(async () => {
  t = await createTestApp();
  await ok('POST', '/collections', { collection: 'authors', schema: {}, fields: [pk(), { field: 'name', type: 'string' }] });
  await ok('POST', '/collections', { collection: 'posts', schema: {}, fields: [pk(), { field: 'title', type: 'string' }, { field: 'author', type: 'integer', meta: { special: ['m2o'], interface: 'select-dropdown-m2o' } }, { field: 'slug', type: 'string' }] });
});
afterAll(async () => { await t.close(); });

describe('M2O and O2M', () => {
  it('creates a foreign key and the o2m alias', async () => {
    await ok('POST', '/fields/authors', { field: 'posts', type: 'alias', meta: { special: ['o2m'], interface: 'list-o2m' } });
    const rel = await ok('POST', '/relations', { collection: 'posts', field: 'author', related_collection: 'authors', meta: { one_field: 'posts' }, schema: {} });
    expect(rel).toEqual({
      collection: 'posts', field: 'author', related_collection: 'authors',
      schema: {
        constraint_name: 'posts_author_foreign', table: 'posts', column: 'author', foreign_key_schema: 'public',
        foreign_key_table: 'authors', foreign_key_column: 'id', on_update: 'NO ACTION', on_delete: 'SET NULL',
      },
      meta: {
        id: expect.any(Number), many_collection: 'posts', many_field: 'author', one_collection: 'authors', one_field: 'posts',
        one_collection_field: null, one_allowed_collections: null, junction_field: null, sort_field: null, one_deselect_action: 'nullify',
      },
    });
    const field = await ok('GET', '/fields/posts/author');
    expect(field.schema).toMatchObject({ foreign_key_table: 'authors', foreign_key_column: 'id' });
    const schema = await t.services.schema.get();
    expect(relationOf(schema, 'posts', 'author')).toMatchObject({ kind: 'm2o', related: 'authors' });
    expect(relationOf(schema, 'authors', 'posts')).toMatchObject({ kind: 'o2m', related: 'posts' });

    const db = t.services.database.db;
    await run(db, "insert into authors (name) values ('Ada')");
    await run(db, "insert into posts (title, author) values ('Hello', 1)");
    await expect(run(db, "insert into posts (title, author) values ('Bad', 999)")).rejects.toThrow();
  });

  it('creates the o2m alias itself when the caller has not', async () => {
    await ok('POST', '/fields/posts', { field: 'editor', type: 'integer' });
    await ok('POST', '/relations', { collection: 'posts', field: 'editor', related_collection: 'authors', meta: { one_field: 'edited' } });
    const alias = await ok('GET', '/fields/authors/edited');
    expect(alias).toMatchObject({ type: 'alias', schema: null, meta: { special: ['o2m'] } });
  });

  it('lists and reads relations', async () => {
    const all = await ok('GET', '/relations');
    expect(all.some((r: { collection: string; field: string }) => r.collection === 'posts' && r.field === 'author')).toBe(true);
    expect(all.some((r: { collection: string }) => r.collection === 'svc_users')).toBe(true);
    const ofPosts = await ok('GET', '/relations/posts');
    expect(ofPosts.map((r: { field: string }) => r.field).sort()).toEqual(['author', 'editor']);
    expect((await ok('GET', '/relations/posts/author')).related_collection).toBe('authors');
    expect((await t.req('GET', '/relations/posts/title')).status).toBe(404);
    expect((await t.req('GET', '/relations/nowhere')).status).toBe(404);
  });

  it('refuses mismatched types, duplicates, unknown targets and bad actions', async () => {
    const cases: unknown[] = [
      { collection: 'posts', field: 'slug', related_collection: 'authors' },
      { collection: 'posts', field: 'author', related_collection: 'authors' },
      { collection: 'posts', field: 'title', related_collection: 'nowhere' },
      { collection: 'posts', field: 'nope', related_collection: 'authors' },
      { collection: 'nowhere', field: 'x', related_collection: 'authors' },
      { collection: 'posts', field: 'title' },
      { collection: 'authors', field: 'name', related_collection: 'posts', schema: { on_delete: 'DROP TABLE' } },
      { field: 'x' },
    ];
    for (const body of cases) {
      const res = await t.req('POST', '/relations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
    expect((await t.req('POST', '/relations', { collection: 'posts', field: 'slug', related_collection: 'authors' }, { token: null })).status).toBe(403);
  });

  it('changes the on_delete action', async () => {
    const rel = await ok('PATCH', '/relations/posts/author', { schema: { on_delete: 'CASCADE' }, meta: { sort_field: 'title' } });
    expect(rel.schema.on_delete).toBe('CASCADE');
    expect(rel.meta.sort_field).toBe('title');
    const db = t.services.database.db;
    await run(db, 'delete from authors where id = 1');
    expect(await run(db, 'select * from posts')).toHaveLength(0);
  });

  it('deletes a relation: the constraint goes, the column stays', async () => {
    expect((await t.req('DELETE', '/relations/posts/editor')).status).toBe(204);
    expect((await t.req('GET', '/relations/posts/editor')).status).toBe(404);
    expect((await columnsOf(t, 'posts')).editor).toBeDefined();
    await run(t.services.database.db, "insert into posts (title, editor) values ('x', 12345)");
    expect((await t.req('DELETE', '/relations/posts/editor')).status).toBe(404);
    expect((await t.req('DELETE', '/relations/svc_users/role')).status).toBe(403);
  });

  it('deleting an m2o field removes the relation and its o2m alias', async () => {
    expect((await t.req('DELETE', '/fields/posts/author')).status).toBe(204);
    expect((await t.req('GET', '/relations/posts/author')).status).toBe(404);
    expect((await t.req('GET', '/fields/authors/posts')).status).toBe(404);
    expect(await run(t.services.database.db, "select 1 from svc_relations where many_collection = 'posts' and many_field = 'author'")).toHaveLength(0);
  });
});

describe('M2M and A2O', () => {
  it('creates a junction with two m2o relations pointing at each other', async () => {
    await ok('POST', '/collections', { collection: 'tags', schema: {}, fields: [{ field: 'id', type: 'string', schema: { is_primary_key: true } }] });
    await ok('POST', '/collections', { collection: 'posts_tags', schema: {}, meta: { hidden: true }, fields: [pk(), { field: 'posts_id', type: 'integer' }, { field: 'tags_id', type: 'string' }] });
    await ok('POST', '/fields/posts', { field: 'tags', type: 'alias', meta: { special: ['m2m'], interface: 'list-m2m' } });
    await ok('POST', '/relations', { collection: 'posts_tags', field: 'tags_id', related_collection: 'tags', meta: { junction_field: 'posts_id' }, schema: { on_delete: 'SET NULL' } });
    await ok('POST', '/relations', { collection: 'posts_tags', field: 'posts_id', related_collection: 'posts', meta: { one_field: 'tags', junction_field: 'tags_id' }, schema: { on_delete: 'SET NULL' } });
    const rels = await ok('GET', '/relations/posts_tags');
    expect(rels).toHaveLength(2);
    const schema = await t.services.schema.get();
    expect(relationOf(schema, 'posts', 'tags')).toMatchObject({ kind: 'o2m', related: 'posts_tags' });
    expect((await ok('GET', '/fields/posts/tags')).meta.special).toEqual(['m2m']);
  });

  it('creates an a2o relation without a foreign key', async () => {
    await ok('POST', '/collections', { collection: 'block_hero', schema: {} });
    await ok('POST', '/collections', { collection: 'block_text', schema: {} });
    await ok('POST', '/collections', { collection: 'pages', schema: {} });
    await ok('POST', '/collections', { collection: 'pages_blocks', schema: {}, fields: [pk(), { field: 'pages_id', type: 'integer' }, { field: 'item', type: 'string' }, { field: 'collection', type: 'string' }] });
    await ok('POST', '/fields/pages', { field: 'blocks', type: 'alias', meta: { special: ['m2a'] } });
    const a2o = await ok('POST', '/relations', { collection: 'pages_blocks', field: 'item', related_collection: null, meta: { one_allowed_collections: ['block_hero', 'block_text'], one_collection_field: 'collection', junction_field: 'pages_id' } });
    expect(a2o).toMatchObject({ related_collection: null, schema: null, meta: { one_allowed_collections: ['block_hero', 'block_text'], one_collection_field: 'collection' } });
    const [row] = await run<{ one_allowed_collections: string }>(t.services.database.db, "select one_allowed_collections from svc_relations where many_field = 'item'");
    expect(row.one_allowed_collections).toBe('block_hero,block_text');
    await ok('POST', '/relations', { collection: 'pages_blocks', field: 'pages_id', related_collection: 'pages', meta: { one_field: 'blocks', junction_field: 'item' } });
    const schema = await t.services.schema.get();
    expect(relationOf(schema, 'pages_blocks', 'item')).toMatchObject({ kind: 'a2o', allowed: ['block_hero', 'block_text'], collectionField: 'collection' });

    for (const meta of [{ one_allowed_collections: ['nowhere'], one_collection_field: 'collection' }, { one_allowed_collections: ['block_hero'] }, { one_allowed_collections: ['block_hero'], one_collection_field: 'nope' }]) {
      const res = await t.req('POST', '/relations', { collection: 'pages_blocks', field: 'collection', related_collection: null, meta });
      expect(res.status, JSON.stringify(meta)).toBe(400);
    }
  });

  it('deleting a collection cleans both sides of its relations', async () => {
    expect((await t.req('DELETE', '/collections/block_text')).status).toBe(204);
    const a2o = await ok('GET', '/relations/pages_blocks/item');
    expect(a2o.meta.one_allowed_collections).toEqual(['block_hero']);

    expect((await t.req('DELETE', '/collections/posts')).status).toBe(204);
    expect(await tableExists(t, 'posts')).toBe(false);
    // Directus removes the junction's field that pointed at the deleted collection, with its relation.
    expect((await columnsOf(t, 'posts_tags')).posts_id).toBeUndefined();
    const rels = await ok('GET', '/relations/posts_tags');
    expect(rels.map((r: { field: string }) => r.field)).toEqual(['tags_id']);
    expect(await run(t.services.database.db, "select 1 from svc_relations where many_collection = 'posts' or one_collection = 'posts'")).toHaveLength(0);

    expect((await t.req('DELETE', '/collections/pages')).status).toBe(204);
    expect((await t.req('GET', '/fields/pages_blocks/pages_id')).status).toBe(404);
  });
});

describe('relation reads for app users', () => {
  it('shows only relations between readable collections', async () => {
    const token = await createAppUser(t, { readable: { posts_tags: null } });
    const res = await t.req('GET', '/relations', undefined, { token });
    expect(res.status).toBe(200);
    // Relations between svc_ collections appear per the built-in app_access grants (core/access/builtin.ts).
    const userRelations = (data: { collection: string; field: string }[]) => data.filter((r) => !r.collection.startsWith('svc_'));
    expect(userRelations(res.body.data)).toEqual([]);
    const both = await createAppUser(t, { readable: { posts_tags: null, tags: null } });
    const visible = await t.req('GET', '/relations', undefined, { token: both });
    expect(userRelations(visible.body.data).map((r: { field: string }) => r.field)).toEqual(['tags_id']);
    expect((await t.req('GET', '/relations', undefined, { token: null })).status).toBe(403);
  });
});
