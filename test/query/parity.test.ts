/** The rest of the query vocabulary Directus clients send (issue 15): the remaining operators, functions in
 * fields/filter/sort/groupBy, `alias`, `$FOLLOW` and `backlink`, each against the fixtures of
 * test/helpers/fixtures.ts, with permission refusals and one SQL statement per read. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  // reader: posts without dates, no comments collection; counter: comments restricted to user_name x.
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

const ids = (body: any) => body.data.map((r: any) => r.id);
const enc = (v: unknown) => encodeURIComponent(JSON.stringify(v));

describe('operators', () => {
  it.each([
    ['filter[title][_nicontains]=HELLO', [2, 3, 4, 5]],
    ['filter[title][_istarts_with]=hello', [1]],
    ['filter[title][_nistarts_with]=hello', [2, 3, 4, 5]],
    ['filter[title][_iends_with]=THOUGHTS', [3]],
    ['filter[title][_niends_with]=THOUGHTS', [1, 2, 4, 5]],
    ['filter[title][_nstarts_with]=C ', [1, 2, 3, 5]],
    ['filter[title][_nends_with]=thoughts', [1, 2, 4, 5]],
    ['filter[title][_regex]=^[CD]', [3, 4]],
    ['filter[title][_regex]=post$', [2]],
    ['filter[title][_istarts_with]=%25', []],
    // null rows match neither a condition nor its negation (SQL semantics, as Directus on Postgres)
    ['filter[body][_nicontains]=ENGINES', [3, 4]],
    ['filter[body][_regex]=^P', [4]],
    // non-text fields are compared on their text
    ['filter[views][_istarts_with]=1', [1, 4]],
    [`filter=${enc({ id: { _in: [] } })}`, []],
    [`filter=${enc({ id: { _nin: [] } })}`, [1, 2, 3, 4, 5]],
    ['filter[tags][_some][tags_id][label][_eq]=Technology', [1, 2]],
    ['filter[tags][_none][tags_id][label][_eq]=Technology', [3, 4, 5]],
    ['filter[comments][_some][text][_icontains]=GREAT', [1]],
  ])('%s', async (qs, expected) => {
    const r = await t.req('GET', `/items/posts?fields=id&${qs}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r.body)).toEqual(expected);
  });

  it('_some/_none from the parent side never multiply rows', async () => {
    const r = await t.req('GET', '/items/authors?fields=id&filter[posts][_some][views][_gte]=0&meta=filter_count');
    expect(ids(r.body)).toEqual([1, 2]);
    expect(r.body.meta.filter_count).toBe(2);
  });

  it('new operators hold in permission validation rules too', async () => {
    await createPrincipal(t.services, {
      token: 'writer',
      permissions: [{ collection: 'tags', action: 'create', validation: { label: { _nistarts_with: 'x', _regex: '^[A-Z]' } } }],
    });
    expect((await t.req('POST', '/items/tags', { id: 'ok', label: 'Fine' }, { token: 'writer' })).status).toBeLessThan(300);
    const bad = await t.req('POST', '/items/tags', { id: 'bad', label: 'Xylophone' }, { token: 'writer' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect((await t.req('POST', '/items/tags', { id: 'low', label: 'lower' }, { token: 'writer' })).status).toBe(400);
  });
});

describe('functions', () => {
  it.each([
    ['filter[year(published_on)][_eq]=2024', [1, 2, 4]],
    ['filter[year(published_on)][_eq]=2023', [5]],
    ['filter[month(publish_date)][_eq]=2', [2]],
    ['filter[day(local_dt)][_eq]=31', [5]],
    ['filter[weekday(publish_date)][_eq]=1', [1]],
    ['filter[week(publish_date)][_eq]=52', [5]],
    ['filter[hour(publish_time)][_eq]=9', [4]],
    ['filter[minute(publish_time)][_eq]=30', [2]],
    ['filter[second(publish_time)][_eq]=0', [1, 2, 4, 5]],
    ['filter[hour(published_on)][_eq]=23', [5]],
    ['filter[year(published_on)][_null]=true', [3]],
    ['filter[year(published_on)][_in]=2023,2024', [1, 2, 4, 5]],
    ['filter[year(published_on)][_between]=2020,2023', [5]],
    ['filter[count(comments)][_gt]=1', [1]],
    ['filter[count(comments)][_eq]=0', [3, 4, 5]],
    ['filter[author][count(posts)][_eq]=2', [1, 2, 3, 4]],
    ['sort=-count(comments),id', [1, 2, 3, 4, 5]],
    ['sort=year(published_on),-id', [5, 4, 2, 1, 3]],
    ['sort=-author.count(posts),-id', [5, 4, 3, 2, 1]],
  ])('%s', async (qs, expected) => {
    const r = await t.req('GET', `/items/posts?fields=id&${qs}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r.body)).toEqual(expected);
  });

  it('returns function fields under Directus\' keys, nested ones too', async () => {
    const r = await t.req('GET', '/items/posts?fields=id,year(published_on),hour(publish_time),count(comments),author.count(posts)&filter[id][_in]=1,3');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual([
      { id: 1, published_on_year: 2024, publish_time_hour: 10, comments_count: 2, author: { posts_count: 2 } },
      { id: 3, published_on_year: null, publish_time_hour: null, comments_count: 0, author: { posts_count: 2 } },
    ]);
  });

  it('groups and sorts aggregates by a function', async () => {
    const r = await t.req('GET', '/items/posts?aggregate[count]=*&groupBy[]=year(published_on)&sort=-year(published_on)');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual([
      { published_on_year: null, count: 1 },
      { published_on_year: 2024, count: 3 },
      { published_on_year: 2023, count: 1 },
    ]);
    const byCount = await t.req('GET', '/items/authors?aggregate[count]=*&groupBy[]=count(posts)&sort=posts_count');
    expect(byCount.body.data).toEqual([{ posts_count: 0, count: 1 }, { posts_count: 2, count: 2 }]);
  });

  it('is refused with 403 on a field the caller may not read, like the field itself', async () => {
    for (const qs of ['fields=id,year(published_on)', 'filter[year(published_on)][_eq]=2024', 'sort=year(published_on)', 'aggregate[count]=*&groupBy[]=year(published_on)']) {
      const r = await t.req('GET', `/items/posts?${qs}`, undefined, { token: 'reader' });
      expect(r.status, qs).toBe(403);
      expect(r.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    // comments is an allowed field of reader, but the comments collection is not readable
    expect((await t.req('GET', '/items/posts?fields=id,count(comments)', undefined, { token: 'reader' })).status).toBe(403);
    expect((await t.req('GET', '/items/posts?fields=id&sort=count(comments)', undefined, { token: 'reader' })).status).toBe(403);
  });

  it('counts only the related rows the caller may read', async () => {
    const r = await t.req('GET', '/items/posts?fields=id,count(comments)&filter[id][_in]=1,2&sort=id', undefined, { token: 'counter' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual([{ id: 1, comments_count: 1 }, { id: 2, comments_count: 1 }]);
    const f = await t.req('GET', '/items/posts?fields=id&filter[count(comments)][_gte]=1', undefined, { token: 'counter' });
    expect(ids(f.body)).toEqual([1, 2]);
  });
});

describe('alias, $FOLLOW and backlink', () => {
  it('reads one relation twice under an alias with its own deep options', async () => {
    const r = await t.req('GET', `/items/posts?filter[id][_eq]=1&fields=id,comments.text,latest.text,title_again&alias[latest]=comments&alias[title_again]=title&deep[latest][_sort]=-text&deep[latest][_limit]=1&deep[comments][_sort]=text`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual([{ id: 1, comments: [{ text: 'Agreed' }, { text: 'Great post' }], latest: [{ text: 'Great post' }], title_again: 'Hello world' }]);
  });

  it('applies field permissions to the aliased field', async () => {
    const r = await t.req('GET', '/items/authors?fields=id,mail&alias[mail]=email&filter[id][_eq]=1', undefined, { token: 'reader' });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([{ id: 1 }]);
  });

  it.each([
    ['filter[$FOLLOW(comments,post)][user_name][_eq]=y', 'posts', [1]],
    ['filter[$FOLLOW(comments, post)][_none][user_name][_eq]=x', 'posts', [3, 4, 5]],
    ['filter[$FOLLOW(posts,author)][views][_gt]=50', 'authors', [2]],
    ['filter[$FOLLOW(posts,author)][_some][$FOLLOW(comments,post)][text][_eq]=Nice', 'authors', [1]],
  ])('%s on %s', async (qs, collection, expected) => {
    const r = await t.req('GET', `/items/${collection}?fields=id&${qs}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r.body)).toEqual(expected);
  });

  it('$FOLLOW needs read access to the followed collection', async () => {
    const r = await t.req('GET', '/items/posts?fields=id&filter[$FOLLOW(comments,post)][text][_eq]=Nice', undefined, { token: 'reader' });
    expect(r.status).toBe(403);
  });

  it('backlink=false leaves the reverse relation out of *.* expansions', async () => {
    const withLinks = await t.req('GET', '/items/posts?fields=*.*&filter[id][_eq]=1');
    expect(withLinks.body.data[0].author).toHaveProperty('posts');
    expect(withLinks.body.data[0].comments[0]).toHaveProperty('post');
    const without = await t.req('GET', '/items/posts?fields=*.*&filter[id][_eq]=1&backlink=false');
    expect(without.status).toBe(200);
    expect(without.body.data[0].author).not.toHaveProperty('posts');
    expect(without.body.data[0].author).toHaveProperty('name');
    expect(without.body.data[0].comments[0]).not.toHaveProperty('post');
    expect(without.body.data[0].comments[0]).toHaveProperty('text');
    // explicitly named back-references stay
    const named = await t.req('GET', '/items/posts?fields=id,author.posts&filter[id][_eq]=1&backlink=false');
    expect(named.body.data[0].author.posts).toEqual([1, 2]);
  });
});

describe('one statement per read', () => {
  it('compiles functions, $FOLLOW, aliases and new operators into a single SQL statement', async () => {
    const db = t.services.database.db as any;
    const original = db.executeQuery;
    const statements: string[] = [];
    db.executeQuery = function (this: unknown, q: { sql: string }) {
      statements.push(q.sql);
      return original.call(this, q);
    };
    try {
      const r = await t.req('GET', '/items/authors?fields=id,count(posts),posts.id,posts.count(comments),top.title&alias[top]=posts&deep[top][_limit]=1&sort=-count(posts),id'
        + '&filter[$FOLLOW(posts,author)][title][_nicontains]=zzz&filter[name][_regex]=^[AB]');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toEqual([
        { id: 1, posts_count: 2, posts: [{ id: 1, comments_count: 2 }, { id: 2, comments_count: 1 }], top: [{ title: 'Hello world' }] },
        { id: 2, posts_count: 2, posts: [{ id: 3, comments_count: 0 }, { id: 4, comments_count: 0 }], top: [{ title: 'Draft thoughts' }] },
      ]);
    } finally {
      db.executeQuery = original;
    }
    const reads = statements.filter((s) => /from "authors"/.test(s));
    expect(reads).toHaveLength(1);
  });
});

describe('bad input', () => {
  it.each([
    ['fields=id,median(views)', 'median'],
    ['fields=id,year(title)', 'year'],
    ['fields=id,hour(publish_date)', 'hour'],
    ['fields=id,year(nope)', 'nope'],
    ['fields=id,count(author)', 'count'],
    ['fields=id,count(views)', 'count'],
    ['fields=id,year(published_on).x', 'year'],
    ['filter[year(published_on)][_contains]=2', '_contains'],
    ['filter[year(published_on)][_eq]=abc', 'year(published_on)'],
    ['filter[title][_regex]=(', '_regex'],
    [`filter[title][_regex]=${'a'.repeat(501)}`, '_regex'],
    ['filter[author][_some][name][_eq]=Ada', '_some'],
    ['filter[$FOLLOW(comments,text)][text][_eq]=x', '$FOLLOW'],
    ['filter[$FOLLOW(nope,post)][text][_eq]=x', 'nope'],
    ['filter[$FOLLOW(comments)][text][_eq]=x', '$FOLLOW'],
    ['alias[title]=body&fields=title', 'title'],
    ['alias[a]=b&alias[b]=title&fields=a', 'alias'],
    ['alias[x]=nope&fields=x', 'nope'],
    ['alias[bad-name]=title&fields=id', 'bad-name'],
    ['sort=count(comments', 'count(comments'],
    ['groupBy[]=median(views)&aggregate[count]=*', 'median'],
    ['backlink=maybe', 'backlink'],
  ])('%s -> 400 naming %s', async (qs, part) => {
    const r = await t.req('GET', `/items/posts?${qs}`);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('INVALID_QUERY');
    expect(r.body.errors[0].message).toContain(part);
  });

  it('keeps serving after an invalid regular expression reached the database', async () => {
    const bad = await t.req('GET', `/items/posts?filter[title][_regex]=${encodeURIComponent('a{2,1}')}`);
    expect(bad.status).toBe(400);
    expect((await t.req('GET', '/items/posts?fields=id&limit=1')).status).toBe(200);
  });

  it('a table still exists after injection attempts through function and $FOLLOW syntax', async () => {
    for (const qs of ['fields=year(published_on);drop table posts', 'filter[$FOLLOW(posts;drop table posts,author)][id][_eq]=1', 'sort=count(comments)) from posts;--']) {
      const r = await t.req('GET', `/items/authors?${encodeURI(qs)}`);
      expect(r.status).toBe(400);
    }
    const [row] = await run<{ n: number }>(t.services.database.db, 'select count(*)::int as n from posts');
    expect(row.n).toBe(5);
  });
});
