/** Well-formed JSON POSTs that accept JSON skip yoga's HTTP layer (core/graphql/server.ts): they must answer
 * exactly what the full yoga path answers (status, content type, body), and everything else still goes
 * through yoga. The full path is forced with an Accept header naming one more media type. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPathCounts } from '../../core/graphql/server.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
const yogaFetches = () => requestPathCounts().yoga;
beforeAll(async () => {
  t = await createTestApp({ env: { GRAPHQL_MAX_COST: '6' } });
  await createContentModel(t.services);
  await createPrincipal(t.services, {
    token: 'reader',
    permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'status', 'author'] },
      { collection: 'authors', action: 'read', fields: ['id', 'name'] },
    ],
  });
});
afterAll(async () => { await t.close(); });

const FULL = 'application/json, text/plain';

async function both(body: unknown, token?: string) {
  const before = yogaFetches();
  const fast = await t.req('POST', '/graphql', body, { token });
  const fastUsedYoga = yogaFetches() - before;
  const full = await t.req('POST', '/graphql', body, { token, headers: { accept: FULL } });
  expect(yogaFetches() - before - fastUsedYoga).toBe(1);
  return { fast, full, fastUsedYoga };
}

const SAME: [string, unknown, string?][] = [
  ['a read', { query: '{ posts(sort: ["id"], limit: 3) { id title author { name } published_on_func { year } } }' }],
  ['variables and operationName', { query: 'query A($n: Int) { posts(limit: $n) { id } } query B { tags { id } }', variables: { n: 2 }, operationName: 'A' }],
  ['a syntax error (400)', { query: '{ posts { id }' }],
  ['a validation error (400)', { query: '{ posts { nope } }' }],
  ['the cost limit (400)', { query: '{ a: posts { author { id } comments { id } } posts_by_id(id: 1) { author { id } tags { tags_id { id } } } comments { post { id } } }' }],
  ['a bad variable (400)', { query: 'query ($n: Int) { posts(limit: $n) { id } }', variables: { n: 'x' } }],
  ['a service error (403)', { query: '{ posts(sort: ["year(published_on)"]) { id } }' }, 'reader'],
  ['a partial error (data and errors)', { query: '{ ok: posts(limit: 1) { id } bad: posts_by_id(id: "abc") { id } }' }],
  ['a planner error (400)', { query: '{ posts(filter: {views: {_eq: "many"}}) { id } }' }],
];

describe('the direct path answers as yoga does', () => {
  it.each(SAME)('%s', async (_name, body, token) => {
    const { fast, full, fastUsedYoga } = await both(body, token);
    expect(fastUsedYoga).toBe(0);
    expect(fast.status).toBe(full.status);
    expect(fast.headers.get('content-type')).toBe(full.headers.get('content-type'));
    expect(fast.body).toEqual(full.body);
  });

  it('the cases above cover successes, partial errors and each error status', async () => {
    const statuses = new Set<number>();
    for (const [, body, token] of SAME) statuses.add((await t.req('POST', '/graphql', body, { token })).status);
    expect([...statuses].sort()).toEqual([200, 400, 403]);
    const partial = await t.req('POST', '/graphql', SAME[7][1]);
    expect(partial.body.data).toEqual({ ok: [{ id: '1' }], bad: null });
    expect(partial.body.errors).toHaveLength(1);
  });

  it('a mutation runs once', async () => {
    const r = await t.req('POST', '/graphql', { query: 'mutation { create_tags_item(data: {id: "once", label: "Once"}) { id } }' });
    expect(r.body).toEqual({ data: { create_tags_item: { id: 'once' } } });
    const count = await t.req('GET', '/items/tags?filter[id][_eq]=once&aggregate[count]=*');
    expect(count.body.data).toEqual([{ count: 1 }]);
  });

  it('application/graphql bodies are parameters like JSON ones: direct', async () => {
    const before = requestPathCounts();
    const r = await t.req('POST', '/graphql', '{ tags(limit: 1) { id } }', { headers: { 'content-type': 'application/graphql' } });
    expect(r.status).toBe(200);
    expect(requestPathCounts()).toEqual({ direct: before.direct + 1, yoga: before.yoga });
  });

  it('other requests go through yoga: GET, odd parameters, other Accept types', async () => {
    const cases: [() => Promise<{ status: number }>, number][] = [
      [() => t.req('GET', `/graphql?query=${encodeURIComponent('{ tags { id } }')}`), 200],
      [() => t.req('POST', '/graphql', { query: '{ tags { id } }', extra: 1 }), 400],
      [() => t.req('POST', '/graphql', {}), 400],
      [() => t.req('POST', '/graphql', { query: '{ tags { id } }', variables: [1] }), 400],
      [() => t.req('POST', '/graphql', { query: '{ tags { id } }' }, { headers: { accept: 'application/graphql-response+json' } }), 200],
    ];
    for (const [run, status] of cases) {
      const before = yogaFetches();
      expect((await run()).status).toBe(status);
      expect(yogaFetches()).toBe(before + 1);
    }
  });
});
