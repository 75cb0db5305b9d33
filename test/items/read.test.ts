import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
let reader: { user: string };
beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  await run(t.services.database.db, 'alter table posts add column owner uuid');
  reader = await createPrincipal(t.services, {
    token: 'reader',
    permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'status', 'author', 'owner', 'comments'], permissions: { _or: [{ status: { _eq: 'published' } }, { owner: { _eq: '$CURRENT_USER' } }] } },
      { collection: 'authors', action: 'read', fields: ['id', 'name'] },
    ],
  });
  await run(t.services.database.db, 'update posts set owner = $1 where id = 3', [reader.user]);
  await t.services.schema.invalidate();
});
afterAll(async () => { await t.close(); });

const ids = (body: any) => body.data.map((r: any) => r.id);

describe('GET /items: wire types', () => {
  it('returns every field type in its wire shape', async () => {
    const r = await t.req('GET', '/items/posts/1');
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      id: 1, title: 'Hello world', status: 'published', views: 10, rating: '4.50',
      published_on: '2024-01-01T10:00:00.000Z', publish_date: '2024-01-01', publish_time: '10:00:00',
      local_dt: '2024-01-01T10:00:00', uid: '6f1c4a64-3b0e-4f53-9a51-0f0a0e4f7b01', labels: ['a', 'b'],
      meta: { k: 1 }, big: '9007199254740993', author: 1,
      comments: ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'], tags: [1, 2],
    });
  });

  it('defaults to 100 rows sorted by primary key; limit -1 returns all', async () => {
    const r = await t.req('GET', '/items/posts?fields=id');
    expect(ids(r.body)).toEqual([1, 2, 3, 4, 5]);
    const all = await t.req('GET', '/items/posts?fields=id&limit=-1');
    expect(all.body.data).toHaveLength(5);
  });

  it('pages with limit, offset and page', async () => {
    expect(ids((await t.req('GET', '/items/posts?fields=id&limit=2&offset=1')).body)).toEqual([2, 3]);
    expect(ids((await t.req('GET', '/items/posts?fields=id&limit=2&page=3')).body)).toEqual([5]);
  });

  it('answers a missing item with 403 and an unknown collection with 404', async () => {
    expect((await t.req('GET', '/items/posts/999')).status).toBe(403);
    expect((await t.req('GET', '/items/posts/abc')).status).toBe(403);
    const r = await t.req('GET', '/items/nope');
    expect(r.status).toBe(404);
    expect(r.body.errors[0].extensions.code).toBe('COLLECTION_NOT_FOUND');
  });

  it('reads a singleton as one object, creating it when missing', async () => {
    const r = await t.req('GET', '/items/home');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: expect.any(Number), headline: null });
    const again = await t.req('GET', '/items/home');
    expect(again.body.data.id).toBe(r.body.data.id);
  });
});

describe('fields', () => {
  it.each([
    ['/items/posts/1?fields=title,author.name', { title: 'Hello world', author: { name: 'Ada' } }],
    ['/items/posts/1?fields=id,comments.text', { id: 1, comments: [{ text: 'Great post' }, { text: 'Agreed' }] }],
    ['/items/posts/1?fields=tags.tags_id.label', { tags: [{ tags_id: { label: 'News' } }, { tags_id: { label: 'Technology' } }] }],
    ['/items/posts/1?fields[]=id&fields[]=author.name', { id: 1, author: { name: 'Ada' } }],
    ['/items/authors/1?fields=name,posts.title', { name: 'Ada', posts: [{ title: 'Hello world' }, { title: 'Second post' }] }],
    ['/items/posts/5?fields=id,author.name', { id: 5, author: null }],
  ])('%s', async (url, expected) => {
    const r = await t.req('GET', url);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(expected);
  });

  it('expands A2O with collection scopes (item:collection.field)', async () => {
    const r = await t.req('GET', '/items/pages?fields=title,blocks.collection,blocks.item:block_hero.headline,blocks.item:block_text.body');
    expect(r.body.data[0]).toEqual({
      title: 'Landing',
      blocks: [{ collection: 'block_hero', item: { headline: 'Welcome' } }, { collection: 'block_text', item: { body: 'Some text' } }],
    });
  });

  it('expands A2O unscoped with * across allowed collections, raw key otherwise', async () => {
    const r = await t.req('GET', '/items/pages_blocks?fields=id,item.*&sort=id');
    expect(r.body.data[0]).toEqual({ id: 1, item: { id: 1, headline: 'Welcome' } });
    expect(r.body.data[1]).toEqual({ id: 2, item: { id: 1, body: 'Some text' } });
    const raw = await t.req('GET', '/items/pages_blocks/1?fields=item');
    expect(raw.body.data).toEqual({ item: '1' });
  });

  it('supports *.* for one level of every relation', async () => {
    const r = await t.req('GET', '/items/comments/00000000-0000-4000-8000-000000000001?fields=*.*');
    expect(r.body.data.post).toMatchObject({ id: 1, title: 'Hello world' });
  });

  it('rejects unknown fields and non-relational nesting with INVALID_QUERY naming the field', async () => {
    const a = await t.req('GET', '/items/posts?fields=nope');
    expect(a.status).toBe(400);
    expect(a.body.errors[0].extensions.code).toBe('INVALID_QUERY');
    expect(a.body.errors[0].message).toContain('nope');
    const b = await t.req('GET', '/items/posts?fields=title.x');
    expect(b.status).toBe(400);
    const c = await t.req('GET', '/items/posts?fields=author.nope');
    expect(c.body.errors[0].message).toContain('nope');
  });
});

describe('filter', () => {
  it.each([
    ['filter[status][_eq]=published', [1, 2, 4]],
    ['filter[status][_neq]=published', [3, 5]],
    ['filter[views][_lt]=10', [3, 5]],
    ['filter[views][_lte]=10', [1, 3, 5]],
    ['filter[views][_gt]=10', [2, 4]],
    ['filter[views][_gte]=25', [2, 4]],
    ['filter[id][_in]=1,3', [1, 3]],
    ['filter[id][_in][]=2&filter[id][_in][]=4', [2, 4]],
    ['filter[id][_nin]=1,3', [2, 4, 5]],
    ['filter[body][_null]=true', [5]],
    ['filter[body][_nnull]=true', [1, 2, 3, 4]],
    ['filter[title][_contains]=post', [2]],
    ['filter[title][_ncontains]=o', [5]],
    ['filter[title][_icontains]=HELLO', [1]],
    ['filter[title][_starts_with]=C ', [4]],
    ['filter[title][_ends_with]=thoughts', [3]],
    ['filter[views][_between]=5,25', [1, 2, 5]],
    ['filter[views][_nbetween]=5,25', [3, 4]],
    ['filter[labels][_empty]=true', [3, 4, 5]],
    ['filter[labels][_nempty]=true', [1, 2]],
    ['filter[rating][_gt]=3.5', [1, 4]],
    ['filter[published_on][_gte]=2024-02-01T00:00:00Z', [2, 4]],
    ['filter[publish_date][_lt]=2024-01-15', [1, 5]],
    ['filter[uid][_eq]=6f1c4a64-3b0e-4f53-9a51-0f0a0e4f7b01', [1]],
    ['filter[title][_contains]=%25', []],
    ['filter[_or][0][views][_gt]=50&filter[_or][1][status][_eq]=draft', [3, 4]],
    ['filter[_and][0][status][_eq]=published&filter[_and][1][views][_lt]=50', [1, 2]],
    ['filter={"_or":[{"views":{"_gt":20}},{"status":{"_in":["draft"]}}]}', [2, 3, 4]],
    ['filter[author][name][_eq]=Ada', [1, 2]],
    ['filter[author][_eq]=2', [3, 4]],
    ['filter[comments][text][_eq]=Nice', [2]],
    ['filter[comments][_some][user_name][_eq]=x', [1, 2]],
    ['filter[comments][_none][user_name][_eq]=x', [3, 4, 5]],
    ['filter[tags][tags_id][label][_eq]=Technology', [1, 2]],
  ])('%s', async (qs, expected) => {
    const r = await t.req('GET', `/items/posts?fields=id&${qs}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r.body)).toEqual(expected);
  });

  it('filters through M2O from the junction side and through A2O', async () => {
    const j = await t.req('GET', '/items/posts_tags?fields=id&filter[tags_id][label][_eq]=News');
    expect(ids(j.body)).toEqual([1]);
    const a = await t.req('GET', '/items/pages_blocks?fields=id&filter[item][headline][_eq]=Welcome');
    expect(ids(a.body)).toEqual([1]);
    const scoped = await t.req('GET', '/items/pages_blocks?fields=id&filter[item:block_text][body][_contains]=text');
    expect(ids(scoped.body)).toEqual([2]);
  });

  it('resolves $NOW and $NOW(-1 day) and $CURRENT_USER', async () => {
    await run(t.services.database.db, "update posts set published_on = now() - interval '2 hours' where id = 5");
    const r = await t.req('GET', '/items/posts?fields=id&filter[published_on][_gte]=$NOW(-1 day)');
    expect(ids(r.body)).toEqual([5]);
    const future = await t.req('GET', '/items/posts?fields=id&filter[published_on][_gt]=$NOW');
    expect(ids(future.body)).toEqual([]);
    await run(t.services.database.db, "update posts set published_on = '2023-12-31T23:00:00Z' where id = 5");
    const mine = await t.req('GET', '/items/posts?fields=id&filter[owner][_eq]=$CURRENT_USER', undefined, { token: 'reader' });
    expect(ids(mine.body)).toEqual([3]);
  });

  it.each([
    ['filter[nope][_eq]=1', 'nope'],
    ['filter[views][_foo]=1', '_foo'],
    ['filter[views][_eq]=abc', 'views'],
    ['filter[uid][_eq]=not-a-uuid', 'uid'],
    ['filter[published_on][_gt]=yesterday', 'published_on'],
    ['filter[views][_between]=1', '_between'],
    ['filter={bad json', 'filter'],
    ['filter[author][nope][_eq]=1', 'nope'],
    ['filter[_and]=x', '_and'],
    ['filter[views]=3', 'views'],
  ])('%s -> 400 INVALID_QUERY naming %s', async (qs, needle) => {
    const r = await t.req('GET', `/items/posts?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('INVALID_QUERY');
    expect(r.body.errors[0].message).toContain(needle);
  });

  const EVERY_TYPE = ['id', 'title', 'body', 'views', 'rating', 'published_on', 'publish_date', 'publish_time', 'local_dt',
    'uid', 'labels', 'meta', 'big', 'author'];
  const BAD_OPERANDS = (f: string) => [
    `filter[${f}][_eq][x]=1`,
    `filter[${f}][_gt][a]=1`,
    `filter[${f}][_neq][0]=1&filter[${f}][_neq][1]=2`,
    `filter[${f}][_in][a]=1`,
    `filter[${f}][_nin][a][b]=1`,
    `filter[${f}][_in][0][x]=1`,
    `filter[${f}][_between][a]=1&filter[${f}][_between][b]=2`,
    `filter=${encodeURIComponent(JSON.stringify({ [f]: { _eq: { k: 1 } } }))}`,
    `filter=${encodeURIComponent(JSON.stringify({ [f]: { _lte: [1] } }))}`,
    `filter=${encodeURIComponent(JSON.stringify({ [f]: { _in: { k: 1 } } }))}`,
  ];
  it.each(EVERY_TYPE)('an object or array where an operator takes a scalar is 400 INVALID_QUERY on field %s', async (field) => {
    for (const qs of BAD_OPERANDS(field)) {
      const r = await t.req('GET', `/items/posts?fields=id&${qs}`);
      expect(r.status, qs).toBe(400);
      expect(r.body.errors[0].extensions.code, qs).toBe('INVALID_QUERY');
      expect(r.body.errors[0].message, qs).toContain(field);
    }
  });

  it('refuses filters nested past QUERYSTRING_MAX_PARSE_DEPTH in both encodings', async () => {
    const deep = '[_and][0]'.repeat(8);
    const a = await t.req('GET', `/items/posts?filter${deep}[id][_eq]=1`);
    expect(a.status).toBe(400);
    let json: any = { id: { _eq: 1 } };
    for (let i = 0; i < 12; i++) json = { _and: [json] };
    const b = await t.req('GET', `/items/posts?filter=${encodeURIComponent(JSON.stringify(json))}`);
    expect(b.status).toBe(400);
    expect(b.body.errors[0].extensions.code).toBe('INVALID_QUERY');
  });
});

describe('sort, search, meta', () => {
  it('sorts by several fields, descending and through M2O', async () => {
    expect(ids((await t.req('GET', '/items/posts?fields=id&sort=-views')).body)).toEqual([4, 2, 1, 5, 3]);
    expect(ids((await t.req('GET', '/items/posts?fields=id&sort=status,-id')).body)).toEqual([5, 3, 4, 2, 1]);
    expect(ids((await t.req('GET', '/items/posts?fields=id&sort[]=author.name&sort[]=id&filter[author][_nnull]=true')).body)).toEqual([1, 2, 3, 4]);
  });

  it('searches text fields, numbers exactly', async () => {
    expect(ids((await t.req('GET', '/items/posts?fields=id&search=ENGINES')).body)).toEqual([1, 2]);
    expect(ids((await t.req('GET', '/items/posts?fields=id&search=25')).body)).toEqual([2]);
  });

  it('adds meta only when asked', async () => {
    const plain = await t.req('GET', '/items/posts?fields=id');
    expect(plain.body.meta).toBeUndefined();
    const r = await t.req('GET', '/items/posts?fields=id&filter[status][_eq]=published&meta=total_count,filter_count');
    expect(r.body.meta).toEqual({ total_count: 5, filter_count: 3 });
    const star = await t.req('GET', '/items/posts?fields=id&meta=*&search=engines');
    expect(star.body.meta).toEqual({ total_count: 5, filter_count: 2 });
  });
});

describe('aggregate', () => {
  it.each([
    ['aggregate[count]=*', [{ count: 5 }]],
    ['aggregate[count]=id', [{ count: { id: 5 } }]],
    ['aggregate[countDistinct]=status', [{ countDistinct: { status: 3 } }]],
    ['aggregate[sum]=views&aggregate[max]=views&aggregate[min]=views', [{ sum: { views: 140 }, max: { views: 100 }, min: { views: 0 } }]],
    ['aggregate[avg]=views&filter[status][_eq]=draft', [{ avg: { views: 0 } }]],
    ['aggregate[count]=*&groupBy[]=status&sort=status', [{ status: 'archived', count: 1 }, { status: 'draft', count: 1 }, { status: 'published', count: 3 }]],
    ['aggregate[count]=*&groupBy=status,author&sort=-count&limit=1', [{ status: 'published', author: 1, count: 2 }]],
    ['aggregate={"sum":"views"}&groupBy[]=author&sort=author&filter[author][_nnull]=true', [{ author: 1, sum: { views: 35 } }, { author: 2, sum: { views: 100 } }]],
  ])('%s', async (qs, expected) => {
    const r = await t.req('GET', `/items/posts?${qs}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual(expected);
  });

  it.each(['aggregate[median]=views', 'aggregate[sum]=title', 'aggregate[sum]=nope', 'aggregate[count]=*&groupBy[]=nope', 'aggregate[sum]=*'])('%s -> 400', async (qs) => {
    const r = await t.req('GET', `/items/posts?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('INVALID_QUERY');
  });
});

describe('deep', () => {
  it('applies _filter, _sort, _limit, _offset, _page and _search per relation', async () => {
    const r = await t.req('GET', '/items/posts/1?fields=id,comments.text&deep[comments][_sort]=-text&deep[comments][_limit]=1');
    expect(r.body.data.comments).toEqual([{ text: 'Great post' }]);
    const f = await t.req('GET', '/items/posts/1?fields=comments.text&deep[comments][_filter][text][_eq]=Agreed');
    expect(f.body.data.comments).toEqual([{ text: 'Agreed' }]);
    const o = await t.req('GET', '/items/posts/1?fields=comments.text&deep[comments][_sort]=text&deep[comments][_offset]=1');
    expect(o.body.data.comments).toEqual([{ text: 'Great post' }]);
    const p = await t.req('GET', '/items/posts/1?fields=comments.text&deep[comments][_sort]=text&deep[comments][_limit]=1&deep[comments][_page]=2');
    expect(p.body.data.comments).toEqual([{ text: 'Great post' }]);
    const s = await t.req('GET', '/items/posts/1?fields=comments.text&deep[comments][_search]=agr');
    expect(s.body.data.comments).toEqual([{ text: 'Agreed' }]);
    const nested = await t.req('GET', `/items/authors/1?fields=posts.tags.tags_id.id&deep=${encodeURIComponent(JSON.stringify({ posts: { _filter: { id: { _eq: 1 } }, tags: { _sort: ['-tags_id'] } } }))}`);
    expect(nested.body.data.posts).toEqual([{ tags: [{ tags_id: { id: 'tech' } }, { tags_id: { id: 'news' } }] }]);
  });

  it('rejects unknown deep options and bad values', async () => {
    expect((await t.req('GET', '/items/posts?deep[comments][_bogus]=1')).status).toBe(400);
    expect((await t.req('GET', '/items/posts?fields=comments.text&deep[comments][_limit]=x')).status).toBe(400);
    expect((await t.req('GET', '/items/posts?fields=comments.text&deep[comments][_filter][nope][_eq]=1')).status).toBe(400);
  });
});

describe('POST /items/{collection}/search', () => {
  it('takes the whole query as a JSON body', async () => {
    const r = await t.req('POST', '/items/posts/search', {
      query: { fields: ['id', 'author.name'], filter: { views: { _gt: 5 } }, sort: ['-views'], limit: 2, meta: ['filter_count'] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: [{ id: 4, author: { name: 'Brian' } }, { id: 2, author: { name: 'Ada' } }], meta: { filter_count: 3 } });
    const flat = await t.req('POST', '/items/posts/search', { fields: 'id', filter: { id: { _eq: 2 } } });
    expect(flat.body.data).toEqual([{ id: 2 }]);
    const bad = await t.req('POST', '/items/posts/search', '{nope');
    expect(bad.status).toBe(400);
  });
});

describe('bad input in identifier positions', () => {
  const payload = encodeURIComponent('"; drop table posts; --');
  it.each([
    `/items/${payload}`,
    `/items/posts?fields=${payload}`,
    `/items/posts?sort=${payload}`,
    `/items/posts?aggregate[count]=${payload}`,
    `/items/posts?aggregate[${payload}]=id`,
    `/items/posts?aggregate[count]=*&groupBy[]=${payload}`,
    `/items/posts?deep[${payload}][_limit]=1&fields=${payload}.id`,
    `/items/posts?filter[${payload}][_eq]=1`,
    `/items/posts?filter[title][${payload}]=1`,
    `/items/posts?filter[title][_eq]=${payload}`,
    `/items/posts?search=${payload}`,
    '/items/posts?limit=99999999999999999999',
    '/items/posts?limit=-5',
    '/items/posts?offset=-1',
    '/items/posts?page=0',
    '/items/posts?meta=everything',
  ])('%s is a 4xx and the table survives', async (url) => {
    const r = await t.req('GET', url);
    expect(r.status === 200 || (r.status >= 400 && r.status < 500), `${r.status} ${JSON.stringify(r.body)}`).toBe(true);
    if (r.status !== 200) expect(r.body.errors[0].extensions.code).toMatch(/INVALID_QUERY|COLLECTION_NOT_FOUND|FORBIDDEN/);
    const [{ n }] = await run<{ n: number }>(t.services.database.db, 'select count(*)::int as n from posts');
    expect(n).toBe(5);
  });
});

describe('permissions on read', () => {
  it('applies the row filter with $CURRENT_USER and strips fields not permitted', async () => {
    const r = await t.req('GET', '/items/posts?sort=id', undefined, { token: 'reader' });
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual([1, 2, 3, 4]);
    expect(Object.keys(r.body.data[0]).sort()).toEqual(['author', 'id', 'owner', 'status', 'title']);
    const nested = await t.req('GET', '/items/posts/1?fields=id,author.*', undefined, { token: 'reader' });
    expect(nested.body.data).toEqual({ id: 1, author: { id: 1, name: 'Ada' } });
  });

  it('hides rows outside the filter, forbids unpermitted collections, filters and svc_ tables', async () => {
    expect((await t.req('GET', '/items/posts/5', undefined, { token: 'reader' })).status).toBe(403);
    expect((await t.req('GET', '/items/tags', undefined, { token: 'reader' })).status).toBe(403);
    expect((await t.req('GET', '/items/posts?fields=id,comments.text', undefined, { token: 'reader' })).status).toBe(403);
    expect((await t.req('GET', '/items/posts?filter[views][_gt]=1', undefined, { token: 'reader' })).status).toBe(403);
    expect((await t.req('GET', '/items/svc_users', undefined, { token: 'reader' })).status).toBe(403);
    expect((await t.req('GET', '/items/svc_users?fields=email&limit=1')).status).toBe(200);
  });

  it('counts only visible rows in meta and aggregates', async () => {
    const r = await t.req('GET', '/items/posts?fields=id&meta=total_count', undefined, { token: 'reader' });
    expect(r.body.meta.total_count).toBe(4);
    const a = await t.req('GET', '/items/posts?aggregate[count]=*', undefined, { token: 'reader' });
    expect(a.body.data).toEqual([{ count: 4 }]);
  });

  it('resolves $CURRENT_ROLE, $CURRENT_ROLES and $CURRENT_POLICIES in permission filters', async () => {
    const db = t.services.database.db;
    await run(db, 'alter table tags add column role uuid, add column policy uuid');
    const p = await createPrincipal(t.services, {
      token: 'roles',
      permissions: [{ collection: 'tags', action: 'read', permissions: { _or: [{ role: { _eq: '$CURRENT_ROLE' } }, { role: { _in: '$CURRENT_ROLES' } }, { policy: { _in: ['$CURRENT_POLICIES'] } }] } }],
    });
    await run(db, "update tags set role = $1 where id = 'news'", [p.role]);
    await run(db, "update tags set policy = $1 where id = 'misc'", [p.policy]);
    await t.services.schema.invalidate();
    const r = await t.req('GET', '/items/tags?fields=id&sort=id', undefined, { token: 'roles' });
    expect(r.body.data).toEqual([{ id: 'misc' }, { id: 'news' }]);
  });

  it('treats anonymous callers as the Public role (no permissions -> 403)', async () => {
    const r = await t.req('GET', '/items/posts', undefined, { token: null });
    expect(r.status).toBe(403);
    expect(r.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('prototype keys are not identifiers', () => {
  it('drops prototype keys in query-string filters (qs) and refuses them in JSON filters', async () => {
    expect((await t.req('GET', '/items/posts?fields=id&filter[constructor][_eq]=1')).body.data).toHaveLength(5);
    const r = await t.req('GET', `/items/posts?filter=${encodeURIComponent('{"constructor":{"_eq":1}}')}`);
    expect(r.status).toBe(400);
  });

  it.each(['/items/constructor', '/items/__proto__', '/items/posts?fields=constructor', '/items/posts?sort=__proto__', '/items/posts?aggregate[count]=toString'])('%s -> 4xx', async (url) => {
    const r = await t.req('GET', url);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });
});
