/** The same read over GraphQL and over REST gives the same rows: GraphQL is a front on the REST query. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { gql, idsAsStrings } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  await createPrincipal(t.services, {
    token: 'reader',
    permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'status', 'views', 'author', 'comments'], permissions: { status: { _neq: 'archived' } } },
      { collection: 'authors', action: 'read', fields: ['id', 'name', 'posts'] },
      { collection: 'comments', action: 'read' },
    ],
  });
});
afterAll(async () => { await t.close(); });

/** [name, GraphQL root field query, REST path] */
const LISTS: [string, string, string][] = [
  ['string _eq', 'posts(filter: {status: {_eq: "published"}}) { id title }', '/items/posts?fields=id,title&filter[status][_eq]=published'],
  ['string _neq/_in', 'posts(filter: {status: {_nin: ["draft"]}, title: {_neq: "Orphan"}}) { id }', '/items/posts?fields=id&filter[status][_nin]=draft&filter[title][_neq]=Orphan'],
  ['string text operators', 'posts(filter: {title: {_icontains: "HELLO"}}) { id }', '/items/posts?fields=id&filter[title][_icontains]=HELLO'],
  ['string _starts_with/_ends_with', 'posts(filter: {_or: [{title: {_starts_with: "C "}}, {title: {_ends_with: "thoughts"}}]}) { id }', '/items/posts?fields=id&filter[_or][0][title][_starts_with]=C%20&filter[_or][1][title][_ends_with]=thoughts'],
  ['string _empty/_nempty', 'posts(filter: {labels: {_empty: true}}) { id labels }', '/items/posts?fields=id,labels&filter[labels][_empty]=true'],
  ['string _null/_nnull', 'posts(filter: {body: {_null: true}}) { id }', '/items/posts?fields=id&filter[body][_null]=true'],
  ['number _gte/_lt', 'posts(filter: {views: {_gte: 10}, rating: {_lt: "5"}}) { id views rating }', '/items/posts?fields=id,views,rating&filter[views][_gte]=10&filter[rating][_lt]=5'],
  ['number _between/_nbetween', 'posts(filter: {views: {_between: [5, 25]}}) { id }', '/items/posts?fields=id&filter[views][_between]=5,25'],
  ['number _in on the key', 'posts(filter: {id: {_in: [1, 3, 4]}}) { id }', '/items/posts?fields=id&filter[id][_in]=1,3,4'],
  ['bigInteger as string', 'posts(filter: {big: {_gt: "2"}}) { id big }', '/items/posts?fields=id,big&filter[big][_gt]=2'],
  ['date operators', 'posts(filter: {published_on: {_gte: "2024-02-01T00:00:00Z"}, publish_date: {_lt: "2024-03-01"}}) { id published_on publish_date publish_time local_dt }', '/items/posts?fields=id,published_on,publish_date,publish_time,local_dt&filter[published_on][_gte]=2024-02-01T00:00:00Z&filter[publish_date][_lt]=2024-03-01'],
  ['boolean', 'authors(filter: {active: {_eq: false}}) { id name active score }', '/items/authors?fields=id,name,active,score&filter[active][_eq]=false'],
  ['uuid (id operators)', 'comments(filter: {id: {_in: ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000003"]}}) { id text }', '/items/comments?fields=id,text&filter[id][_in]=00000000-0000-4000-8000-000000000001,00000000-0000-4000-8000-000000000003'],
  ['_and/_or nested', 'posts(filter: {_and: [{_or: [{views: {_lt: 6}}, {views: {_gt: 50}}]}, {status: {_neq: "draft"}}]}) { id }', '/items/posts?fields=id&filter[_and][0][_or][0][views][_lt]=6&filter[_and][0][_or][1][views][_gt]=50&filter[_and][1][status][_neq]=draft'],
  ['relational filter through M2O', 'posts(filter: {author: {name: {_eq: "Ada"}}}) { id }', '/items/posts?fields=id&filter[author][name][_eq]=Ada'],
  ['O2M filter with _some/_none', 'authors(filter: {posts: {_none: {status: {_eq: "draft"}}}}) { id }', '/items/authors?fields=id&filter[posts][_none][status][_eq]=draft'],
  ['O2M filter without quantifier', 'authors(filter: {posts: {views: {_gt: 50}}}) { id }', '/items/authors?fields=id&filter[posts][views][_gt]=50'],
  ['sort asc/desc multi', 'posts(sort: ["status", "-views"]) { id status views }', '/items/posts?fields=id,status,views&sort=status,-views'],
  ['sort through M2O', 'posts(sort: ["author.name", "-id"]) { id }', '/items/posts?fields=id&sort=author.name,-id'],
  ['limit/offset', 'posts(limit: 2, offset: 1, sort: ["-id"]) { id }', '/items/posts?fields=id&limit=2&offset=1&sort=-id'],
  ['page', 'posts(limit: 2, page: 2) { id }', '/items/posts?fields=id&limit=2&page=2'],
  ['limit -1', 'posts(limit: -1) { id }', '/items/posts?fields=id&limit=-1'],
  ['search', 'posts(search: "engines") { id title }', '/items/posts?fields=id,title&search=engines'],
  ['every wire type', 'posts { id title body status views rating published_on publish_date publish_time local_dt uid labels meta big author { id } }', '/items/posts?fields=id,title,body,status,views,rating,published_on,publish_date,publish_time,local_dt,uid,labels,meta,big,author.id'],
  ['M2O nested fields', 'posts { id author { name email posts { id } } }', '/items/posts?fields=id,author.name,author.email,author.posts.id'],
  ['O2M nested with args', 'authors { name posts(filter: {status: {_eq: "published"}}, sort: ["-views"], limit: 1) { title views } }', '/items/authors?fields=name,posts.title,posts.views&deep[posts][_filter][status][_eq]=published&deep[posts][_sort]=-views&deep[posts][_limit]=1'],
  ['O2M nested with offset/search', 'authors { id posts(search: "post", offset: 0) { id } }', '/items/authors?fields=id,posts.id&deep[posts][_search]=post&deep[posts][_offset]=0'],
  ['two levels of args', 'authors { id posts(limit: 5) { id comments(limit: 1, sort: ["-text"]) { text } } }', '/items/authors?fields=id,posts.id,posts.comments.text&deep[posts][_limit]=5&deep[posts][comments][_limit]=1&deep[posts][comments][_sort]=-text'],
  ['M2M through the junction', 'posts { id tags { tags_id { id label } } }', '/items/posts?fields=id,tags.tags_id.id,tags.tags_id.label'],
  ['A2O as its raw key', 'pages_blocks { id item collection }', '/items/pages_blocks?fields=id,item,collection'],
];

describe('list reads equal REST row for row', () => {
  it.each(LISTS)('%s', async (_name, field, rest) => {
    const root = field.slice(0, field.search(/[ (]/));
    const g = await gql(t, `{ ${field} }`);
    const r = await t.req('GET', rest);
    expect(r.status).toBe(200);
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(r.body.data.length).toBeGreaterThan(0);
    expect(g.body.data[root]).toEqual(idsAsStrings(r.body.data));
  });

  it.each(LISTS.filter(([n]) => /^(string _eq|string _neq\/_in|number _between|number _in|_and|relational|O2M|sort|limit|page|search)/.test(n)))('%s, for a role with a row filter', async (_name, field, rest) => {
    const root = field.slice(0, field.search(/[ (]/));
    const g = await gql(t, `{ ${field} }`, undefined, { token: 'reader' });
    const r = await t.req('GET', rest, undefined, { token: 'reader' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(g.body.data[root]).toEqual(idsAsStrings(r.body.data));
  });
});

describe('single reads and variables', () => {
  it('_by_id equals GET /items/{c}/{pk}; a missing key is null', async () => {
    const g = await gql(t, 'query ($id: ID!) { posts_by_id(id: $id) { id title author { name } comments { text } } }', { id: 1 });
    const r = await t.req('GET', '/items/posts/1?fields=id,title,author.name,comments.text');
    expect(g.body.data.posts_by_id).toEqual(idsAsStrings(r.body.data));
    const missing = await gql(t, '{ posts_by_id(id: 999) { id } }');
    expect(missing.body).toEqual({ data: { posts_by_id: null } });
  });

  it('a singleton is one object', async () => {
    const g = await gql(t, '{ home { id headline } }');
    const r = await t.req('GET', '/items/home?fields=id,headline');
    expect(g.body.data.home).toEqual(idsAsStrings(r.body.data));
  });

  it('variables, fragments and inline fragments compile into the same query', async () => {
    const g = await gql(t, `query ($f: posts_filter, $n: Int) { posts(filter: $f, limit: $n) { ...P ... on posts { author { ...A } } } }
      fragment P on posts { id title }
      fragment A on authors { name }`, { f: { views: { _gt: 5 } }, n: 2 });
    const r = await t.req('GET', '/items/posts?fields=id,title,author.name&filter[views][_gt]=5&limit=2');
    expect(g.body.data.posts).toEqual(idsAsStrings(r.body.data));
  });

  it('@skip and @include are honoured', async () => {
    const g = await gql(t, 'query ($yes: Boolean!) { posts(limit: 1) { id title @skip(if: $yes) author @include(if: $yes) { name } } }', { yes: true });
    expect(g.body.data.posts).toEqual([{ id: '1', author: { name: 'Ada' } }]);
  });

  it('aliases of scalar fields and of a relation with the same arguments share the read', async () => {
    const g = await gql(t, '{ posts(limit: 2) { key: id name: title a: author { name } b: author { id } } }');
    expect(g.body.data.posts).toEqual([
      { key: '1', name: 'Hello world', a: { name: 'Ada' }, b: { id: '1' } },
      { key: '2', name: 'Second post', a: { name: 'Ada' }, b: { id: '1' } },
    ]);
  });
});

describe('aggregated', () => {
  const shape = (row: any, groupBy: string[]) => ({
    group: Object.fromEntries(groupBy.map((g) => [g, row[g]])), count: row.count, sum: row.sum, avg: row.avg, min: row.min, max: row.max,
  });

  it('groupBy with count, sum, avg, min, max equals REST aggregate', async () => {
    const g = await gql(t, '{ posts_aggregated(groupBy: ["status"], sort: ["status"]) { group count { id } sum { views } avg { views } min { views } max { views } } }');
    const r = await t.req('GET', '/items/posts?aggregate[count]=id&aggregate[sum]=views&aggregate[avg]=views&aggregate[min]=views&aggregate[max]=views&groupBy[]=status&sort=status');
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(g.body.data.posts_aggregated).toEqual(r.body.data.map((row: any) => ({ ...shape(row, ['status']), avg: { views: Number(row.avg.views) } })));
  });

  it('countAll alone and beside per-field counts; filter applies', async () => {
    const alone = await gql(t, '{ posts_aggregated(filter: {status: {_eq: "published"}}) { countAll } }');
    expect(alone.body.data.posts_aggregated).toEqual([{ countAll: 3 }]);
    const both = await gql(t, '{ posts_aggregated { countAll count { body } countDistinct { author } } }');
    const r = await t.req('GET', '/items/posts?aggregate[count]=body&aggregate[countDistinct]=author');
    expect(both.body.data.posts_aggregated).toEqual([{ countAll: 5, count: { body: r.body.data[0].count.body }, countDistinct: r.body.data[0].countDistinct }]);
  });
});
