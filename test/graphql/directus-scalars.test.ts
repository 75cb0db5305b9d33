/** Operations written for Directus declare their variables with Directus' scalar names (`GraphQLStringOrFloat`,
 * `GraphQLBigInt`, `Date`, `Hash`, `JSON`, `GraphQLGeoJSON`, `Void`): they validate and run where the service's
 * own scalar of the same values stands; elsewhere, and with values the alias cannot represent, they answer 400. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { gql } from './helpers.ts';

type Sdk = Record<string, (...args: any[]) => any>;
const sdk = await import('@directus/sdk') as unknown as Sdk;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  // No json field readable: the schema has no JSON type of its own.
  await createPrincipal(t.services, { token: 'plain-reader', permissions: [{ collection: 'posts', action: 'read', fields: ['id', 'title', 'views'] }] });
});
afterAll(async () => { await t.close(); });

const ids = (rows: { id: string }[]) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

/** [declared type, value, filter using $v, the post ids expected] */
const VALID: [string, unknown, string, number[]][] = [
  ['GraphQLStringOrFloat', 25, '{views: {_eq: $v}}', [2]],
  ['GraphQLStringOrFloat', '4.5', '{rating: {_gte: $v}}', [1, 4]],
  ['GraphQLStringOrFloat!', 10, '{views: {_lte: $v}}', [1, 3, 5]],
  ['[GraphQLStringOrFloat]', [10, '100'], '{views: {_in: $v}}', [1, 4]],
  ['[GraphQLStringOrFloat]', ['2024-01-01', '2024-02-15'], '{publish_date: {_between: $v}}', [1, 2]],
  ['GraphQLBigInt', '9007199254740993', '{big: {_eq: $v}}', [1]],
  ['GraphQLBigInt', 2, '{big: {_eq: $v}}', [2]],
  ['[GraphQLBigInt!]', ['2', 3], '{big: {_in: $v}}', [2, 4]],
  ['Date', '2024-02-01T00:00:00Z', '{published_on: {_gte: $v}}', [2, 4]],
  ['Date', '2024-01-01', '{publish_date: {_eq: $v}}', [1]],
  ['[Date]', ['2023-12-31', '2024-01-01'], '{publish_date: {_in: $v}}', [1, 5]],
  ['Hash', 'Hello world', '{title: {_eq: $v}}', [1]],
  ['JSON', 'Orphan', '{title: {_eq: $v}}', [5]],
  ['JSON', 100, '{views: {_eq: $v}}', [4]],
  ['JSON', true, '{published_on: {_null: $v}}', [3]],
  ['GraphQLGeoJSON', 'draft', '{status: {_eq: $v}}', [3]],
];

describe('variables declared with Directus scalar names', () => {
  it.each(VALID)('$%s = %j in %s', async (type, value, filter, expected) => {
    const r = await gql(t, `query($v: ${type}) { posts(filter: ${filter}) { id } }`, { v: value });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.errors).toBeUndefined();
    expect(ids(r.body.data.posts)).toEqual(expected);
  });

  it('a Void variable is null wherever it stands', async () => {
    const r = await gql(t, 'query($v: Void) { posts(filter: {id: {_lte: 2}}, limit: $v, search: $v) { id } }', { v: 'ignored' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r.body.data.posts)).toEqual([1, 2]);
  });

  it('a default value in the operation is parsed by the alias', async () => {
    const r = await gql(t, 'query($v: GraphQLBigInt = "9007199254740993", $d: Date = "2024-01-01") { posts(filter: {big: {_eq: $v}, publish_date: {_eq: $d}}) { id } }');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r.body.data.posts)).toEqual([1]);
  });

  it('the names are known to a schema without json fields, and the same variable can fill several positions', async () => {
    const r = await gql(t, 'query($j: JSON, $n: GraphQLStringOrFloat) { posts(filter: {_or: [{title: {_eq: $j}}, {views: {_eq: $n}}]}) { id title } }',
      { j: 'Second post', n: 100 }, { token: 'plain-reader' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r.body.data.posts)).toEqual([2, 4]);
  });

  it('mutations take Hash and JSON variables (the hash is stored hashed)', async () => {
    const r = await gql(t, 'mutation($h: Hash, $j: JSON, $b: GraphQLBigInt) { create_authors_item(data: {name: "Hal", secret: $h}) { id } create_posts_item(data: {title: "json", meta: $j, big: $b}) { id meta big } }',
      { h: 'open sesame', j: { nested: [1, 'two'] }, b: '9007199254740995' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.create_posts_item).toMatchObject({ meta: { nested: [1, 'two'] }, big: '9007199254740995' });
    const [row] = await run<{ secret: string }>(t.services.database.db, 'select secret from authors where id = $1', [Number(r.body.data.create_authors_item.id)]);
    expect(row.secret).not.toBe('open sesame');
    expect(row.secret).toMatch(/^\$argon2/);
  });

  it('introspection lists the alias scalars', async () => {
    const r = await gql(t, '{ __schema { types { name kind } } }');
    const scalars = (r.body.data.__schema.types as { name: string; kind: string }[]).filter((x) => x.kind === 'SCALAR').map((x) => x.name);
    expect(scalars).toEqual(expect.arrayContaining(['JSON', 'GraphQLStringOrFloat', 'GraphQLBigInt', 'Date', 'Hash', 'GraphQLGeoJSON', 'Void', 'StringOrFloat']));
  });

  it('the unchanged @directus/sdk runs such an operation', async () => {
    const fetchInApp = (input: string | URL | Request, init?: RequestInit) => t.app.request(String(input instanceof Request ? input.url : input), init);
    const client = sdk.createDirectus('http://service.test', { globals: { fetch: fetchInApp } }).with(sdk.staticToken(ADMIN_TOKEN)).with(sdk.graphql());
    const data = await client.query('query($v: GraphQLStringOrFloat, $d: Date) { posts(filter: {views: {_gt: $v}, published_on: {_lt: $d}}) { id } }', { v: 5, d: '2024-02-15T00:00:00Z' }) as { posts: { id: string }[] };
    expect(ids(data.posts)).toEqual([1, 2]);
  });
});

/** [operation, variables, what the error message says] */
const REFUSED: [string, Record<string, unknown>, RegExp][] = [
  ['query($v: Date) { posts(filter: {views: {_eq: $v}}) { id } }', { v: '2024-01-01' }, /"\$v" of type "Date" used in position expecting type "StringOrFloat"/],
  ['query($v: Hash) { posts(filter: {views: {_eq: $v}}) { id } }', { v: 'x' }, /"\$v" of type "Hash" used in position expecting type "StringOrFloat"/],
  ['query($v: JSON!) { posts_by_id(id: $v) { id } }', { v: 1 }, /"\$v" of type "JSON!" used in position expecting type "ID!"/],
  ['query($v: GraphQLStringOrFloat) { posts_by_id(id: $v) { id } }', { v: 1 }, /expecting type "ID!"/],
  ['query($v: [GraphQLStringOrFloat]) { posts(filter: {views: {_eq: $v}}) { id } }', { v: [1] }, /expecting type "StringOrFloat"/],
  ['query($v: GraphQLBigInt) { posts(filter: {big: {_eq: $v}}) { id } }', { v: 'twelve' }, /GraphQLBigInt cannot represent "twelve"/],
  ['query($v: GraphQLBigInt) { posts(filter: {big: {_eq: $v}}) { id } }', { v: 1.5 }, /GraphQLBigInt cannot represent 1.5/],
  ['query($v: Date) { posts(filter: {published_on: {_eq: $v}}) { id } }', { v: 20240101 }, /String cannot represent a non string value/],
  ['query($v: GraphQLStringOrFloat) { posts(filter: {views: {_eq: $v}}) { id } }', { v: { a: 1 } }, /GraphQLStringOrFloat cannot represent/],
  ['query($v: DateTime) { posts(filter: {published_on: {_eq: $v}}) { id } }', { v: 'x' }, /Unknown type "DateTime"/],
];

describe('refused with 400', () => {
  it.each(REFUSED)('%s %j', async (query, variables, message) => {
    const r = await gql(t, query, variables);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect((r.body.errors as { message: string }[]).map((e) => e.message).join('\n')).toMatch(message);
  });

  it('a JSON value its position cannot take is checked by the services: 400, never a 500', async () => {
    const ops = [
      'query($v: JSON) { posts(filter: {title: {_eq: $v}}) { id } }',
      'query($v: JSON) { posts(limit: $v) { id } }',
      'mutation($v: JSON) { create_posts_item(data: {title: $v, views: $v}) { id } }',
    ];
    for (const op of ops) {
      for (const v of [{ a: 1 }, [1, 2], { _eq: 1 }]) {
        const r = await gql(t, op, { v });
        expect(r.status, `${op} ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.errors[0].extensions.code).toMatch(/^INVALID_(QUERY|PAYLOAD)$/);
      }
    }
  });
});
