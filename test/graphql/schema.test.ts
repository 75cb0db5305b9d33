/** Generated schemas: per role, what it cannot read is absent (introspection shows it); cached per schema
 * version and role; /graphql/system serves svc_ collections only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { schemaBuildCount } from '../../core/graphql/cache.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { gql, introspect } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  const db = t.services.database.db;
  await run(db, `create table secrets (id serial primary key, code text);
    insert into secrets (code) values ('s3cr3t');
    alter table posts add column secret integer references secrets(id);
    create table "bad-name" (id serial primary key, x text);
    insert into svc_collections (collection) values ('secrets'), ('bad-name');
    insert into svc_relations (many_collection, many_field, one_collection, one_field) values ('posts', 'secret', 'secrets', 'posts');`);
  await t.services.schema.invalidate();
  await createPrincipal(t.services, { token: 'narrow', permissions: [{ collection: 'posts', action: 'read', fields: ['id', 'title'] }] });
  await createPrincipal(t.services, {
    token: 'wide',
    permissions: [
      { collection: 'posts', action: 'read' },
      { collection: 'authors', action: 'read', fields: ['id', 'name'] },
      { collection: 'tags', action: 'create' },
      { collection: 'tags', action: 'read' },
    ],
  });
  await createPrincipal(t.services, { token: 'nothing', permissions: [] });
});
afterAll(async () => { await t.close(); });

describe('schema per role', () => {
  it('admin sees every user collection with queries and mutations, none of the svc_ ones', async () => {
    const s = await introspect(t);
    for (const c of ['authors', 'posts', 'comments', 'tags', 'posts_tags', 'pages', 'pages_blocks', 'secrets']) {
      expect(s.queries).toEqual(expect.arrayContaining([c, `${c}_by_id`, `${c}_aggregated`]));
      expect(s.mutations).toEqual(expect.arrayContaining([`create_${c}_item`, `create_${c}_items`, `update_${c}_item`, `update_${c}_items`, `delete_${c}_item`, `delete_${c}_items`]));
    }
    expect(s.queries).toContain('home');
    expect(s.queries).not.toContain('home_by_id');
    expect(s.mutations).toContain('update_home');
    expect(s.queries.some((q) => q.startsWith('svc_'))).toBe(false);
    // Invalid GraphQL names are left out.
    expect([...s.types.keys()].some((n) => n.includes('bad'))).toBe(false);
    expect(s.types.get('posts')).toEqual(expect.arrayContaining(['id', 'title', 'author', 'comments', 'tags', 'secret']));
  });

  it('a role reading posts (id, title) sees only those: no secrets, no relations, no mutations', async () => {
    const s = await introspect(t, 'narrow');
    expect(s.queries.sort()).toEqual(['posts', 'posts_aggregated', 'posts_by_id']);
    expect(s.mutations).toEqual([]);
    expect(s.types.get('posts')).toEqual(['id', 'title']);
    expect(s.types.has('secrets')).toBe(false);
    expect(s.types.has('secrets_filter')).toBe(false);
    expect(s.types.get('posts_filter')!.sort()).toEqual(['_and', '_or', 'id', 'title']);
    const r = await gql(t, '{ posts(limit: 1) { id title } }', undefined, { token: 'narrow' });
    expect(r.status).toBe(200);
    expect(r.body.data.posts).toEqual([{ id: '1', title: 'Hello world' }]);
    const hidden = await gql(t, '{ posts { body } }', undefined, { token: 'narrow' });
    expect(hidden.status).toBe(400);
    expect(hidden.body.errors[0].extensions.code).toBe('INVALID_QUERY');
    const other = await gql(t, '{ secrets { code } }', undefined, { token: 'narrow' });
    expect(other.status).toBe(400);
  });

  it('relation fields into unreadable collections are absent; readable ones nest; granted mutations only', async () => {
    const s = await introspect(t, 'wide');
    const posts = s.types.get('posts')!;
    expect(posts).toContain('author');
    expect(posts).not.toContain('secret');
    expect(posts).not.toContain('comments');
    expect(s.types.get('authors')).toEqual(['id', 'name']);
    expect(s.mutations.sort()).toEqual(['create_tags_item', 'create_tags_items']);
    expect(s.types.get('create_tags_input')!.sort()).toEqual(['id', 'label']);
    const r = await gql(t, '{ posts_by_id(id: 1) { title author { name } } }', undefined, { token: 'wide' });
    expect(r.body).toEqual({ data: { posts_by_id: { title: 'Hello world', author: { name: 'Ada' } } } });
  });

  it('a role that can read nothing gets an empty schema, not an error', async () => {
    const s = await introspect(t, 'nothing');
    expect(s.queries).toEqual(['_empty']);
  });

  it('anonymous callers get 401', async () => {
    const r = await gql(t, '{ posts { id } }', undefined, { token: null });
    expect(r.status).toBe(401);
    expect(r.body.errors[0].extensions.code).toBeDefined();
  });
});

describe('schema cache', () => {
  it('reuses the built schema for the same role and rebuilds after a schema change', async () => {
    await gql(t, '{ tags { id } }', undefined, { token: 'wide' });
    const before = schemaBuildCount();
    await gql(t, '{ tags { id } }', undefined, { token: 'wide' });
    await gql(t, '{ tags { label } }', undefined, { token: 'wide' });
    expect(schemaBuildCount()).toBe(before);

    const added = await t.req('POST', '/fields/tags', { field: 'color', type: 'string' });
    expect(added.status).toBe(200);
    await run(t.services.database.db, "update tags set color = 'red' where id = 'news'");
    const r = await gql(t, '{ tags_by_id(id: "news") { color } }');
    expect(r.body).toEqual({ data: { tags_by_id: { color: 'red' } } });
    const wide = await gql(t, '{ tags_by_id(id: "news") { color } }', undefined, { token: 'wide' });
    expect(wide.body).toEqual({ data: { tags_by_id: { color: 'red' } } });
    expect(schemaBuildCount()).toBeGreaterThan(before);
  });
});

describe('/graphql/system', () => {
  it('admin reads svc_ collections; user collections are absent; no mutations', async () => {
    const r = await gql(t, '{ svc_users { email role { name } } svc_roles { name } }', undefined, { path: '/graphql/system' });
    expect(r.status).toBe(200);
    expect(r.body.data.svc_users).toEqual(expect.arrayContaining([expect.objectContaining({ email: 'admin@example.com' })]));
    const s = await introspect(t, undefined, '/graphql/system');
    expect(s.queries).toContain('svc_users');
    expect(s.queries).not.toContain('posts');
    expect(s.queries).not.toContain('svc_sessions');
    expect(s.mutations).toEqual([]);
    const user = await gql(t, '{ posts { id } }', undefined, { path: '/graphql/system' });
    expect(user.status).toBe(400);
  });

  it('a non-admin sees the svc_ collections its permissions let it read, under their row rules', async () => {
    await createPrincipal(t.services, { token: 'app', permissions: [], appAccess: true });
    const r = await gql(t, '{ svc_users { email } }', undefined, { token: 'app', path: '/graphql/system' });
    expect(r.status).toBe(200);
    expect(r.body.data.svc_users).toEqual([{ email: 'app@example.com' }]);
    const s = await introspect(t, 'app', '/graphql/system');
    expect(s.types.get('svc_users')).not.toContain('password');
    const none = await introspect(t, 'narrow', '/graphql/system');
    expect(none.queries).toEqual(['_empty']);
  });
});
