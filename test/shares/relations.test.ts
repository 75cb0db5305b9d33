/** Share tokens read the relations of the shared item, as far as the share's role may read them, and no
 * further: the top level stays the shared item, nested reads and relational filters stay in the share's
 * reach (the rows related to the shared item). */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
/** Reads posts, authors (not their email), comments, tags, pages and hero blocks; not text blocks. */
let wideRole: string;
/** Reads posts only. */
let postsOnlyRole: string;
const WIDE_USER = 'share-rel-wide-user';
const POSTS_ONLY_USER = 'share-rel-posts-user';

const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);

async function shareToken(collection: string, item: string, role: string): Promise<string> {
  const id = randomUUID();
  await q('insert into svc_shares (id, collection, item, role) values ($1, $2, $3, $4)', [id, collection, item, role]);
  const res = await t.req('POST', '/shares/auth', { share: id }, { token: null });
  expect(res.status).toBe(200);
  return res.body.data.access_token;
}

const get = (path: string, token: string) => t.req('GET', path, undefined, { token });

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services, { seed: true });
  // tags get their side of the M2M (tags.posts, O2M to the junction), so a read can walk post -> tag -> other posts.
  await q("insert into svc_fields (collection, field, special) values ('tags', 'posts', 'o2m')");
  await q("update svc_relations set one_field = 'posts' where many_collection = 'posts_tags' and many_field = 'tags_id'");
  // authors.country is an M2O without an O2M alias on countries; countries.cities is an O2M.
  await run(t.services.database.db, `
    create table countries (id serial primary key, name varchar(64));
    create table cities (id serial primary key, name varchar(64), country integer references countries(id));
    alter table authors add column country integer references countries(id);
    insert into countries (name) values ('UK');
    insert into cities (name, country) values ('London', 1), ('Leeds', 1);
    update authors set country = 1;
    insert into svc_collections (collection) values ('countries'), ('cities');
    insert into svc_fields (collection, field, special) values ('countries', 'cities', 'o2m');
    insert into svc_relations (many_collection, many_field, one_collection, one_field) values
      ('authors', 'country', 'countries', null), ('cities', 'country', 'countries', 'cities');
  `);
  ({ role: wideRole } = await createPrincipal(t.services, {
    token: WIDE_USER,
    permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'author', 'comments', 'tags'] },
      { collection: 'authors', action: 'read', fields: ['id', 'name', 'posts', 'country'] },
      { collection: 'countries', action: 'read' },
      { collection: 'cities', action: 'read' },
      { collection: 'comments', action: 'read' },
      { collection: 'posts_tags', action: 'read' },
      { collection: 'tags', action: 'read' },
      { collection: 'pages', action: 'read' },
      { collection: 'pages_blocks', action: 'read' },
      { collection: 'block_hero', action: 'read' },
      { collection: 'authors', action: 'update' },
    ],
  }));
  ({ role: postsOnlyRole } = await createPrincipal(t.services, {
    token: POSTS_ONLY_USER,
    permissions: [{ collection: 'posts', action: 'read', fields: ['id', 'title', 'author'] }],
  }));
});
afterAll(async () => { await t.close(); });

describe('relations of the shared item', () => {
  it('M2O: the author of the shared post, with the fields the role may read', async () => {
    const token = await shareToken('posts', '1', wideRole);
    const res = await get('/items/posts/1?fields=id,title,author.name,author.email', token);
    expect(res.status).toBe(200);
    // email is outside the role's field list: dropped, as for any user of the role.
    expect(res.body).toEqual({ data: { id: 1, title: 'Hello world', author: { name: 'Ada' } } });
    const asUser = await get('/items/posts/1?fields=id,title,author.name,author.email', WIDE_USER);
    expect(asUser.body).toEqual(res.body);
  });

  it('O2M and M2M: the shared post\'s comments and tags, in their default order', async () => {
    const token = await shareToken('posts', '1', wideRole);
    const res = await get('/items/posts/1?fields=comments.text,tags.tags_id.label', token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      comments: [{ text: 'Great post' }, { text: 'Agreed' }],
      tags: [{ tags_id: { label: 'News' } }, { tags_id: { label: 'Technology' } }],
    });
    // Lists of the shared list as the list endpoint's list.
    const list = await get('/items/posts?fields=id,author.name,comments', token);
    expect(list.body.data).toEqual([{ id: 1, author: { name: 'Ada' }, comments: ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'] }]);
  });

  it('A2O: the blocks of a shared page; a block collection the role cannot read stays a key', async () => {
    const token = await shareToken('pages', '1', wideRole);
    const fields = 'fields=title,blocks.collection,blocks.item:block_hero.headline';
    const res = await get(`/items/pages/1?${fields}`, token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      title: 'Landing',
      blocks: [{ collection: 'block_hero', item: { headline: 'Welcome' } }, { collection: 'block_text', item: '1' }],
    });
    expect((await get(`/items/pages/1?${fields}`, WIDE_USER)).body).toEqual(res.body);
    // Asking for every block collection names one the role cannot read: refused, as for the user.
    expect((await get('/items/pages/1?fields=blocks.item.*', token)).status).toBe(403);
    expect((await get('/items/pages/1?fields=blocks.item.*', WIDE_USER)).status).toBe(403);
  });

  it('a related collection the role cannot read is refused as for any user of the role; its key stays readable', async () => {
    const token = await shareToken('posts', '1', postsOnlyRole);
    for (const who of [token, POSTS_ONLY_USER]) {
      const res = await get('/items/posts/1?fields=id,author.name', who);
      expect(res.status).toBe(403);
      expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    expect((await get('/items/posts/1', token)).body).toEqual({ data: { id: 1, title: 'Hello world', author: 1 } });
    // A filter through the unreadable relation is refused too.
    expect((await get('/items/posts?filter[author][name][_eq]=Ada', token)).status).toBe(403);
  });
});

describe('confinement', () => {
  it('the top level stays the shared item: other items, other collections and lists', async () => {
    const token = await shareToken('posts', '1', wideRole);
    // Directus would list the related rows of /items/authors; the top level here is the shared item only.
    for (const path of ['/items/posts/2', '/items/authors', '/items/authors/1', '/items/comments', '/items/tags/news', '/items/posts_tags']) {
      expect({ path, status: (await get(path, token)).status }).toEqual({ path, status: 403 });
    }
    const list = await get('/items/posts?fields=id&meta=total_count,filter_count&limit=-1', token);
    expect(list.body).toEqual({ data: [{ id: 1 }], meta: { total_count: 1, filter_count: 1 } });
    const count = await get('/items/posts?aggregate[count]=*', token);
    expect(count.body).toEqual({ data: [{ count: 1 }] });
  });

  it('nested reads stay in reach: the author\'s other posts are not the share\'s', async () => {
    const token = await shareToken('posts', '1', wideRole);
    const res = await get('/items/posts/1?fields=author.posts.title', token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ author: { posts: [{ title: 'Hello world' }] } });
    const keys = await get('/items/posts/1?fields=author.posts', token);
    expect(keys.body.data).toEqual({ author: { posts: [1] } });
    // The role's user sees them all.
    const asUser = await get('/items/posts/1?fields=author.posts.title', WIDE_USER);
    expect(asUser.body.data.author.posts.map((p: { title: string }) => p.title)).toEqual(['Hello world', 'Second post']);
  });

  it('nested reads stay in reach past the shared collection: a tag\'s junction rows of other posts are not the share\'s', async () => {
    const token = await shareToken('posts', '1', wideRole);
    const path = '/items/posts/1?fields=tags.tags_id.id,tags.tags_id.posts.posts_id';
    const res = await get(path, token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ tags: [
      { tags_id: { id: 'news', posts: [{ posts_id: 1 }] } },
      { tags_id: { id: 'tech', posts: [{ posts_id: 1 }] } },
    ] });
    // The role's user sees that post 2 is tagged "tech" too.
    const asUser = await get(path, WIDE_USER);
    expect(asUser.body.data.tags[1].tags_id.posts).toEqual([{ posts_id: 1 }, { posts_id: 2 }]);
  });

  it('an M2O without its O2M alias leads to its row and no further (Directus\' rule)', async () => {
    const token = await shareToken('posts', '1', wideRole);
    const res = await get('/items/posts/1?fields=author.country.name,author.country.cities', token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ author: { country: { name: 'UK' } } });
    expect((await get('/items/posts/1?fields=author.country.cities.name', token)).status).toBe(403);
    const asUser = await get('/items/posts/1?fields=author.country.cities.name', WIDE_USER);
    expect(asUser.body.data).toEqual({ author: { country: { cities: [{ name: 'London' }, { name: 'Leeds' }] } } });
  });

  it('relational filters test only rows in reach', async () => {
    const token = await shareToken('posts', '1', wideRole);
    const path = '/items/posts?fields=id&filter[author][posts][title][_eq]=Second%20post';
    expect((await get(path, token)).body).toEqual({ data: [] });
    expect((await get(path, WIDE_USER)).body).toEqual({ data: [{ id: 1 }, { id: 2 }] });
    const deep = '/items/posts/1?fields=author.posts.id&deep[author][posts][_filter][title][_neq]=x';
    expect((await get(deep, token)).body).toEqual({ data: { author: { posts: [{ id: 1 }] } } });
    const within = '/items/posts?fields=id&filter[comments][text][_eq]=Agreed';
    expect((await get(within, token)).body).toEqual({ data: [{ id: 1 }] });
  });

  it('writes through the relations stay refused', async () => {
    const token = await shareToken('posts', '1', wideRole);
    expect((await t.req('PATCH', '/items/authors/1', { name: 'changed' }, { token })).status).toBe(403);
    expect((await t.req('PATCH', '/items/posts/1', { author: { id: 1, name: 'changed' } }, { token })).status).toBe(403);
    expect((await q('select name from authors where id = 1'))[0].name).toBe('Ada');
  });

  it('two shares of the same query read their own items, and an edited share\'s new tokens read the new item', async () => {
    const path = '/items/posts?fields=id,author.name';
    const first = await shareToken('posts', '1', wideRole);
    const fourth = await shareToken('posts', '4', wideRole);
    for (let i = 0; i < 2; i++) {
      expect((await get(path, first)).body).toEqual({ data: [{ id: 1, author: { name: 'Ada' } }] });
      expect((await get(path, fourth)).body).toEqual({ data: [{ id: 4, author: { name: 'Brian' } }] });
    }
    const id = randomUUID();
    await q('insert into svc_shares (id, collection, item, role) values ($1, $2, $3, $4)', [id, 'posts', '1', wideRole]);
    const before = (await t.req('POST', '/shares/auth', { share: id }, { token: null })).body.data.access_token;
    expect((await get(path, before)).body.data).toEqual([{ id: 1, author: { name: 'Ada' } }]);
    await q("update svc_shares set item = '3' where id = $1", [id]);
    const after = (await t.req('POST', '/shares/auth', { share: id }, { token: null })).body.data.access_token;
    expect((await get(path, after)).body.data).toEqual([{ id: 3, author: { name: 'Brian' } }]);
  });

  it('a share whose item cannot be a key of its collection reads nothing (403, not 500)', async () => {
    const token = await shareToken('posts', 'not-a-number', wideRole);
    expect((await get('/items/posts', token)).status).toBe(403);
    expect((await get('/items/posts/not-a-number', token)).status).toBe(403);
  });
});
