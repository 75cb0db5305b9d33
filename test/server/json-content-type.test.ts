/** JSON bodies only with a JSON media type: a body sent as text/plain, as a form or without a type (what a
 * cross-site form or a no-cors fetch can send without a CORS preflight) is 400 UNSUPPORTED_MEDIA_TYPE in the
 * error envelope and changes nothing; application/json and application/*+json with any parameters, GraphQL's
 * application/graphql, and requests without a body keep working, as does the unchanged @directus/sdk. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

type Sdk = Record<string, (...args: any[]) => any>;
const sdk = await import('@directus/sdk') as unknown as Sdk;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
});
afterAll(async () => { await t.close(); });

async function send(method: string, path: string, type: string | null, body: string | undefined, token: string | null = ADMIN_TOKEN) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (type !== null) headers['content-type'] = type;
  // A Uint8Array body makes fetch send no Content-Type of its own (a string would get text/plain).
  const res = await t.app.request(path, { method, headers, body: body === undefined ? undefined : new TextEncoder().encode(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await run<{ n: number }>(t.services.database.db, `select count(*)::int as n from (${sql}) q`, params);
  return row.n;
}

/** [method, path, JSON body, token] of endpoints that read a JSON body. */
const ENDPOINTS: [string, string, unknown, string | null][] = [
  ['POST', '/auth/login', { email: 'admin@example.com', password: 'not-the-password' }, null],
  ['POST', '/items/posts', { title: 'csrf' }, ADMIN_TOKEN],
  ['PATCH', '/items/posts/1', { title: 'csrf' }, ADMIN_TOKEN],
  ['POST', '/items/posts/search', { filter: { id: { _eq: 1 } } }, ADMIN_TOKEN],
  ['POST', '/roles', { name: 'csrf' }, ADMIN_TOKEN],
  ['POST', '/users', { email: 'csrf@example.com', password: 'csrf-password-1' }, ADMIN_TOKEN],
  ['POST', '/collections', { collection: 'csrf_made', schema: {} }, ADMIN_TOKEN],
  ['POST', '/graphql', { query: 'mutation { create_posts_item(data: {title: "csrf"}) { id } }' }, ADMIN_TOKEN],
];

/** Content types a JSON body may not come with (null: no Content-Type at all). */
const REFUSED_TYPES: (string | null)[] = [
  'text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
  null, 'application/json-seq', 'text/json',
];

const CASES = ENDPOINTS.flatMap(([method, path, body, token]) => REFUSED_TYPES.map((type) => [method, path, type, body, token] as const));

describe('a JSON body without a JSON media type', () => {
  it.each(CASES)('%s %s as %s is 400 UNSUPPORTED_MEDIA_TYPE', async (method, path, type, body, token) => {
    const res = await send(method, path, type, JSON.stringify(body), token);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(res.body.errors[0].message).toMatch(/Content-Type: application\/json/);
  });

  it('changed nothing', async () => {
    expect(await count("select 1 from posts where title = 'csrf'")).toBe(0);
    expect(await count("select 1 from svc_roles where name = 'csrf'")).toBe(0);
    expect(await count("select 1 from svc_users where email = 'csrf@example.com'")).toBe(0);
    expect(await count("select 1 from svc_collections where collection = 'csrf_made'")).toBe(0);
  });
});

describe('what keeps working', () => {
  const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON;charset=UTF-8', 'application/vnd.api+json', 'application/merge-patch+json'];

  it.each(JSON_TYPES)('PATCH /items/posts/1 and POST /graphql as %s', async (type) => {
    const views = 1000 + JSON_TYPES.indexOf(type);
    const res = await send('PATCH', '/items/posts/1', type, JSON.stringify({ views }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const g = await send('POST', '/graphql', type, JSON.stringify({ query: '{ posts_by_id(id: 1) { views } }' }));
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(g.body.data.posts_by_id.views).toBe(views);
  });

  it('GraphQL takes a bare document as application/graphql', async () => {
    const g = await send('POST', '/graphql', 'application/graphql', '{ posts_by_id(id: 2) { title } }');
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(g.body.data.posts_by_id.title).toBe('Second post');
  });

  it('a request without a body needs no Content-Type', async () => {
    const res = await send('POST', '/items/posts/search', null, undefined);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    const typed = await send('POST', '/items/posts/search', 'application/json', undefined);
    expect(typed.status, JSON.stringify(typed.body)).toBe(200);
  });

  it('malformed JSON under a JSON type is still 400 INVALID_PAYLOAD', async () => {
    const res = await send('POST', '/items/posts', 'application/json', '{"title":');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
  });

  it('the unchanged @directus/sdk writes and queries', async () => {
    const fetchInApp = (input: string | URL | Request, init?: RequestInit) => t.app.request(String(input instanceof Request ? input.url : input), init);
    const client = sdk.createDirectus('http://service.test', { globals: { fetch: fetchInApp } })
      .with(sdk.staticToken(ADMIN_TOKEN)).with(sdk.rest()).with(sdk.graphql());
    // Writes answer the key unless fields are asked for.
    const created = await client.request(sdk.createItem('posts', { title: 'from the sdk', views: 7 })) as number | { id: number };
    const id = typeof created === 'number' ? created : created.id;
    await client.request(sdk.updateItem('posts', id, { views: 8 }));
    const data = await client.query(`{ posts(filter: {title: {_eq: "from the sdk"}}) { id views } }`) as { posts: { id: string; views: number }[] };
    expect(data.posts).toEqual([{ id: String(id), views: 8 }]);
    const loggedIn = await sdk.createDirectus('http://service.test', { globals: { fetch: fetchInApp } }).with(sdk.authentication('json')).with(sdk.rest())
      .login({ email: 'admin@example.com', password: 'wrong-password' }).catch((err: { errors?: { extensions?: { code?: string } }[] }) => err);
    // The login request itself arrives as JSON: a wrong password, not a media type complaint.
    expect(loggedIn.errors?.[0]?.extensions?.code).toBe('INVALID_CREDENTIALS');
  });
});
