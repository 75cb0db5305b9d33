/** Bad input: every refusal is a 400 in the error envelope, and the server keeps serving afterwards. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { gql } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { GRAPHQL_MAX_DEPTH: '4', GRAPHQL_MAX_ALIASES: '3', GRAPHQL_MAX_COST: '6', GRAPHQL_QUERY_TOKEN_LIMIT: '300' } });
  await createContentModel(t.services);
});
afterAll(async () => { await t.close(); });

async function expectRefused(query: string | { query: string; variables?: unknown }, message: RegExp): Promise<void> {
  const body = typeof query === 'string' ? { query } : query;
  const r = await t.req('POST', '/graphql', body);
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.errors.length).toBeGreaterThan(0);
  expect(r.body.errors[0].extensions.code).toBe('INVALID_QUERY');
  expect(r.body.errors.map((e: { message: string }) => e.message).join(' ')).toMatch(message);
  const after = await gql(t, '{ tags(limit: 1) { id } }');
  expect(after.status).toBe(200);
  expect(after.body.data.tags).toHaveLength(1);
}

describe('refused documents', () => {
  it('too deep', () => expectRefused('{ posts { author { posts { author { posts { id } } } } } }', /depth/i));
  it('too many aliases', () => expectRefused('{ a: tags { id } b: tags { id } c: tags { id } d: tags { id } }', /alias/i));
  it('too costly (root fields x relation levels)', () => expectRefused('{ a: posts { author { id } comments { id } } posts_by_id(id: 1) { author { id } tags { tags_id { id } } } comments { post { id } } }', /cost/i));
  it('too many tokens', () => expectRefused(`{ tags { ${Array.from({ length: 400 }, () => 'id').join(' ')} } }`, /token/i));
  it('syntax error', () => expectRefused('{ posts { id }', /Syntax Error/));
  it('unknown field', () => expectRefused('{ posts { nope } }', /nope/));
  it('unknown collection', () => expectRefused('{ secrets { id } }', /secrets/));
  it('malformed variables', () => expectRefused({ query: 'query ($n: Int) { posts(limit: $n) { id } }', variables: { n: 'abc' } }, /\$n/));
  it('a variable object of the wrong shape', () => expectRefused({ query: 'query ($f: posts_filter) { posts(filter: $f) { id } }', variables: { f: { views: { _eq: { x: 1 } } } } }, /\$f/));
  it('an unknown operator in a filter', () => expectRefused('{ posts(filter: {views: {_regex: "1"}}) { id } }', /_regex/));
  it('conflicting relation aliases (different arguments)', () => expectRefused('{ authors { a: posts(limit: 1) { id } b: posts(limit: 2) { id } } }', /different arguments/));
  it('a limit above the maximum or below -1', () => expectRefused('{ posts(limit: -2) { id } }', /limit/));
  it('a filter on a field of the wrong type (the planner)', () => expectRefused('{ posts(filter: {views: {_eq: "many"}}) { id } }', /views/));
  it('no query at all', async () => {
    const r = await t.req('POST', '/graphql', {});
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('INVALID_QUERY');
  });
  it('a body that is not JSON', async () => {
    const r = await t.req('POST', '/graphql', '{"query": ', { headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBeDefined();
  });
  it('a body above MAX_PAYLOAD_SIZE is 413', async () => {
    const r = await t.req('POST', '/graphql', { query: `{ tags { id } } # ${'x'.repeat(1_100_000)}` });
    expect(r.status).toBe(413);
    expect(r.body.errors[0].extensions.code).toBe('CONTENT_TOO_LARGE');
  });
  it('subscriptions are not supported', () => expectRefused('subscription { tags { id } }', /subscription/i));
});

describe('request forms', () => {
  it('GET with query and variables; application/graphql bodies; other media types refused', async () => {
    const q = encodeURIComponent('query ($n: Int) { tags(limit: $n) { id } }');
    const get = await t.req('GET', `/graphql?query=${q}&variables=${encodeURIComponent('{"n":2}')}`);
    expect(get.status).toBe(200);
    expect(get.body.data.tags).toHaveLength(2);
    const raw = await t.req('POST', '/graphql', '{ tags(limit: 1) { id } }', { headers: { 'content-type': 'application/graphql' } });
    expect(raw.body).toEqual({ data: { tags: [{ id: 'misc' }] } });
    const xml = await t.req('POST', '/graphql', '<q/>', { headers: { 'content-type': 'application/xml' } });
    expect(xml.status).toBe(400);
    expect(xml.body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const array = await t.req('POST', '/graphql', [{ query: '{ tags { id } }' }]);
    expect(array.status).toBe(400);
    expect(array.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
  });
});

describe('within limits', () => {
  it('fragments do not escape the depth and cost limits, and a query at the limits runs', async () => {
    await expectRefused('{ posts { ...A } } fragment A on posts { author { ...B } } fragment B on authors { posts { author { posts { id } } } }', /depth/i);
    const ok = await gql(t, '{ posts(limit: 1) { author { posts(limit: 1) { id } } } }');
    expect(ok.status).toBe(200);
    expect(ok.body.data.posts[0].author.posts).toEqual([{ id: '1' }]);
  });
  it('introspection is allowed by default', async () => {
    const r = await gql(t, '{ __schema { queryType { name } } }');
    expect(r.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });
});

describe('GRAPHQL_INTROSPECTION=false', () => {
  let off: TestApp;
  beforeAll(async () => { off = await createTestApp({ env: { GRAPHQL_INTROSPECTION: 'false' } }); });
  afterAll(async () => { await off.close(); });
  it('refuses __schema and __type but keeps __typename', async () => {
    const r = await gql(off, '{ __schema { types { name } } }');
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('INVALID_QUERY');
    const typ = await gql(off, '{ __type(name: "Query") { name } }');
    expect(typ.status).toBe(400);
    const ok = await gql(off, '{ __typename }');
    expect(ok.body).toEqual({ data: { __typename: 'Query' } });
  });
});
