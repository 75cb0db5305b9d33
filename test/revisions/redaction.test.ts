/** Revisions under the item's read permission (issue 24, point 4): with read on svc_revisions, a caller sees
 * only revisions of items it may read (the item collection's row filter), with `data` and `delta` cut to the
 * fields it may read; `data`/`delta` may be selected but not tested (filter, aggregate). The same rows and
 * cut reach GET /revisions, GET /revisions/{id}, nested `revisions.*` from activity, relational filters and
 * counts from activity, and /graphql/system. Principals: admin; owner and other (docs read under
 * {"owner":{"_eq":"$CURRENT_USER"}} without `secret`); none (svc_revisions and svc_activity read, nothing on
 * docs); public (svc_revisions read); a share token of the owner's doc. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal, type PermissionSpec } from '../helpers/principals.ts';
import { gql } from '../graphql/helpers.ts';

type Who = 'admin' | 'owner' | 'other' | 'none' | 'public' | 'share';
const WHO: Who[] = ['admin', 'owner', 'other', 'none', 'public', 'share'];

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const tokens: Partial<Record<Who, string | null>> = { public: null };
const ids: Record<string, string> = {};
/** Doc keys: the owner's and the other user's. */
let docA: number;
let docB: number;
/** Revision ids per doc, oldest first. */
const revs: Record<'a' | 'b', number[]> = { a: [], b: [] };

const code = (res: { body: any }) => res.body?.errors?.[0]?.extensions?.code;
const as = (who: Who) => (who === 'admin' ? {} : { token: tokens[who] ?? null });

const DOCS = `
create table docs (id serial primary key, title varchar(255), secret varchar(255), owner uuid, views integer default 0);
insert into svc_collections (collection, singleton, accountability) values ('docs', false, 'all');
`;

const DOC_READ: PermissionSpec = { collection: 'docs', action: 'read', fields: ['id', 'title', 'owner', 'views'], permissions: { owner: { _eq: '$CURRENT_USER' } } };
const RECORDS_READ: PermissionSpec[] = [{ collection: 'svc_revisions', action: 'read' }, { collection: 'svc_activity', action: 'read' }];

beforeAll(async () => {
  t = await createTestApp();
  await q(DOCS);
  await t.services.schema.invalidate();
  const owner = await createPrincipal(t.services, { token: 'rev-owner', permissions: [DOC_READ, ...RECORDS_READ] });
  const other = await createPrincipal(t.services, { token: 'rev-other', permissions: [DOC_READ, ...RECORDS_READ] });
  const none = await createPrincipal(t.services, { token: 'rev-none', permissions: RECORDS_READ });
  Object.assign(tokens, { owner: 'rev-owner', other: 'rev-other', none: 'rev-none' });
  ids.owner = owner.user;
  ids.other = other.user;
  void none;
  const [{ policy }] = await q<{ policy: string }>('select a.policy from svc_settings s join svc_access a on a.role = s.public_role where s.id = 1');
  await q(`insert into svc_permissions (policy, collection, action, fields) values ($1, 'svc_revisions', 'read', '["*"]')`, [policy]);
  await t.services.schema.invalidate();

  // Written by the admin: a create and an update of each doc, so each has two revisions.
  docA = (await t.req('POST', '/items/docs', { title: 'A doc', secret: 'a-secret', owner: ids.owner, views: 1 })).body.data;
  docB = (await t.req('POST', '/items/docs', { title: 'B doc', secret: 'b-secret', owner: ids.other, views: 2 })).body.data;
  expect((await t.req('PATCH', `/items/docs/${docA}`, { title: 'A doc v2', secret: 'a-secret-2' })).status).toBe(200);
  expect((await t.req('PATCH', `/items/docs/${docB}`, { title: 'B doc v2', secret: 'b-secret-2' })).status).toBe(200);
  for (const [k, doc] of [['a', docA], ['b', docB]] as const) {
    revs[k] = (await q<{ id: number }>("select id from svc_revisions where collection = 'docs' and item = $1 order by id", [String(doc)])).map((r) => r.id);
    expect(revs[k]).toHaveLength(2);
  }

  // The share: the owner's role, on the owner's doc.
  const share = randomUUID();
  await q("insert into svc_shares (id, collection, item, role) values ($1, 'docs', $2, $3)", [share, String(docA), owner.role]);
  const auth = await t.req('POST', '/shares/auth', { share }, { token: null });
  expect(auth.status).toBe(200);
  tokens.share = auth.body.data.access_token;
});
afterAll(async () => { await t.close(); });

/** The docs revisions as each caller reads them (item, data, delta), oldest first. */
function full(k: 'a' | 'b') {
  const doc = k === 'a' ? docA : docB;
  const owner = k === 'a' ? ids.owner : ids.other;
  const [t1, t2, views] = k === 'a' ? ['A doc', 'A doc v2', 1] : ['B doc', 'B doc v2', 2];
  const secret = k === 'a' ? ['a-secret', 'a-secret-2'] : ['b-secret', 'b-secret-2'];
  return [
    { item: String(doc), data: { id: doc, title: t1, secret: secret[0], owner, views }, delta: { title: t1, secret: secret[0], owner, views } },
    { item: String(doc), data: { id: doc, title: t2, secret: secret[1], owner, views }, delta: { title: t2, secret: secret[1] } },
  ];
}

function withoutSecret(rows: ReturnType<typeof full>) {
  const cut = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'secret'));
  return rows.map((r) => ({ item: r.item, data: cut(r.data), delta: cut(r.delta) }));
}

function expectedList(who: Who): { status: number; data?: unknown[] } {
  switch (who) {
    // Oldest first: both creates, then both updates.
    case 'admin': return { status: 200, data: [full('a')[0], full('b')[0], full('a')[1], full('b')[1]] };
    case 'owner': return { status: 200, data: withoutSecret(full('a')) };
    case 'other': return { status: 200, data: withoutSecret(full('b')) };
    case 'none': case 'public': return { status: 200, data: [] };
    case 'share': return { status: 403 };
  }
}

describe('GET /revisions', () => {
  it.each(WHO)('%s: lists only revisions of docs it may read, data and delta without unreadable fields', async (who) => {
    const res = await t.req('GET', '/revisions?filter[collection][_eq]=docs&fields=item,data,delta&sort=id', undefined, as(who));
    const want = expectedList(who);
    expect(res.status).toBe(want.status);
    if (want.data) expect(res.body.data).toEqual(want.data);
    else expect(code(res)).toBe('FORBIDDEN');
  });

  it.each(WHO)('%s: GET /revisions/{id} of a doc it cannot read is 403; of one it can, cut', async (who) => {
    for (const k of ['a', 'b'] as const) {
      const res = await t.req('GET', `/revisions/${revs[k][1]}?fields=item,data,delta`, undefined, as(who));
      const visible = who === 'admin' || (who === 'owner' && k === 'a') || (who === 'other' && k === 'b');
      if (!visible) {
        expect([res.status, code(res)], `${who} ${k}`).toEqual([403, 'FORBIDDEN']);
        continue;
      }
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(who === 'admin' ? full(k)[1] : withoutSecret(full(k))[1]);
    }
  });

  it('`fields=*` cuts too, and the answer carries no helper field', async () => {
    const res = await t.req('GET', `/revisions/${revs.a[0]}`, undefined, as('owner'));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['activity', 'collection', 'data', 'delta', 'id', 'item', 'parent', 'version']);
    expect(res.body.data.data).toEqual(withoutSecret(full('a'))[0].data);
  });

  it('filters, counts and totals see only readable revisions; data/delta cannot be tested by non-admins', async () => {
    const items = `filter[item][_in]=${docA},${docB}&filter[collection][_eq]=docs`;
    const cases: [Who, string, number, unknown][] = [
      ['owner', `/revisions?${items}&fields=item`, 200, [{ item: String(docA) }, { item: String(docA) }]],
      ['other', `/revisions?${items}&fields=item`, 200, [{ item: String(docB) }, { item: String(docB) }]],
      ['owner', `/revisions?filter[item][_eq]=${docB}&filter[collection][_eq]=docs&fields=id`, 200, []],
      ['owner', `/revisions?${items}&aggregate[count]=*`, 200, [{ count: 2 }]],
      ['admin', `/revisions?${items}&aggregate[count]=*`, 200, [{ count: 4 }]],
      ['none', `/revisions?${items}&aggregate[count]=*`, 200, [{ count: 0 }]],
      ['owner', '/revisions?filter[data][_contains]=b-secret&fields=id', 403, 'FORBIDDEN'],
      ['owner', '/revisions?filter[delta][_nnull]=true&fields=id', 403, 'FORBIDDEN'],
      ['owner', '/revisions?aggregate[count]=data', 403, 'FORBIDDEN'],
      ['owner', '/revisions?filter[_or][0][data][_null]=true&filter[_or][1][item][_eq]=0&fields=id', 403, 'FORBIDDEN'],
      ['admin', '/revisions?filter[data][_contains]=b-secret-2&fields=item', 200, [{ item: String(docB) }]],
    ];
    for (const [who, path, status, want] of cases) {
      const res = await t.req('GET', path, undefined, as(who));
      expect(res.status, `${who} ${path}`).toBe(status);
      if (status === 200) expect(res.body.data, `${who} ${path}`).toEqual(want);
      else expect(code(res), `${who} ${path}`).toBe(want);
    }
    // total_count counts what the caller may see of the whole collection: the owner reads docs (its own) and no
    // other collection that keeps revisions; the admin sees every revision.
    const meta = async (who: Who) => (await t.req('GET', '/revisions?filter[collection][_eq]=docs&fields=id&meta=total_count,filter_count', undefined, as(who))).body.meta;
    const [{ n: all }] = await q<{ n: number }>('select count(*)::int as n from svc_revisions');
    expect(await meta('owner')).toEqual({ total_count: 2, filter_count: 2 });
    expect(await meta('none')).toEqual({ total_count: 0, filter_count: 0 });
    expect(await meta('admin')).toEqual({ total_count: all, filter_count: 4 });
  });
});

describe('revisions reached from activity', () => {
  const activity = (extra: string) => `/activity?filter[collection][_eq]=docs&filter[action][_eq]=update&sort=id&${extra}`;

  it.each(['owner', 'other', 'none'] as Who[])('%s: nested revisions.* only of readable docs, cut', async (who) => {
    const res = await t.req('GET', activity('fields=item,revisions.data,revisions.delta,revisions.item'), undefined, as(who));
    expect(res.status).toBe(200);
    const cut = (k: 'a' | 'b') => withoutSecret(full(k))[1];
    const a = who === 'owner' ? [{ data: cut('a').data, delta: cut('a').delta, item: String(docA) }] : [];
    const b = who === 'other' ? [{ data: cut('b').data, delta: cut('b').delta, item: String(docB) }] : [];
    expect(res.body.data).toEqual([{ item: String(docA), revisions: a }, { item: String(docB), revisions: b }]);
  });

  it('bare keys, count() and relational filters count only readable revisions; testing data is 403', async () => {
    const keys = await t.req('GET', activity('fields=item,revisions,count(revisions)'), undefined, as('owner'));
    expect(keys.body.data).toEqual([
      { item: String(docA), revisions: [revs.a[1]], revisions_count: 1 },
      { item: String(docB), revisions: [], revisions_count: 0 },
    ]);
    const byItem = (who: Who) => t.req('GET', activity(`fields=item&filter[revisions][item][_eq]=${docB}`), undefined, as(who));
    expect((await byItem('owner')).body.data).toEqual([]);
    expect((await byItem('admin')).body.data).toEqual([{ item: String(docB) }]);
    const probe = await t.req('GET', activity('fields=item&filter[revisions][data][_contains]=b-secret'), undefined, as('owner'));
    expect([probe.status, code(probe)]).toEqual([403, 'FORBIDDEN']);
    const deepProbe = await t.req('GET', activity('fields=revisions.id&deep[revisions][_filter][delta][_nnull]=true'), undefined, as('owner'));
    expect([deepProbe.status, code(deepProbe)]).toEqual([403, 'FORBIDDEN']);
  });
});

describe('/graphql/system svc_revisions', () => {
  const query = '{ svc_revisions(filter: {collection: {_eq: "docs"}}, sort: ["id"]) { item data delta } }';

  it.each(['admin', 'owner', 'other', 'none'] as Who[])('%s: the same rows and cut as REST', async (who) => {
    const res = await gql(t, query, undefined, { path: '/graphql/system', ...as(who) });
    expect(res.status).toBe(200);
    expect(res.body.data.svc_revisions).toEqual(expectedList(who).data);
  });

  it('nested from svc_activity, and relational filters: only readable revisions, cut', async () => {
    const nested = '{ svc_activity(filter: {collection: {_eq: "docs"}, action: {_eq: "update"}}, sort: ["id"]) { item revisions { item data } } }';
    const res = await gql(t, nested, undefined, { path: '/graphql/system', ...as('owner') });
    expect(res.body.data.svc_activity).toEqual([
      { item: String(docA), revisions: [{ item: String(docA), data: withoutSecret(full('a'))[1].data }] },
      { item: String(docB), revisions: [] },
    ]);
    const filtered = `{ svc_activity(filter: {revisions: {item: {_eq: "${docB}"}}}) { item } }`;
    expect((await gql(t, filtered, undefined, { path: '/graphql/system', ...as('owner') })).body.data.svc_activity).toEqual([]);
    expect((await gql(t, filtered, undefined, { path: '/graphql/system' })).body.data.svc_activity).toEqual([{ item: String(docB) }, { item: String(docB) }]);
  });
});

describe('export', () => {
  it('revisions reached through a relation of an exported collection: only readable ones, cut', async () => {
    // A user collection pointing at revisions (M2O rev_refs.rev -> svc_revisions), readable by the owner.
    await q(`create table rev_refs (id serial primary key, rev integer references svc_revisions(id));
      insert into svc_collections (collection) values ('rev_refs');
      insert into svc_relations (many_collection, many_field, one_collection) values ('rev_refs', 'rev', 'svc_revisions');`);
    await q('insert into rev_refs (rev) values ($1), ($2)', [revs.a[1], revs.b[1]]);
    const [{ policy }] = await q<{ policy: string }>("select a.policy from svc_access a join svc_users u on u.role = a.role where u.token = 'rev-owner'");
    await q(`insert into svc_permissions (policy, collection, action, fields) values ($1, 'rev_refs', 'read', '["*"]')`, [policy]);
    await t.services.schema.invalidate();
    const exported = async (who: Who, format: 'json' | 'csv') => t.req('GET', `/utils/export/rev_refs?format=${format}&fields=id,rev.item,rev.data&sort=id`, undefined, as(who));
    const admin = await exported('admin', 'json');
    expect(admin.body.map((r: { rev: { data: unknown } }) => r.rev.data)).toEqual([full('a')[1].data, full('b')[1].data]);
    const owner = await exported('owner', 'json');
    expect(owner.status).toBe(200);
    expect(owner.body).toEqual([
      { id: 1, rev: { item: String(docA), data: withoutSecret(full('a'))[1].data } },
      { id: 2, rev: null },
    ]);
    const csv = await exported('owner', 'csv');
    expect(csv.status).toBe(200);
    expect(String(csv.body)).not.toContain('secret');
    expect(String(csv.body)).not.toContain('B doc');
    expect(String(csv.body)).toContain('A doc v2');
  });
});
