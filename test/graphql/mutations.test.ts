/** Mutations: the write services with activity, the written items read back with the caller's selection,
 * service errors keeping their codes and statuses. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { gql } from './helpers.ts';

let t: TestApp;
const count = async (where: string, params: unknown[] = []) =>
  Number((await run<{ n: string }>(t.services.database.db, `select count(*)::int as n from ${where}`, params))[0].n);

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  await createPrincipal(t.services, {
    token: 'writer',
    permissions: [
      { collection: 'tags', action: 'read', fields: ['id'] },
      { collection: 'tags', action: 'create' },
      { collection: 'tags', action: 'update' },
    ],
  });
});
afterAll(async () => { await t.close(); });

describe('create, update, delete', () => {
  it('create one and many, read back with the selection, with activity', async () => {
    const one = await gql(t, 'mutation { create_tags_item(data: {id: "g1", label: "One"}) { id label } }');
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ data: { create_tags_item: { id: 'g1', label: 'One' } } });
    const many = await gql(t, 'mutation ($d: [create_tags_input!]) { create_tags_items(data: $d) { id label } }', { d: [{ id: 'g2', label: 'Two' }, { id: 'g3', label: 'Three' }] });
    expect(many.body).toEqual({ data: { create_tags_items: [{ id: 'g2', label: 'Two' }, { id: 'g3', label: 'Three' }] } });
    expect(await count("svc_activity where collection = 'tags' and item in ('g1', 'g2', 'g3') and action = 'create'")).toBe(3);
  });

  it('nested relational create (M2O object, O2M list) in one mutation', async () => {
    const r = await gql(t, `mutation { create_posts_item(data: {title: "Nested", author: {name: "Dora"}, comments: [{id: "00000000-0000-4000-8000-0000000000aa", text: "first"}]}) {
      title author { name } comments { text } } }`);
    expect(r.body).toEqual({ data: { create_posts_item: { title: 'Nested', author: { name: 'Dora' }, comments: [{ text: 'first' }] } } });
  });

  it('update one and many, with activity', async () => {
    const one = await gql(t, 'mutation { update_tags_item(id: "g1", data: {label: "Uno"}) { id label } }');
    expect(one.body).toEqual({ data: { update_tags_item: { id: 'g1', label: 'Uno' } } });
    const many = await gql(t, 'mutation { update_tags_items(ids: ["g2", "g3"], data: {label: "Same"}) { label } }');
    expect(many.body).toEqual({ data: { update_tags_items: [{ label: 'Same' }, { label: 'Same' }] } });
    expect(await count("svc_activity where collection = 'tags' and item in ('g1', 'g2', 'g3') and action = 'update'")).toBe(3);
    const post = await gql(t, 'mutation { update_posts_item(id: 1, data: {views: 11, labels: ["x", "y"], meta: {a: [1, 2]}}) { views labels meta } }');
    expect(post.body).toEqual({ data: { update_posts_item: { views: 11, labels: ['x', 'y'], meta: { a: [1, 2] } } } });
  });

  it('a singleton is updated (created if missing) by update_{c}', async () => {
    const r = await gql(t, 'mutation { update_home(data: {headline: "Hi"}) { headline } }');
    expect(r.body).toEqual({ data: { update_home: { headline: 'Hi' } } });
    expect((await gql(t, '{ home { headline } }')).body).toEqual({ data: { home: { headline: 'Hi' } } });
  });

  it('delete one and many, with activity', async () => {
    const one = await gql(t, 'mutation { delete_tags_item(id: "g1") { id } }');
    expect(one.body).toEqual({ data: { delete_tags_item: { id: 'g1' } } });
    const many = await gql(t, 'mutation { delete_tags_items(ids: ["g2", "g3"]) { ids } }');
    expect(many.body.data.delete_tags_items.ids.sort()).toEqual(['g2', 'g3']);
    expect(await count("tags where id in ('g1', 'g2', 'g3')")).toBe(0);
    expect(await count("svc_activity where collection = 'tags' and item in ('g1', 'g2', 'g3') and action = 'delete'")).toBe(3);
  });
});

describe('permissions and service errors', () => {
  it('a role gets only its granted mutations; the read-back shows only what it may read', async () => {
    const r = await gql(t, 'mutation { create_tags_item(data: {id: "w1", label: "W"}) { id } }', undefined, { token: 'writer' });
    expect(r.body).toEqual({ data: { create_tags_item: { id: 'w1' } } });
    const del = await gql(t, 'mutation { delete_tags_item(id: "w1") { id } }', undefined, { token: 'writer' });
    expect(del.status).toBe(400);
    expect(del.body.errors[0].extensions.code).toBe('INVALID_QUERY');
    const posts = await gql(t, 'mutation { create_posts_item(data: {title: "x"}) { id } }', undefined, { token: 'writer' });
    expect(posts.status).toBe(400);
  });

  it('FORBIDDEN from the service: updating an item that does not exist', async () => {
    const r = await gql(t, 'mutation { update_tags_item(id: "nope", data: {label: "x"}) { id } }', undefined, { token: 'writer' });
    expect(r.status).toBe(403);
    expect(r.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(r.body.errors[0].path).toEqual(['update_tags_item']);
  });

  it('RECORD_NOT_UNIQUE and INVALID_PAYLOAD keep their codes and statuses; nothing is half-written', async () => {
    const dup = await gql(t, 'mutation { create_tags_items(data: [{id: "u1"}, {id: "news"}]) { id } }');
    expect(dup.status).toBe(409);
    expect(dup.body.errors[0].extensions.code).toBe('RECORD_NOT_UNIQUE');
    expect(await count("tags where id = 'u1'")).toBe(0);
    const bad = await gql(t, 'mutation { update_posts_item(id: 1, data: {publish_date: "not a date"}) { id } }');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
  });

  it('a failing root field beside a good one: the error status, the data of the good field kept', async () => {
    const r = await gql(t, '{ tags(limit: 1) { id } posts_by_id(id: "not-a-number") { id } }');
    expect(r.status).toBe(403);
    expect(r.body.data.tags).toEqual([{ id: 'misc' }]);
    expect(r.body.data.posts_by_id).toBeNull();
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('mutations are refused over GET', async () => {
    const r = await t.req('GET', `/graphql?query=${encodeURIComponent('mutation { delete_tags_item(id: "news") { id } }')}`);
    expect(r.status).toBe(405);
    expect(r.body.errors[0].extensions.code).toBeDefined();
    expect(await count("tags where id = 'news'")).toBe(1);
  });
});
