/** Versions under the item's read permission (issue 24, point 5): GET /versions lists, and GET /versions/{id}
 * and /compare answer, only versions of items the caller may read under the item collection's row filter
 * (before, any reader of the collection saw them all), with deltas and the main item cut to readable fields;
 * a draft of new content (no row yet) stays visible to the collection's readers, as its preview is.
 * Principals: admin; owner and other (vdocs read under {"owner":{"_eq":"$CURRENT_USER"}} without `secret`,
 * versioning:view); none (versioning:view, no read on vdocs); public; a share token of the owner's doc. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { PermissionSpec } from '../helpers/principals.ts';
import { code, principal, q, versionsApp } from './setup.ts';

type Who = 'admin' | 'owner' | 'other' | 'none' | 'public' | 'share';
const WHO: Who[] = ['admin', 'owner', 'other', 'none', 'public', 'share'];

let t: TestApp;
const tokens: Partial<Record<Who, string | null>> = { public: null };
const users: Record<string, string> = {};
const DOC_A = 'dddddddd-0000-4000-8000-00000000000a';
const DOC_B = 'dddddddd-0000-4000-8000-00000000000b';
const NEW_DOC = 'dddddddd-0000-4000-8000-0000000000ff';
const versions: Record<'a' | 'b' | 'new', string> = { a: '', b: '', new: '' };

const as = (who: Who) => (who === 'admin' ? {} : { token: tokens[who] ?? null });

const VDOCS = `
create table vdocs (id uuid primary key, title varchar(255), secret varchar(255), owner uuid);
insert into svc_collections (collection, singleton, accountability) values ('vdocs', false, 'all');
`;

const DOC_READ: PermissionSpec = { collection: 'vdocs', action: 'read', fields: ['id', 'title', 'owner'], permissions: { owner: { _eq: '$CURRENT_USER' } } };

beforeAll(async () => {
  t = await versionsApp();
  await q(t, VDOCS);
  await t.services.schema.invalidate();
  const owner = await principal(t, 'ver-owner', [DOC_READ], ['versioning:view']);
  const other = await principal(t, 'ver-other', [DOC_READ], ['versioning:view']);
  await principal(t, 'ver-none', [{ collection: 'posts', action: 'read' }], ['versioning:view']);
  Object.assign(tokens, { owner: 'ver-owner', other: 'ver-other', none: 'ver-none' });
  users.owner = owner.user;
  users.other = other.user;
  await q(t, "insert into vdocs (id, title, secret, owner) values ($1, 'A doc', 'a-secret', $2), ($3, 'B doc', 'b-secret', $4)",
    [DOC_A, owner.user, DOC_B, other.user]);

  const mk = async (key: string, item: string, delta: Record<string, unknown>) => {
    const res = await t.req('POST', '/versions', { key, collection: 'vdocs', item, delta });
    expect(res.status).toBe(200);
    return res.body.data as string;
  };
  versions.a = await mk('a-draft', DOC_A, { title: 'A draft', secret: 'a-draft-secret' });
  versions.b = await mk('b-draft', DOC_B, { title: 'B draft', secret: 'b-draft-secret' });
  versions.new = await mk('new-draft', NEW_DOC, { title: 'New draft', secret: 'new-secret', owner: owner.user });

  const share = randomUUID();
  await q(t, "insert into svc_shares (id, collection, item, role) values ($1, 'vdocs', $2, $3)", [share, DOC_A, owner.role]);
  const auth = await t.req('POST', '/shares/auth', { share }, { token: null });
  expect(auth.status).toBe(200);
  tokens.share = auth.body.data.access_token;
});
afterAll(() => t.close());

const FULL = {
  a: { key: 'a-draft', item: DOC_A, delta: { title: 'A draft', secret: 'a-draft-secret' } },
  b: { key: 'b-draft', item: DOC_B, delta: { title: 'B draft', secret: 'b-draft-secret' } },
  new: { key: 'new-draft', item: NEW_DOC, delta: { title: 'New draft', secret: 'new-secret', owner: '' } },
};

function row(k: 'a' | 'b' | 'new', cut: boolean) {
  const r = FULL[k];
  const delta: Record<string, unknown> = { ...r.delta };
  if (k === 'new') delta.owner = users.owner;
  if (cut) delete delta.secret;
  return { key: r.key, item: r.item, delta };
}

/** Versions need an authenticated user (401); a share token reads its one item only, never svc_versions (403),
 * even when its role holds versioning:view (the owner's role does). */
const REFUSED: Partial<Record<Who, [number, string]>> = { public: [401, 'INVALID_CREDENTIALS'], share: [403, 'FORBIDDEN'] };

/** Which versions each caller sees (by key order: a-draft, b-draft, new-draft); null = refused. */
const VISIBLE: Record<Who, ('a' | 'b' | 'new')[] | null> = {
  admin: ['a', 'b', 'new'],
  owner: ['a', 'new'],
  other: ['b', 'new'],
  none: [],
  public: null,
  share: null,
};

describe('GET /versions', () => {
  it.each(WHO)('%s: versions of items it may read only, deltas cut', async (who) => {
    const res = await t.req('GET', '/versions?filter[collection][_eq]=vdocs&fields=key,item,delta&sort=key&meta=total_count,filter_count', undefined, as(who));
    const visible = VISIBLE[who];
    if (visible === null) {
      expect([res.status, code(res)], who).toEqual(REFUSED[who]);
      return;
    }
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(visible.map((k) => row(k, who !== 'admin')));
    // The totals count only what the caller may see (vdocs holds every version of this test's app).
    expect(res.body.meta).toEqual({ total_count: who === 'admin' ? expect.any(Number) : visible.length, filter_count: visible.length });
  });

  it('a filter cannot find a version of an unreadable item', async () => {
    for (const [who, item, n] of [['owner', DOC_B, 0], ['other', DOC_B, 1], ['owner', DOC_A, 1]] as const) {
      const res = await t.req('GET', `/versions?filter[item][_eq]=${item}&fields=id`, undefined, as(who));
      expect(res.body.data, `${who} ${item}`).toHaveLength(n);
    }
  });
});

describe('GET /versions/{id} and /versions/{id}/compare', () => {
  const cases = WHO.flatMap((who) => (['a', 'b', 'new'] as const).map((k) => [who, k] as const));

  it.each(cases)('%s reading version %s', async (who, k) => {
    const one = await t.req('GET', `/versions/${versions[k]}?fields=key,item,delta`, undefined, as(who));
    const compare = await t.req('GET', `/versions/${versions[k]}/compare`, undefined, as(who));
    if (!VISIBLE[who]?.includes(k)) {
      const refused = REFUSED[who] ?? [403, 'FORBIDDEN'];
      expect([one.status, code(one)], 'read').toEqual(refused);
      expect([compare.status, code(compare)], 'compare').toEqual(refused);
      return;
    }
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(row(k, who !== 'admin'));
    expect(compare.status).toBe(200);
    expect(compare.body.data.current).toEqual(row(k, who !== 'admin').delta);
    if (k === 'new') expect(compare.body.data.main).toBeNull();
    else {
      const owner = k === 'a' ? users.owner : users.other;
      const main = { id: k === 'a' ? DOC_A : DOC_B, title: k === 'a' ? 'A doc' : 'B doc', owner };
      expect(compare.body.data.main).toEqual(who === 'admin' ? { ...main, secret: `${k}-secret` } : main);
    }
  });
});
