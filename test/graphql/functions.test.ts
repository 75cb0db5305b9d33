/** The query language's functions in GraphQL (Directus' `{field}_func`): the same rows as the REST query with
 * `year(published_on)` / `count(comments)` in fields, filters, sort and groupBy; the same permissions. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { countStatements, gql, idsAsStrings, introspect } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  // reader: posts without dates, comments collection not readable; counter: comments restricted to user_name x.
  await createPrincipal(t.services, {
    token: 'reader',
    permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'status', 'author', 'comments'] },
      { collection: 'authors', action: 'read', fields: ['id', 'name'] },
    ],
  });
  await createPrincipal(t.services, {
    token: 'counter',
    permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'comments', 'published_on'] },
      { collection: 'comments', action: 'read', fields: ['id', 'text'], permissions: { user_name: { _eq: 'x' } } },
    ],
  });
});
afterAll(async () => { await t.close(); });

const FN = /^(.+)_(year|month|week|day|weekday|hour|minute|second|count)$/;

/** A REST row with function keys (`published_on_year`) in GraphQL's shape (`published_on_func: {year}`). */
function nested(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(nested);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(value)) {
    const m = FN.exec(k);
    if (m) (out[`${m[1]}_func`] ??= {})[m[2]] = v;
    else out[k] = nested(v);
  }
  return out;
}

/** [name, GraphQL root field, REST path] */
const ROWS: [string, string, string][] = [
  ['date function fields (timestamp)', 'posts(sort: ["id"]) { id published_on_func { year month day hour } }',
    '/items/posts?fields=id,year(published_on),month(published_on),day(published_on),hour(published_on)&sort=id'],
  ['date, time and dateTime fields', 'posts { id publish_date_func { year week weekday } publish_time_func { hour minute second } local_dt_func { month minute } }',
    '/items/posts?fields=id,year(publish_date),week(publish_date),weekday(publish_date),hour(publish_time),minute(publish_time),second(publish_time),month(local_dt),minute(local_dt)'],
  ['count of O2M and M2M', 'posts { id comments_func { count } tags_func { count } }', '/items/posts?fields=id,count(comments),count(tags)'],
  ['functions inside relations', 'authors { id posts_func { count } posts { id comments_func { count } published_on_func { year } } }',
    '/items/authors?fields=id,count(posts),posts.id,posts.count(comments),posts.year(published_on)'],
  ['filter on a date function', 'posts(filter: {published_on_func: {year: {_eq: 2024}}}) { id }', '/items/posts?fields=id&filter[year(published_on)][_eq]=2024'],
  ['filter on a date function, _between/_null', 'posts(filter: {_or: [{publish_date_func: {month: {_between: [2, 3]}}}, {published_on_func: {year: {_null: true}}}]}) { id }',
    '/items/posts?fields=id&filter[_or][0][month(publish_date)][_between]=2,3&filter[_or][1][year(published_on)][_null]=true'],
  ['filter on a count', 'posts(filter: {comments_func: {count: {_gt: 0}}}) { id }', '/items/posts?fields=id&filter[count(comments)][_gt]=0'],
  ['filter on a count through M2O and in _or', 'posts(filter: {_or: [{author: {posts_func: {count: {_eq: 2}}}}, {publish_time_func: {hour: {_gte: 11}}}]}) { id }',
    '/items/posts?fields=id&filter[_or][0][author][count(posts)][_eq]=2&filter[_or][1][hour(publish_time)][_gte]=11'],
  ['filter on a count in a nested O2M (deep)', 'authors { id posts(filter: {comments_func: {count: {_gte: 1}}}) { id } }',
    '/items/authors?fields=id,posts.id&deep[posts][_filter][count(comments)][_gte]=1'],
  ['sort by a count', 'posts(sort: ["-count(comments)", "id"]) { id comments_func { count } }', '/items/posts?fields=id,count(comments)&sort=-count(comments),id'],
  ['sort by a date function', 'posts(sort: ["year(published_on)", "-id"]) { id }', '/items/posts?fields=id&sort=year(published_on),-id'],
  ['sort by a count through M2O', 'posts(sort: ["-author.count(posts)", "-id"]) { id }', '/items/posts?fields=id&sort=-author.count(posts),-id'],
];

describe('functions equal REST', () => {
  it.each(ROWS)('%s', async (_name, field, rest) => {
    const root = field.slice(0, field.search(/[ (]/));
    const g = await gql(t, `{ ${field} }`);
    const r = await t.req('GET', rest);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(r.body.data.length).toBeGreaterThan(0);
    expect(g.body.data[root]).toEqual(nested(idsAsStrings(r.body.data)));
  });

  it('known values: year and count land in the nested objects', async () => {
    const g = await gql(t, '{ posts(filter: {id: {_in: [1, 3]}}, sort: ["id"]) { id published_on_func { year } publish_time_func { hour } comments_func { count } } }');
    expect(g.body).toEqual({ data: { posts: [
      { id: '1', published_on_func: { year: 2024 }, publish_time_func: { hour: 10 }, comments_func: { count: 2 } },
      { id: '3', published_on_func: { year: null }, publish_time_func: { hour: null }, comments_func: { count: 0 } },
    ] } });
  });

  it('filters from variables, fragments on the function types, aliases and _by_id', async () => {
    const g = await gql(t, `query ($f: posts_filter) { posts(filter: $f, sort: ["id"]) { id a: published_on_func { ...Y } b: published_on_func { month } } }
      fragment Y on datetime_functions { year }`, { f: { published_on_func: { month: { _in: [1, 2] } } } });
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(g.body.data.posts).toEqual([
      { id: '1', a: { year: 2024 }, b: { month: 1 } },
      { id: '2', a: { year: 2024 }, b: { month: 2 } },
    ]);
    const one = await gql(t, '{ posts_by_id(id: 1) { tags_func { count } } }');
    expect(one.body).toEqual({ data: { posts_by_id: { tags_func: { count: 2 } } } });
  });

  it('aggregated: groupBy a date function, sorted by it, equals REST', async () => {
    const g = await gql(t, '{ posts_aggregated(groupBy: ["year(published_on)"], sort: ["-year(published_on)"]) { group countAll } }');
    const r = await t.req('GET', '/items/posts?aggregate[count]=*&groupBy[]=year(published_on)&sort=-year(published_on)');
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(g.body.data.posts_aggregated).toEqual([
      { group: { published_on_year: null }, countAll: 1 },
      { group: { published_on_year: 2024 }, countAll: 3 },
      { group: { published_on_year: 2023 }, countAll: 1 },
    ]);
    expect(g.body.data.posts_aggregated).toEqual(r.body.data.map((row: any) => ({ group: { published_on_year: row.published_on_year }, countAll: row.count })));
    const byCount = await gql(t, '{ authors_aggregated(groupBy: ["count(posts)"], sort: ["posts_count"]) { group countAll } }');
    expect(byCount.body.data.authors_aggregated).toEqual([{ group: { posts_count: 0 }, countAll: 1 }, { group: { posts_count: 2 }, countAll: 2 }]);
  });

  it('a bad function in sort or groupBy is INVALID_QUERY, not a 500', async () => {
    for (const q of ['{ posts(sort: ["year(title)"]) { id } }', '{ posts_aggregated(groupBy: ["nope(published_on)"]) { countAll } }']) {
      const g = await gql(t, q);
      expect(g.status, q).toBe(400);
      expect(g.body.errors[0].extensions.code).toBe('INVALID_QUERY');
    }
  });

  it('is one statement, as the REST read', async () => {
    const query = '{ posts(limit: 25, sort: ["-count(comments)", "id"], filter: {published_on_func: {year: {_gte: 2023}}}) { id published_on_func { year } comments_func { count } author { posts_func { count } } } }';
    const rest = '/items/posts?limit=25&sort=-count(comments),id&filter[year(published_on)][_gte]=2023&fields=id,year(published_on),count(comments),author.count(posts)';
    await gql(t, query);
    await t.req('GET', rest);
    let g: any;
    let r: any;
    const readsPosts = (sql: string) => sql.includes('"posts"');
    const graphql = await countStatements(t, async () => { g = await gql(t, query); }, readsPosts);
    const restCount = await countStatements(t, async () => { r = await t.req('GET', rest); }, readsPosts);
    expect(g.body.data.posts).toHaveLength(4);
    expect(g.body.data.posts).toEqual(nested(idsAsStrings(r.body.data)));
    expect(graphql.count).toBe(1);
    expect(restCount.count).toBe(1);
  });
});

describe('types and permissions', () => {
  it('function types carry the members valid for the field type (Directus\' names)', async () => {
    const s = await introspect(t);
    expect(s.types.get('datetime_functions')?.sort()).toEqual(['day', 'hour', 'minute', 'month', 'second', 'week', 'weekday', 'year']);
    expect(s.types.get('date_functions')?.sort()).toEqual(['day', 'month', 'week', 'weekday', 'year']);
    expect(s.types.get('time_functions')?.sort()).toEqual(['hour', 'minute', 'second']);
    expect(s.types.get('count_functions')).toEqual(['count']);
    expect(s.types.get('count_function_filter_operators')).toEqual(['count']);
    expect(s.types.get('datetime_function_filter_operators')).toHaveLength(8);
    const g = await gql(t, '{ __type(name: "posts") { fields { name type { name } } } f: __type(name: "posts_filter") { inputFields { name type { name } } } }');
    const typeOf = (list: { name: string; type: { name: string } }[], name: string) => list.find((f) => f.name === name)?.type.name;
    const fields = g.body.data.__type.fields;
    expect(typeOf(fields, 'published_on_func')).toBe('datetime_functions');
    expect(typeOf(fields, 'local_dt_func')).toBe('datetime_functions');
    expect(typeOf(fields, 'publish_date_func')).toBe('date_functions');
    expect(typeOf(fields, 'publish_time_func')).toBe('time_functions');
    expect(typeOf(fields, 'comments_func')).toBe('count_functions');
    expect(typeOf(fields, 'tags_func')).toBe('count_functions');
    expect(typeOf(fields, 'title_func')).toBeUndefined();
    expect(typeOf(fields, 'author_func')).toBeUndefined();
    const inputs = g.body.data.f.inputFields;
    expect(typeOf(inputs, 'published_on_func')).toBe('datetime_function_filter_operators');
    expect(typeOf(inputs, 'publish_date_func')).toBe('date_function_filter_operators');
    expect(typeOf(inputs, 'publish_time_func')).toBe('time_function_filter_operators');
    expect(typeOf(inputs, 'comments_func')).toBe('count_function_filter_operators');
    expect(typeOf(inputs, 'views_func')).toBeUndefined();
  });

  it('absent from a role\'s schema when the field (or the counted collection) is not readable', async () => {
    const s = await introspect(t, 'reader');
    const posts = s.types.get('posts')!;
    expect(posts).toContain('title');
    expect(posts.filter((f) => f.endsWith('_func'))).toEqual([]);
    expect(s.types.get('posts_filter')!.filter((f) => f.endsWith('_func'))).toEqual([]);
    const g = await gql(t, '{ posts { id published_on_func { year } } }', undefined, { token: 'reader' });
    expect(g.status).toBe(400);
    expect(g.body.errors[0].message).toContain('published_on_func');
    const f = await gql(t, '{ posts(filter: {comments_func: {count: {_gt: 0}}}) { id } }', undefined, { token: 'reader' });
    expect(f.status).toBe(400);
    // The sort string goes to REST, which refuses a function over an unreadable field as REST does.
    const sorted = await gql(t, '{ posts(sort: ["year(published_on)"]) { id } }', undefined, { token: 'reader' });
    const rest = await t.req('GET', '/items/posts?fields=id&sort=year(published_on)', undefined, { token: 'reader' });
    expect(rest.status).toBe(403);
    expect(sorted.status).toBe(403);
    expect(sorted.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('counts only the related rows the caller may read', async () => {
    const s = await introspect(t, 'counter');
    expect(s.types.get('posts')).toEqual(expect.arrayContaining(['published_on_func', 'comments_func']));
    const g = await gql(t, '{ posts(filter: {id: {_in: [1, 2]}}, sort: ["id"]) { id comments_func { count } } }', undefined, { token: 'counter' });
    const r = await t.req('GET', '/items/posts?fields=id,count(comments)&filter[id][_in]=1,2&sort=id', undefined, { token: 'counter' });
    expect(g.body.data.posts).toEqual([{ id: '1', comments_func: { count: 1 } }, { id: '2', comments_func: { count: 1 } }]);
    expect(g.body.data.posts).toEqual(nested(idsAsStrings(r.body.data)));
    const f = await gql(t, '{ posts(filter: {comments_func: {count: {_gte: 1}}}, sort: ["id"]) { id } }', undefined, { token: 'counter' });
    expect(f.body.data.posts).toEqual([{ id: '1' }, { id: '2' }]);
  });
});
