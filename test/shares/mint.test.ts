/** Minting and repointing shares (Directus' SharesService): a non-admin needs `share` and `read` on the item's
 * collection, the item must pass both row filters, and the share's role may only be the creator's own (or
 * none). Every refusal is 403 FORBIDDEN and writes nothing; the same rules hold on update (PATCH by id, by keys,
 * by batch, by query) and for a share written nested through a relation. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal, type PermissionSpec } from '../helpers/principals.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);

const ids: Record<string, { user: string; role: string }> = {};
let adminRole: string;
let publicPolicy: string;
/** docs 1 and 2 belong to `owner`, 3 to `other`; 2 is titled "private", which owner's share permission excludes. */
const OWNER_DOC = '1';
const OWNER_PRIVATE_DOC = '2';
const OTHER_DOC = '3';

const SHARES_CRUD: PermissionSpec[] = [
  { collection: 'svc_shares', action: 'create' },
  { collection: 'svc_shares', action: 'read' },
  { collection: 'svc_shares', action: 'update' },
];
const OWN_DOCS: PermissionSpec = { collection: 'docs', action: 'read', fields: ['id', 'title', 'owner'], permissions: { owner: { _eq: '$CURRENT_USER' } } };
const SHARE_DOCS: PermissionSpec = { collection: 'docs', action: 'share', permissions: { title: { _neq: 'private' } } };

async function shareCount(): Promise<number> {
  const [{ n }] = await q<{ n: number }>('select count(*)::int as n from svc_shares');
  return n;
}

async function adminShare(item: string, role: string | null): Promise<string> {
  const id = randomUUID();
  await q("insert into svc_shares (id, collection, item, role) values ($1, 'docs', $2, $3)", [id, item, role]);
  await t.services.schema.invalidate();
  return id;
}

const codeOf = (res: { body: any }) => res.body?.errors?.[0]?.extensions?.code;

beforeAll(async () => {
  t = await createTestApp();
  await q(`
    create table docs (id serial primary key, title varchar(255), secret varchar(255), owner uuid, share uuid references svc_shares(id));
    insert into svc_collections (collection, accountability) values ('docs', 'all');
  `);
  // Owner reads and shares own docs (not `secret`); other has the same rights over its own docs; reader reads
  // every doc but may not share; wide is a role that reads everything of docs, secret included.
  ids.owner = await createPrincipal(t.services, { token: 'mint-owner', permissions: [OWN_DOCS, SHARE_DOCS, ...SHARES_CRUD] });
  ids.other = await createPrincipal(t.services, { token: 'mint-other', permissions: [OWN_DOCS, SHARE_DOCS, ...SHARES_CRUD] });
  ids.reader = await createPrincipal(t.services, { token: 'mint-reader', permissions: [{ collection: 'docs', action: 'read' }, ...SHARES_CRUD] });
  ids.wide = await createPrincipal(t.services, { token: 'mint-wide', permissions: [{ collection: 'docs', action: 'read' }] });
  ids.nester = await createPrincipal(t.services, {
    token: 'mint-nester',
    permissions: [{ collection: 'docs', action: 'create' }, { collection: 'docs', action: 'read' }, { collection: 'docs', action: 'update' }, SHARE_DOCS, ...SHARES_CRUD],
  });
  await q("insert into docs (title, secret, owner) values ('mine', 's1', $1), ('private', 's2', $1), ('theirs', 's3', $2)", [ids.owner.user, ids.other.user]);
  [{ role: adminRole }] = await q<{ role: string }>("select role from svc_users where email = 'admin@example.com'");
  // Anyone may create shares: the attack of the issue. Public may not share docs, though.
  [{ policy: publicPolicy }] = await q<{ policy: string }>('select a.policy from svc_settings s join svc_access a on a.role = s.public_role where s.id = 1');
  await q("insert into svc_permissions (policy, collection, action, fields) values ($1, 'svc_shares', 'create', '[\"*\"]'), ($1, 'docs', 'read', '[\"*\"]')", [publicPolicy]);
  await t.services.schema.invalidate();
});
afterAll(async () => t?.close());

type Who = 'admin' | 'owner' | 'other' | 'reader' | 'public';
const tokenOf = (who: Who): string | null | undefined => (who === 'admin' ? undefined : who === 'public' ? null : `mint-${who}`);

describe('POST /shares', () => {
  const cases: [string, Who, () => Record<string, unknown>, number][] = [
    ['admin shares any item with any role', 'admin', () => ({ collection: 'docs', item: OTHER_DOC, role: ids.wide.role }), 200],
    ['owner shares its own doc as its own role', 'owner', () => ({ collection: 'docs', item: OWNER_DOC, role: ids.owner.role }), 200],
    ['owner shares its own doc without a role', 'owner', () => ({ collection: 'docs', item: OWNER_DOC }), 200],
    ['owner may not pick a wider role', 'owner', () => ({ collection: 'docs', item: OWNER_DOC, role: ids.wide.role }), 403],
    ['owner may not pick the admin role', 'owner', () => ({ collection: 'docs', item: OWNER_DOC, role: adminRole }), 403],
    ['owner may not nest a new role', 'owner', () => ({ collection: 'docs', item: OWNER_DOC, role: { name: 'nested', admin_access: true } }), 403],
    ['owner may not share a doc it cannot read', 'owner', () => ({ collection: 'docs', item: OTHER_DOC, role: ids.owner.role }), 403],
    ['owner may not share a doc outside its share filter', 'owner', () => ({ collection: 'docs', item: OWNER_PRIVATE_DOC, role: ids.owner.role }), 403],
    ['owner may not share a missing doc', 'owner', () => ({ collection: 'docs', item: '999', role: ids.owner.role }), 403],
    ['owner may not share a key docs cannot hold', 'owner', () => ({ collection: 'docs', item: 'abc', role: ids.owner.role }), 403],
    ['owner may not share a collection it has no share permission on', 'owner', () => ({ collection: 'svc_users', item: ids.owner.user, role: ids.owner.role }), 403],
    ['other user (row filter) may not share owner\'s doc', 'other', () => ({ collection: 'docs', item: OWNER_DOC, role: ids.other.role }), 403],
    ['other user may not share owner\'s doc without a role', 'other', () => ({ collection: 'docs', item: OWNER_DOC }), 403],
    ['a reader without share permission is refused', 'reader', () => ({ collection: 'docs', item: OWNER_DOC, role: ids.reader.role }), 403],
    ['a reader without share permission is refused without a role', 'reader', () => ({ collection: 'docs', item: OWNER_DOC }), 403],
    ['public may not share', 'public', () => ({ collection: 'docs', item: OWNER_DOC }), 403],
    ['public may not mint a share with a wide role', 'public', () => ({ collection: 'docs', item: OWNER_DOC, role: ids.wide.role }), 403],
    ['an item key must be a string', 'owner', () => ({ collection: 'docs', item: 1, role: ids.owner.role }), 400],
    ['a batch with one refused share writes none', 'owner', () => [
      { collection: 'docs', item: OWNER_DOC, role: ids.owner.role }, { collection: 'docs', item: OTHER_DOC, role: ids.owner.role },
    ] as unknown as Record<string, unknown>, 403],
  ];

  it.each(cases)('%s', async (_name, who, body, status) => {
    const before = await shareCount();
    const res = await t.req('POST', '/shares?fields=id,collection,item,role', body(), { token: tokenOf(who) });
    expect(res.status).toBe(status);
    if (status !== 200) {
      expect(codeOf(res)).toBe(status === 403 ? 'FORBIDDEN' : 'INVALID_PAYLOAD');
      expect(await shareCount()).toBe(before);
      return;
    }
    const sent = body();
    const [row] = await q('select collection, item, role from svc_shares where id = $1', [res.body.data.id]);
    expect(row).toEqual({ collection: 'docs', item: sent.item, role: (sent.role as string | undefined) ?? null });
    expect(await shareCount()).toBe(before + 1);
  });
});

describe('PATCH /shares', () => {
  let mine: string;
  let wideByAdmin: string;
  beforeAll(async () => {
    mine = await adminShare(OWNER_DOC, ids.owner.role);
    wideByAdmin = await adminShare(OWNER_DOC, ids.wide.role);
  });

  const stored = async (id: string) => (await q('select item, role, name from svc_shares where id = $1', [id]))[0];

  const refusals: [string, () => [string, string, unknown]][] = [
    ['to a wider role', () => ['PATCH', `/shares/${mine}`, { role: ids.wide.role }]],
    ['to a doc the owner cannot read', () => ['PATCH', `/shares/${mine}`, { item: OTHER_DOC }]],
    ['to a doc outside the share filter', () => ['PATCH', `/shares/${mine}`, { item: OWNER_PRIVATE_DOC }]],
    ['to another collection', () => ['PATCH', `/shares/${mine}`, { collection: 'svc_users', item: ids.owner.user }]],
    ['an admin\'s wide share, repointed to the owner\'s doc (its role stays wide)', () => ['PATCH', `/shares/${wideByAdmin}`, { item: OWNER_DOC }]],
    ['by keys', () => ['PATCH', '/shares', { keys: [mine], data: { role: ids.wide.role } }]],
    ['by batch', () => ['PATCH', '/shares', [{ id: mine, role: ids.wide.role }]]],
    ['by batch, with the key in capitals', () => ['PATCH', '/shares', [{ id: mine.toUpperCase(), item: OTHER_DOC }]]],
    ['by query', () => ['PATCH', '/shares', { query: { filter: { id: { _eq: mine } } }, data: { role: ids.wide.role } }]],
  ];

  it.each(refusals)('refuses a change %s, and writes nothing', async (_name, request) => {
    const [method, path, body] = request();
    const before = [await stored(mine), await stored(wideByAdmin)];
    const res = await t.req(method, path, body, { token: 'mint-owner' });
    expect(res.status).toBe(403);
    expect(codeOf(res)).toBe('FORBIDDEN');
    expect([await stored(mine), await stored(wideByAdmin)]).toEqual(before);
  });

  it('allows changes that keep the share within the owner\'s rights', async () => {
    const renamed = await t.req('PATCH', `/shares/${wideByAdmin}`, { name: 'renamed' }, { token: 'mint-owner' });
    expect(renamed.status).toBe(200);
    expect(await stored(wideByAdmin)).toEqual({ item: OWNER_DOC, role: ids.wide.role, name: 'renamed' });
    const [otherOwnDoc] = await q<{ id: number }>("insert into docs (title, owner) values ('mine too', $1) returning id", [ids.owner.user]);
    const moved = await t.req('PATCH', `/shares/${mine}`, { item: String(otherOwnDoc.id), role: null }, { token: 'mint-owner' });
    expect(moved.status).toBe(200);
    expect(await stored(mine)).toEqual({ item: String(otherOwnDoc.id), role: null, name: null });
    const byQuery = await t.req('PATCH', '/shares', { query: { filter: { id: { _eq: mine } } }, data: { role: ids.owner.role } }, { token: 'mint-owner' });
    expect(byQuery.status).toBe(200);
    expect((await stored(mine)).role).toBe(ids.owner.role);
  });

  it('lets an admin repoint any share', async () => {
    const res = await t.req('PATCH', `/shares/${mine}`, { item: OTHER_DOC, role: ids.wide.role });
    expect(res.status).toBe(200);
    expect(await stored(mine)).toMatchObject({ item: OTHER_DOC, role: ids.wide.role });
  });
});

describe('a share written through a relation', () => {
  beforeAll(async () => {
    await q("insert into svc_relations (many_collection, many_field, one_collection) values ('docs', 'share', 'svc_shares')");
    await t.services.schema.invalidate();
  });

  it('obeys the same rules as POST /shares', async () => {
    const before = await shareCount();
    const wide = await t.req('POST', '/items/docs', { title: 'nested', share: { collection: 'docs', item: OWNER_DOC, role: ids.wide.role } }, { token: 'mint-nester' });
    expect(wide.status).toBe(403);
    const own = await t.req('POST', '/items/docs', { title: 'nested', share: { collection: 'docs', item: OWNER_DOC, role: ids.nester.role } }, { token: 'mint-nester' });
    expect(own.status).toBe(200);
    expect(await shareCount()).toBe(before + 1);
    const [{ share }] = await q<{ share: string }>('select share::text as share from docs where id = $1', [own.body.data]);
    const repoint = await t.req('PATCH', `/items/docs/${own.body.data}`, { share: { id: share, role: ids.wide.role } }, { token: 'mint-nester' });
    expect(repoint.status).toBe(403);
    expect((await q('select role from svc_shares where id = $1', [share]))[0].role).toBe(ids.nester.role);
  });
});
