/** No N+1: a GraphQL read runs the same statements as the equivalent REST read (one per root field,
 * relations nested inside it), and aliased copies of a root field are computed once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { countStatements, gql, idsAsStrings } from './helpers.ts';

let t: TestApp;
const readsPosts = (sql: string) => sql.includes('"posts"');

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  // 30 more posts, each with an author and two comments.
  await run(t.services.database.db, `
    insert into posts (title, status, views, author) select 'Bulk ' || g, 'published', g, 1 + g % 3 from generate_series(1, 30) g;
    insert into comments (id, post, text) select gen_random_uuid(), p.id, 'c' || n from posts p, generate_series(1, 2) n where p.title like 'Bulk %';`);
});
afterAll(async () => { await t.close(); });

describe('statement count', () => {
  const QUERY = '{ posts(limit: 25, sort: ["-id"]) { id title author { name } comments { id text } } }';
  const REST = '/items/posts?limit=25&sort=-id&fields=id,title,author.name,comments.id,comments.text';

  it('25 posts with author and comments: one statement, as REST', async () => {
    // Warm both paths (authentication and compiled-statement caches).
    await gql(t, QUERY);
    await t.req('GET', REST);
    let g: any;
    let r: any;
    // Statements on the content tables only: a system statement the app may run meanwhile (a session's last-access
    // stamp, a background job's poll) once landed in the REST window on a loaded CI machine.
    const content = (sql: string) => !/\bsvc_/.test(sql);
    const graphql = await countStatements(t, async () => { g = await gql(t, QUERY); }, content);
    const rest = await countStatements(t, async () => { r = await t.req('GET', REST); }, content);
    expect(g.body.data.posts).toHaveLength(25);
    expect(g.body.data.posts).toEqual(idsAsStrings(r.body.data));
    expect(g.body.data.posts.every((p: any) => p.author && p.comments.length === 2)).toBe(true);
    expect(graphql.count).toBe(rest.count);
    expect(graphql.sql.filter(readsPosts)).toHaveLength(1);
  });

  it('identical root fields under different aliases are computed once', async () => {
    const one = await countStatements(t, () => gql(t, '{ posts(limit: 3) { id title } }'), readsPosts);
    let body: any;
    const many = await countStatements(t, async () => {
      body = (await gql(t, '{ a: posts(limit: 3) { id title } b: posts(limit: 3) { id title } c: posts(limit: 3) { title id } }')).body;
    }, readsPosts);
    expect(one.count).toBe(1);
    expect(many.count).toBe(1);
    expect(body.data.a).toEqual(body.data.b);
    expect(body.data.c).toEqual(body.data.a);
    // Different arguments are different reads.
    const two = await countStatements(t, () => gql(t, '{ a: posts(limit: 3) { id } b: posts(limit: 4) { id } }'), readsPosts);
    expect(two.count).toBe(2);
  });

  it('aggregates and by-id reads are one statement each', async () => {
    const r = await countStatements(t, () => gql(t, '{ posts_by_id(id: 1) { id author { name posts { id } } } posts_aggregated(groupBy: ["author"]) { group countAll } }'), readsPosts);
    expect(r.count).toBe(2);
  });
});
