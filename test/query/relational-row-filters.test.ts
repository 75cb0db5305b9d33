/** Relational filters, sorts and deep filters only test rows the caller may read in the related collection: the
 * related collection's row filter applies to every relational form (M2O, O2M with _some/_none, M2M, A2O, $FOLLOW)
 * on every read surface (REST list, /search, GraphQL, export, aggregate), so a filter cannot ask questions about
 * rows a plain read would not return. Each case also runs as the admin, whose answer differs: the case really
 * tests hidden rows. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { gql } from '../graphql/helpers.ts';

const LOW = 'relational-low';
let t: TestApp;
let adminId: string;

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  // posts.owner -> svc_users: a relation into the accounts table.
  const [admin] = await run<{ id: string }>(t.services.database.db, "select id from svc_users where token = $1", [ADMIN_TOKEN]);
  adminId = admin.id;
  await run(t.services.database.db, `
    alter table posts add column owner uuid references svc_users(id);
    insert into svc_relations (many_collection, many_field, one_collection) values ('posts', 'owner', 'svc_users');
  `);
  await run(t.services.database.db, 'update posts set owner = $1', [adminId]);
  // Readable: every post; author Ada only; comments by "x" only; tags other than "tech"; hero block 2 only; no text
  // blocks at all. svc_users: the built-in own-row read of an app user.
  await createPrincipal(t.services, {
    token: LOW,
    appAccess: true,
    permissions: [
      { collection: 'posts', action: 'read' },
      { collection: 'authors', action: 'read', fields: ['id', 'name', 'email', 'age', 'posts'], permissions: { name: { _eq: 'Ada' } } },
      { collection: 'comments', action: 'read', permissions: { user_name: { _eq: 'x' } } },
      { collection: 'posts_tags', action: 'read' },
      { collection: 'tags', action: 'read', permissions: { id: { _neq: 'tech' } } },
      { collection: 'pages', action: 'read' },
      { collection: 'pages_blocks', action: 'read' },
      { collection: 'block_hero', action: 'read', permissions: { id: { _eq: 2 } } },
    ],
  });
});

afterAll(async () => {
  await t?.close();
});

interface Case {
  name: string;
  collection: string;
  filter: Record<string, unknown>;
  /** Keys the low user gets, sorted. */
  low: (number | string)[] | 403;
  /** Keys the admin gets (a different answer: the hidden rows matter). */
  admin: (number | string)[];
  /** The same filter in GraphQL's input types where it is spelled differently; false where GraphQL has no
   * spelling for it (A2O keys, `$FOLLOW`, system collections are not in the /graphql schema, as in Directus). */
  gql?: Record<string, unknown> | false;
}

const CASES: Case[] = [
  { name: 'M2O _eq', collection: 'posts', filter: { author: { name: { _eq: 'Brian' } } }, low: [], admin: [3, 4] },
  { name: 'M2O _starts_with', collection: 'posts', filter: { author: { email: { _starts_with: 'b' } } }, low: [], admin: [3, 4] },
  { name: 'M2O _gt', collection: 'posts', filter: { author: { age: { _gt: 50 } } }, low: [], admin: [3, 4] },
  { name: 'M2O _regex', collection: 'posts', filter: { author: { email: { _regex: '^br' } } }, low: [], admin: [3, 4] },
  { name: 'M2O _nnull', collection: 'posts', filter: { author: { name: { _nnull: true } } }, low: [1, 2], admin: [1, 2, 3, 4] },
  { name: 'M2O inside _or', collection: 'posts', filter: { _or: [{ author: { name: { _eq: 'Brian' } } }, { id: { _eq: 5 } }] }, low: [5], admin: [3, 4, 5] },
  { name: 'M2O to svc_users', collection: 'posts', filter: { owner: { email: { _starts_with: 'admin' } } }, low: [], admin: [1, 2, 3, 4, 5], gql: false },
  { name: 'O2M (implicit _some)', collection: 'posts', filter: { comments: { text: { _eq: 'Agreed' } } }, low: [], admin: [1] },
  { name: 'O2M _some', collection: 'posts', filter: { comments: { _some: { user_name: { _eq: 'y' } } } }, low: [], admin: [1] },
  { name: 'O2M _none', collection: 'posts', filter: { comments: { _none: { text: { _eq: 'Agreed' } } } }, low: [1, 2, 3, 4, 5], admin: [2, 3, 4, 5] },
  { name: 'O2M from the one side', collection: 'authors', filter: { posts: { author: { name: { _eq: 'Brian' } } } }, low: [], admin: [2] },
  { name: 'M2M', collection: 'posts', filter: { tags: { tags_id: { label: { _eq: 'Technology' } } } }, low: [], admin: [1, 2] },
  { name: 'M2M _none', collection: 'posts', filter: { tags: { _none: { tags_id: { id: { _eq: 'tech' } } } } }, low: [1, 2, 3, 4, 5], admin: [3, 4, 5] },
  { name: 'A2O', collection: 'pages_blocks', filter: { item: { headline: { _eq: 'Welcome' } } }, low: [], admin: [1], gql: false },
  { name: 'A2O scoped', collection: 'pages_blocks', filter: { 'item:block_hero': { headline: { _starts_with: 'W' } } }, low: [], admin: [1], gql: false },
  { name: 'M2A through the junction', collection: 'pages', filter: { blocks: { 'item:block_hero': { headline: { _eq: 'Welcome' } } } }, low: [], admin: [1], gql: false },
  { name: '$FOLLOW', collection: 'posts', filter: { '$FOLLOW(comments, post)': { text: { _eq: 'Agreed' } } }, low: [], admin: [1], gql: false },
  { name: '$FOLLOW _none', collection: 'posts', filter: { '$FOLLOW(comments, post)': { _none: { user_name: { _eq: 'y' } } } }, low: [1, 2, 3, 4, 5], admin: [2, 3, 4, 5], gql: false },
  { name: 'count() of an O2M', collection: 'posts', filter: { 'count(comments)': { _eq: 2 } }, low: [], admin: [1], gql: { comments_func: { count: { _eq: 2 } } } },
  { name: 'unreadable collection', collection: 'pages_blocks', filter: { 'item:block_text': { body: { _nnull: true } } }, low: 403, admin: [2], gql: false },
];

const keysOf = (rows: { id: number | string }[]) => rows.map((r) => (typeof r.id === 'string' && /^\d+$/.test(r.id) ? Number(r.id) : r.id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
/** Keys in the order answered. */
const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
const qs = (c: Case) => `filter=${encodeURIComponent(JSON.stringify(c.filter))}&fields=id&limit=-1`;

type Surface = (c: Case, token: string) => Promise<{ status: number; keys: (number | string)[] }>;

const SURFACES: Record<string, Surface> = {
  async rest(c, token) {
    const r = await t.req('GET', `/items/${c.collection}?${qs(c)}`, undefined, { token });
    return { status: r.status, keys: r.status === 200 ? keysOf(r.body.data) : [] };
  },
  async search(c, token) {
    const r = await t.req('POST', `/items/${c.collection}/search`, { query: { filter: c.filter, fields: ['id'], limit: -1 } }, { token });
    return { status: r.status, keys: r.status === 200 ? keysOf(r.body.data) : [] };
  },
  async graphql(c, token) {
    const r = await gql(t, `query ($f: ${c.collection}_filter) { ${c.collection}(filter: $f, limit: -1) { id } }`, { f: c.gql || c.filter }, { token });
    if (r.body.errors) return { status: r.body.errors[0].extensions?.code === 'FORBIDDEN' ? 403 : 400, keys: [] };
    return { status: 200, keys: keysOf(r.body.data[c.collection]) };
  },
  async export(c, token) {
    const r = await t.req('GET', `/utils/export/${c.collection}?format=json&${qs(c)}`, undefined, { token });
    return { status: r.status, keys: r.status === 200 ? keysOf(r.body) : [] };
  },
  async aggregate(c, token) {
    const r = await t.req('GET', `/items/${c.collection}?filter=${encodeURIComponent(JSON.stringify(c.filter))}&aggregate[countDistinct]=id&groupBy[]=id&limit=-1`, undefined, { token });
    return { status: r.status, keys: r.status === 200 ? keysOf(r.body.data) : [] };
  },
};

describe.each(Object.entries(SURFACES))('relational filters on %s', (name, surface) => {
  it.each(CASES.filter((c) => name !== 'graphql' || c.gql !== false))('$name', async (c) => {
    const admin = await surface(c, ADMIN_TOKEN);
    expect(admin).toEqual({ status: 200, keys: c.admin });
    const low = await surface(c, LOW);
    if (c.low === 403) expect(low.status).toBe(403);
    else expect(low).toEqual({ status: 200, keys: c.low });
  });
});

describe('relational sorts', () => {
  // Ada (36) is readable, Brian (80) is not: his posts sort as if they had no author.
  it.each([
    ['REST', async (token: string) => ids((await t.req('GET', '/items/posts?sort=author.age,-id&fields=id', undefined, { token })).body.data)],
    ['search', async (token: string) => ids((await t.req('POST', '/items/posts/search', { query: { sort: ['author.age', '-id'], fields: ['id'] } }, { token })).body.data)],
    ['GraphQL', async (token: string) => (await gql(t, '{ posts(sort: ["author.age", "-id"]) { id } }', undefined, { token })).body.data.posts.map((p: { id: string }) => Number(p.id))],
    ['export', async (token: string) => ids((await t.req('GET', '/utils/export/posts?format=json&sort=author.age,-id&fields=id', undefined, { token })).body)],
  ])('%s: an unreadable related row sorts as null', async (_, order) => {
    expect(await order(ADMIN_TOKEN)).toEqual([2, 1, 4, 3, 5]);
    expect(await order(LOW)).toEqual([2, 1, 5, 4, 3]);
  });

  it('a sort through svc_users does not order by other accounts\' emails', async () => {
    await run(t.services.database.db, "update posts set owner = (select id from svc_users where token = $1) where id in (1, 2)", [LOW]);
    try {
      // Admin order by email: admin@... < relational-low@...; the low user sees only its own row, the rest is null.
      const low = await t.req('GET', '/items/posts?sort=-owner.email,id&fields=id', undefined, { token: LOW });
      const admin = await t.req('GET', '/items/posts?sort=-owner.email,id&fields=id', undefined, { token: ADMIN_TOKEN });
      // relational-low@ sorts after admin@, so descending puts the low user's posts first for the admin...
      expect(ids(admin.body.data)).toEqual([1, 2, 3, 4, 5]);
      // ...and for the low user the admin's email is hidden: null, which a descending sort puts first.
      expect(ids(low.body.data)).toEqual([3, 4, 5, 1, 2]);
    } finally {
      await run(t.services.database.db, 'update posts set owner = $1', [adminId]);
    }
  });
});

describe('deep filters', () => {
  it('a deep _filter through an A2O tests only readable rows', async () => {
    const deep = encodeURIComponent(JSON.stringify({ blocks: { _filter: { 'item:block_hero': { headline: { _eq: 'Welcome' } } } } }));
    const read = (token: string) => t.req('GET', `/items/pages?fields=id,blocks.id&sort=id&deep=${deep}`, undefined, { token });
    expect((await read(ADMIN_TOKEN)).body.data).toEqual([{ id: 1, blocks: [{ id: 1 }] }, { id: 2, blocks: [] }]);
    expect((await read(LOW)).body.data).toEqual([{ id: 1, blocks: [] }, { id: 2, blocks: [] }]);
  });

  it('meta filter_count counts with the related row filter', async () => {
    const filter = encodeURIComponent(JSON.stringify({ author: { name: { _eq: 'Brian' } } }));
    const low = await t.req('GET', `/items/posts?filter=${filter}&meta=filter_count`, undefined, { token: LOW });
    expect(low.body.meta.filter_count).toBe(0);
  });
});

describe('json fields cannot be ordered', () => {
  it.each([
    ['sort', '/items/posts?sort=meta'],
    ['groupBy', '/items/posts?groupBy[]=meta&aggregate[count]=*'],
    ['countDistinct', '/items/posts?aggregate[countDistinct]=meta'],
    ['min', '/items/posts?aggregate[min]=meta'],
    ['max', '/items/posts?aggregate[max]=meta'],
  ])('%s on a json field is 400', async (_, path) => {
    const r = await t.req('GET', path, undefined, { token: ADMIN_TOKEN });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('INVALID_QUERY');
  });

  it('count on a json field still works', async () => {
    const r = await t.req('GET', '/items/posts?aggregate[count]=meta', undefined, { token: ADMIN_TOKEN });
    expect(r.status).toBe(200);
    expect(r.body.data[0].count.meta).toBe(3);
  });
});

describe('permission matrix of a relational filter', () => {
  // posts readable by all of them; authors: LOW reads Ada, OTHER reads Brian, NONE has no read on posts, the
  // public role reads posts but not authors, a share of post 1 acts as LOW's role within its reach.
  const OTHER = 'relational-other';
  const NONE = 'relational-none';
  let shareToken: string;

  beforeAll(async () => {
    await createPrincipal(t.services, {
      token: OTHER,
      permissions: [
        { collection: 'posts', action: 'read' },
        { collection: 'authors', action: 'read', fields: ['id', 'name'], permissions: { name: { _eq: 'Brian' } } },
      ],
    });
    await createPrincipal(t.services, { token: NONE, permissions: [{ collection: 'authors', action: 'read' }] });
    const [{ policy }] = await run<{ policy: string }>(t.services.database.db, 'select a.policy from svc_settings s join svc_access a on a.role = s.public_role where s.id = 1');
    await run(t.services.database.db, `insert into svc_permissions (policy, collection, action, fields) values ($1, 'posts', 'read', '["*"]')`, [policy]);
    const [{ role }] = await run<{ role: string }>(t.services.database.db, 'select role from svc_users where token = $1', [LOW]);
    const share = '5f0c0c0c-0000-4000-8000-00000000000a';
    await run(t.services.database.db, "insert into svc_shares (id, collection, item, role) values ($1, 'posts', '1', $2)", [share, role]);
    await t.services.schema.invalidate();
    const auth = await t.req('POST', '/shares/auth', { share }, { token: null });
    expect(auth.status).toBe(200);
    shareToken = auth.body.data.access_token;
  });

  const byAuthor = (name: string, token: string | null) =>
    t.req('GET', `/items/posts?fields=id&sort=id&filter=${encodeURIComponent(JSON.stringify({ author: { name: { _eq: name } } }))}`, undefined, { token });

  const allowed: [string, () => string, Record<string, number[]>][] = [
    ['admin', () => ADMIN_TOKEN, { Ada: [1, 2], Brian: [3, 4] }],
    ['owner (reads Ada)', () => LOW, { Ada: [1, 2], Brian: [] }],
    ['other user (reads Brian)', () => OTHER, { Ada: [], Brian: [3, 4] }],
    ['share of post 1', () => shareToken, { Ada: [1], Brian: [] }],
  ];
  it.each(allowed)('%s', async (_, token, expected) => {
    for (const [name, keys] of Object.entries(expected)) {
      const res = await byAuthor(name, token());
      expect([res.status, ids(res.body.data ?? [])], name).toEqual([200, keys]);
    }
  });

  const refused: [string, () => string | null][] = [
    ['no access', () => NONE],
    ['public (no read on authors)', () => null],
  ];
  it.each(refused)('%s: 403', async (_, token) => {
    const res = await byAuthor('Ada', token());
    expect([res.status, res.body.errors?.[0]?.extensions?.code]).toEqual([403, 'FORBIDDEN']);
  });
});
