/** The permission matrix (SPEC.md > Permission evaluation): every action x principal (admin, app user, plain
 * user, public, share) x scenario (allowed, filtered, forbidden) with the exact status and body, on posts and
 * on one system collection (svc_notifications, where app_access adds the built-in own-rows read). */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal, type PermissionSpec } from '../helpers/principals.ts';

type Scenario = 'allowed' | 'filtered' | 'forbidden';
type Who = 'admin' | 'app' | 'plain' | 'public' | 'share';
type Action = 'read' | 'create' | 'update' | 'delete' | 'system read' | 'system create';

let t: TestApp;
let adminId: string;
let publicPolicy: string;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const users: Record<string, string> = {};
const shareTokens: Partial<Record<Scenario, string>> = {};

const FORBIDDEN = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] };

const PERMISSIONS: Record<Scenario, PermissionSpec[]> = {
  allowed: [
    ...(['create', 'read', 'update', 'delete'] as const).map((action) => ({ collection: 'posts', action })),
    { collection: 'svc_notifications', action: 'read' }, { collection: 'svc_notifications', action: 'create' },
  ],
  filtered: [
    { collection: 'posts', action: 'read', fields: ['id', 'title', 'status'], permissions: { status: { _eq: 'published' } } },
    { collection: 'posts', action: 'create', fields: ['title', 'status'], validation: { status: { _eq: 'draft' } } },
    { collection: 'posts', action: 'update', fields: ['title'], permissions: { status: { _eq: 'published' } } },
    { collection: 'posts', action: 'delete', permissions: { status: { _eq: 'published' } } },
    { collection: 'svc_notifications', action: 'read', fields: ['id', 'subject'], permissions: { subject: { _starts_with: 'pub' } } },
    { collection: 'svc_notifications', action: 'create', validation: { subject: { _starts_with: 'pub' } } },
  ],
  forbidden: [],
};

const FULL_READ = { data: [{ id: 1, title: 'Hello world', body: 'The first post about engines' }, { id: 3, title: 'Draft thoughts', body: 'Unfinished' }] };
const ALL_NOTIFICATIONS = { data: [{ subject: 'pub-a' }, { subject: 'to-app-allowed' }, { subject: 'to-app-forbidden' }] };

interface Outcome { status: number; body: unknown }

/** What each cell answers. `key` is the row a write targets (update/delete), known only at run time. */
function expected(action: Action, who: Who, scenario: Scenario, key: number): Outcome {
  const s: Scenario = who === 'admin' ? 'allowed' : scenario;
  if (who === 'share') {
    // A share reads only its item (posts 1), under its role's read permission, and writes nothing.
    if (action === 'read' && s === 'allowed') return { status: 200, body: { data: [FULL_READ.data[0]] } };
    if (action === 'read' && s === 'filtered') return { status: 200, body: { data: [{ id: 1, title: 'Hello world' }] } };
    return { status: 403, body: FORBIDDEN };
  }
  switch (action) {
    case 'read':
      if (s === 'allowed') return { status: 200, body: FULL_READ };
      // Row filter applied, `body` (not in the field list) removed.
      if (s === 'filtered') return { status: 200, body: { data: [{ id: 1, title: 'Hello world' }] } };
      return { status: 403, body: FORBIDDEN };
    case 'create':
      if (s === 'allowed') return { status: 200, body: { data: expect.any(Number) } };
      if (s === 'filtered') {
        return { status: 400, body: { errors: [{ message: 'Validation failed for field "status". Value has to be "draft".', extensions: { code: 'INVALID_PAYLOAD', field: 'status', type: '_eq' } }] } };
      }
      return { status: 403, body: FORBIDDEN };
    case 'update':
      // Row filters are enforced on read only (rule 5): the filtered grant updates a draft row too.
      return s === 'forbidden' ? { status: 403, body: FORBIDDEN } : { status: 200, body: { data: key } };
    case 'delete':
      return s === 'forbidden' ? { status: 403, body: FORBIDDEN } : { status: 204, body: '' };
    case 'system read':
      if (s === 'allowed') return { status: 200, body: ALL_NOTIFICATIONS };
      if (s === 'filtered') return { status: 200, body: { data: [{ subject: 'pub-a' }] } };
      // No record: an app_access user gets the built-in own-rows read, everyone else nothing.
      if (who === 'app') return { status: 200, body: { data: [{ subject: 'to-app-forbidden' }] } };
      return { status: 403, body: FORBIDDEN };
    case 'system create':
      if (s === 'allowed') return { status: 200, body: { data: { subject: 'new' } } };
      if (s === 'filtered') {
        return { status: 400, body: { errors: [{ message: 'Validation failed for field "subject". Value has to start with "pub".', extensions: { code: 'INVALID_PAYLOAD', field: 'subject', type: '_starts_with' } }] } };
      }
      return { status: 403, body: FORBIDDEN };
  }
}

function tokenOf(who: Who, scenario: Scenario): string | null | undefined {
  if (who === 'admin') return undefined; // the helper's static admin token
  if (who === 'public') return null;
  if (who === 'share') return shareTokens[scenario]!;
  return `${who}-${scenario}`;
}

async function request(action: Action, who: Who, scenario: Scenario): Promise<{ res: { status: number; body: unknown }; key: number }> {
  const token = tokenOf(who, scenario);
  const [{ id: key }] = await q<{ id: number }>("insert into posts (title, status) values ('target', 'draft') returning id");
  const send = (method: string, path: string, body?: unknown) => t.req(method, path, body, { token });
  switch (action) {
    case 'read': return { res: await send('GET', '/items/posts?fields=id,title,body&filter[id][_in]=1,3&sort=id'), key };
    case 'create': return { res: await send('POST', '/items/posts', { title: 'New', status: 'published' }), key };
    case 'update': return { res: await send('PATCH', `/items/posts/${key}`, { title: 'Changed' }), key };
    case 'delete': return { res: await send('DELETE', `/items/posts/${key}`), key };
    case 'system read': return { res: await send('GET', '/notifications?fields=subject&sort=id'), key };
    case 'system create': return { res: await send('POST', '/notifications?fields=subject', { recipient: adminId, subject: 'new' }), key };
  }
}

async function setPublicPermissions(scenario: Scenario): Promise<void> {
  await q('delete from svc_permissions where policy = $1', [publicPolicy]);
  for (const p of PERMISSIONS[scenario]) {
    await q('insert into svc_permissions (policy, collection, action, fields, permissions, validation) values ($1, $2, $3, $4, $5, $6)', [
      publicPolicy, p.collection, p.action, JSON.stringify(p.fields ?? ['*']),
      p.permissions ? JSON.stringify(p.permissions) : null, p.validation ? JSON.stringify(p.validation) : null,
    ]);
  }
  await t.services.schema.invalidate();
}

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  [{ id: adminId }] = await q<{ id: string }>("select id from svc_users where email = 'admin@example.com'");
  [{ policy: publicPolicy }] = await q<{ policy: string }>('select a.policy from svc_settings s join svc_access a on a.role = s.public_role where s.id = 1');
  for (const scenario of ['allowed', 'filtered', 'forbidden'] as Scenario[]) {
    users[`app-${scenario}`] = (await createPrincipal(t.services, { token: `app-${scenario}`, appAccess: true, permissions: PERMISSIONS[scenario] })).user;
    const plain = await createPrincipal(t.services, { token: `plain-${scenario}`, permissions: PERMISSIONS[scenario] });
    users[`plain-${scenario}`] = plain.user;
    // The share acts as the plain principal's role, on posts 1.
    const share = randomUUID();
    await q("insert into svc_shares (id, collection, item, role) values ($1, 'posts', '1', $2)", [share, plain.role]);
    const auth = await t.req('POST', '/shares/auth', { share }, { token: null });
    expect(auth.status).toBe(200);
    shareTokens[scenario] = auth.body.data.access_token;
  }
  await q(`insert into svc_notifications (recipient, subject) values ($1, 'pub-a'), ($2, 'to-app-allowed'), ($3, 'to-app-forbidden')`,
    [adminId, users['app-allowed'], users['app-forbidden']]);
});
afterAll(async () => t?.close());

const WHO: Who[] = ['admin', 'app', 'plain', 'public', 'share'];
const ACTIONS: Action[] = ['read', 'create', 'update', 'delete', 'system read', 'system create'];

describe.each(['allowed', 'filtered', 'forbidden'] as Scenario[])('%s', (scenario) => {
  beforeAll(async () => setPublicPermissions(scenario));

  const cells = ACTIONS.flatMap((action) => WHO.map((who) => [action, who] as const));
  it.each(cells)('%s as %s', async (action, who) => {
    const before = await q<{ n: number }>('select count(*)::int as n from posts');
    const { res, key } = await request(action, who, scenario);
    const want = expected(action, who, scenario, key);
    expect({ status: res.status, body: res.body }).toEqual(want);
    const after = await q<{ n: number }>('select count(*)::int as n from posts');
    // Refused writes change nothing; allowed ones exactly what they say.
    const delta = want.status >= 400 ? 0 : action === 'create' ? 1 : action === 'delete' ? -1 : 0;
    expect(after[0].n - before[0].n - 1).toBe(delta);
    if (action === 'update') {
      const [row] = await q<{ title: string }>('select title from posts where id = $1', [key]);
      expect(row.title).toBe(want.status === 200 ? 'Changed' : 'target');
    }
    const created = await q("delete from svc_notifications where subject = 'new' returning id");
    expect(created.length).toBe(action === 'system create' && want.status === 200 ? 1 : 0);
  });
});

describe('beyond the matrix', () => {
  it('presets apply on create and validation sees them', async () => {
    const p = await createPrincipal(t.services, { token: 'preset-user', permissions: [
      { collection: 'posts', action: 'create', fields: ['title'], presets: { status: 'draft', views: 42 }, validation: { status: { _eq: 'draft' } } },
    ] });
    const res = await t.req('POST', '/items/posts', { title: 'Preset' }, { token: 'preset-user' });
    expect(res.status).toBe(200);
    const [row] = await q('select status, views from posts where id = $1', [res.body.data]);
    expect(row).toEqual({ status: 'draft', views: 42 });
    expect(p.user).toBeTruthy();
  });

  it('fields outside the write field list are FORBIDDEN and nothing is written', async () => {
    const [{ id }] = await q<{ id: number }>("insert into posts (title, status) values ('keep', 'published') returning id");
    const res = await t.req('PATCH', `/items/posts/${id}`, { body: 'x' }, { token: 'app-filtered' });
    expect(res).toMatchObject({ status: 403, body: { errors: [{ message: 'You don\'t have permission to access field "body" in collection "posts" or it does not exist.', extensions: { code: 'FORBIDDEN' } }] } });
    expect((await q('select body from posts where id = $1', [id]))[0].body).toBeNull();
  });

  it('nested relations drop fields the related permission does not list', async () => {
    await createPrincipal(t.services, { token: 'nested-reader', permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'author'] }, { collection: 'authors', action: 'read', fields: ['id', 'name'] },
    ] });
    const res = await t.req('GET', '/items/posts/1?fields=id,author.name,author.email,author.secret', undefined, { token: 'nested-reader' });
    expect(res.body).toEqual({ data: { id: 1, author: { name: 'Ada' } } });
  });

  it('policies merge across the role chain and direct user policies: filters OR-combined, fields intersected', async () => {
    const p = await createPrincipal(t.services, { token: 'merged', permissions: [
      { collection: 'posts', action: 'read', fields: ['id', 'title', 'status'], permissions: { status: { _eq: 'draft' } } },
    ] });
    const extra = randomUUID();
    await q("insert into svc_policies (id, name) values ($1, 'extra')", [extra]);
    await q('insert into svc_access (id, "user", policy) values ($1, $2, $3)', [randomUUID(), p.user, extra]);
    await q('insert into svc_permissions (policy, collection, action, fields, permissions) values ($1, $2, $3, $4, $5)',
      [extra, 'posts', 'read', '["id","title"]', JSON.stringify({ status: { _eq: 'archived' } })]);
    await t.services.schema.invalidate();
    const res = await t.req('GET', '/items/posts?fields=id,title,status&filter[id][_lte]=5&sort=id', undefined, { token: 'merged' });
    expect(res.body).toEqual({ data: [{ id: 3, title: 'Draft thoughts' }, { id: 5, title: 'Orphan' }] });
  });

  it('$CURRENT_USER in a row filter resolves per caller', async () => {
    await q('alter table posts add column owner uuid');
    await t.services.schema.invalidate();
    const a = await createPrincipal(t.services, { token: 'owner-a', permissions: [{ collection: 'posts', action: 'read', fields: ['id'], permissions: { owner: { _eq: '$CURRENT_USER' } } }] });
    const [{ id }] = await q<{ id: number }>("insert into posts (title, owner) values ('owned', $1) returning id", [a.user]);
    expect((await t.req('GET', '/items/posts?fields=id', undefined, { token: 'owner-a' })).body).toEqual({ data: [{ id }] });
  });
});
