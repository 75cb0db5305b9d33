/** Who may read and change schedules (core/publishing/access.ts), as a permission matrix. vdocs are read under
 * {"owner":{"_eq":"$CURRENT_USER"}}; principals: admin; owner and other (vdocs read (own rows) and update,
 * versioning:view and :create); manager (reads every vdoc, versioning:manage); none (versioning:view and :create, no
 * read on vdocs); public (no token); a share token of the owner's doc (the owner's role). */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { PermissionSpec } from '../helpers/principals.ts';
import { versionsApp } from '../versions/setup.ts';
import { code, inHours, principal, q } from './setup.ts';

type Who = 'admin' | 'owner' | 'other' | 'manager' | 'none' | 'public' | 'share';
const WHO: Who[] = ['admin', 'owner', 'other', 'manager', 'none', 'public', 'share'];

let t: TestApp;
const tokens: Partial<Record<Who, string | null>> = { public: null };
const users: Record<string, string> = {};
const DOC_A = 'dddddddd-0000-4000-8000-00000000000a';
const DOC_B = 'dddddddd-0000-4000-8000-00000000000b';
const ids: Record<'publishA' | 'unpublishA' | 'publishB', string> = { publishA: '', unpublishA: '', publishB: '' };

const as = (who: Who) => (who === 'admin' ? {} : { token: tokens[who] ?? null });

const VDOCS = `
create table vdocs (id uuid primary key, title varchar(255), status varchar(32) default 'published', owner uuid);
insert into svc_collections (collection, singleton, accountability) values ('vdocs', false, 'all');
`;
const OWN_DOCS: PermissionSpec[] = [
  { collection: 'vdocs', action: 'read', permissions: { owner: { _eq: '$CURRENT_USER' } } },
  { collection: 'vdocs', action: 'update' },
];

let seq = 0;
async function version(token: string, item: string): Promise<string> {
  const res = await t.req('POST', '/versions', { key: `m-${++seq}`, collection: 'vdocs', item, delta: { title: `Draft ${seq}` } }, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}
async function scheduled(token: string | null, body: Record<string, unknown>): Promise<string> {
  const res = await t.req('POST', '/schedules', { scheduled_at: inHours(1), ...body }, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

beforeAll(async () => {
  t = await versionsApp();
  await q(t, VDOCS);
  await t.services.schema.invalidate();
  const owner = await principal(t, 'sch-owner', OWN_DOCS, ['versioning:view', 'versioning:create']);
  const other = await principal(t, 'sch-other', OWN_DOCS, ['versioning:view', 'versioning:create']);
  await principal(t, 'sch-manager', [{ collection: 'vdocs', action: 'read' }, { collection: 'vdocs', action: 'update' }], ['versioning:view', 'versioning:manage']);
  await principal(t, 'sch-none', [{ collection: 'posts', action: 'read' }], ['versioning:view', 'versioning:create']);
  Object.assign(tokens, { owner: 'sch-owner', other: 'sch-other', manager: 'sch-manager', none: 'sch-none' });
  users.owner = owner.user;
  users.other = other.user;
  await q(t, "insert into vdocs (id, title, owner) values ($1, 'A doc', $2), ($3, 'B doc', $4)", [DOC_A, owner.user, DOC_B, other.user]);

  ids.publishA = await scheduled('sch-owner', { action: 'publish', version: await version('sch-owner', DOC_A) });
  ids.unpublishA = await scheduled('sch-owner', { action: 'unpublish', collection: 'vdocs', item: DOC_A });
  ids.publishB = await scheduled('sch-other', { action: 'publish', version: await version('sch-other', DOC_B) });

  const share = randomUUID();
  await q(t, "insert into svc_shares (id, collection, item, role) values ($1, 'vdocs', $2, $3)", [share, DOC_A, owner.role]);
  const auth = await t.req('POST', '/shares/auth', { share }, { token: null });
  expect(auth.status).toBe(200);
  tokens.share = auth.body.data.access_token;
});
afterAll(() => t.close());

/** Schedules need an authenticated user (401); a share token never reaches them (403), though its role could. */
const REFUSED: Partial<Record<Who, [number, string]>> = { public: [401, 'INVALID_CREDENTIALS'], share: [403, 'FORBIDDEN'] };

const VISIBLE: Record<Who, (keyof typeof ids)[] | null> = {
  admin: ['publishA', 'unpublishA', 'publishB'],
  owner: ['publishA', 'unpublishA'],
  other: ['publishB'],
  manager: ['publishA', 'unpublishA', 'publishB'],
  none: [],
  public: null,
  share: null,
};

describe('reading', () => {
  it.each(WHO)('%s lists the schedules of items it may read', async (who) => {
    const filter = encodeURIComponent(JSON.stringify({ id: { _in: Object.values(ids) } }));
    const res = await t.req('GET', `/schedules?filter=${filter}&fields=id&meta=filter_count`, undefined, as(who));
    const visible = VISIBLE[who];
    if (visible === null) {
      expect([res.status, code(res)], who).toEqual(REFUSED[who]);
      return;
    }
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((r: { id: string }) => r.id).sort()).toEqual(visible.map((k) => ids[k]).sort());
    expect(res.body.meta.filter_count).toBe(visible.length);
  });

  const cases = WHO.flatMap((who) => (Object.keys(ids) as (keyof typeof ids)[]).map((k) => [who, k] as const));
  it.each(cases)('%s reads %s', async (who, k) => {
    const res = await t.req('GET', `/schedules/${ids[k]}?fields=id,collection,action`, undefined, as(who));
    if (!VISIBLE[who]?.includes(k)) {
      expect([res.status, code(res)]).toEqual(REFUSED[who] ?? [403, 'FORBIDDEN']);
      return;
    }
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: ids[k], collection: 'vdocs', action: k.startsWith('un') ? 'unpublish' : 'publish' });
  });

  it('a user without versioning:view lists nothing (403)', async () => {
    await principal(t, 'sch-noview', OWN_DOCS, ['versioning:create']);
    const res = await t.req('GET', '/schedules', undefined, { token: 'sch-noview' });
    expect([res.status, code(res)]).toEqual([403, 'FORBIDDEN']);
  });
});

/** What each may change on the owner's doc A: its owner, the manager and the admin. */
const MAY_CHANGE: Record<Who, boolean> = { admin: true, owner: true, manager: true, other: false, none: false, public: false, share: false };

function expectRefusedOrOk(who: Who, res: { status: number; body: any }): void {
  if (MAY_CHANGE[who]) expect(res.status, `${who}: ${JSON.stringify(res.body)}`).toBe(200);
  else expect([res.status, code(res)], who).toEqual(REFUSED[who] ?? [403, 'FORBIDDEN']);
}

describe('changing', () => {
  it.each(WHO)('%s schedules publishing of the owner\'s draft', async (who) => {
    const v = await version('sch-owner', DOC_A);
    const before = await q(t, 'select count(*)::int as n from svc_schedules');
    const res = await t.req('POST', '/schedules', { action: 'publish', version: v, scheduled_at: inHours(2) }, as(who));
    expectRefusedOrOk(who, res);
    if (!MAY_CHANGE[who]) expect(await q(t, 'select count(*)::int as n from svc_schedules')).toEqual(before);
  });

  it.each(WHO)('%s schedules unpublishing of the owner\'s doc', async (who) => {
    expectRefusedOrOk(who, await t.req('POST', '/schedules', { action: 'unpublish', collection: 'vdocs', item: DOC_A, scheduled_at: inHours(2) }, as(who)));
  });

  it.each(WHO)('%s reschedules the owner\'s schedule', async (who) => {
    const at = new Date(Date.now() + 7 * 3600_000 + WHO.indexOf(who) * 1000);
    const res = await t.req('PATCH', `/schedules/${ids.publishA}`, { scheduled_at: at.toISOString() }, as(who));
    expectRefusedOrOk(who, res);
    const [row] = await q(t, 'select scheduled_at, scheduled_by from svc_schedules where id = $1', [ids.publishA]);
    if (MAY_CHANGE[who]) {
      expect(new Date(row.scheduled_at).getTime()).toBe(at.getTime());
      // The run now uses the rights of whoever set the time last.
      if (who !== 'admin') expect(row.scheduled_by).not.toBeNull();
    } else {
      expect(new Date(row.scheduled_at).getTime()).not.toBe(at.getTime());
    }
  });

  it.each(WHO)('%s cancels a schedule of the owner\'s', async (who) => {
    const id = await scheduled('sch-owner', { action: 'unpublish', collection: 'vdocs', item: DOC_A });
    expectRefusedOrOk(who, await t.req('POST', `/schedules/${id}/cancel`, undefined, as(who)));
    expect((await q(t, 'select status from svc_schedules where id = $1', [id]))[0].status).toBe(MAY_CHANGE[who] ? 'cancelled' : 'scheduled');
  });

  it('whoever scheduled it may cancel it after losing the rights to schedule it', async () => {
    const p = await principal(t, 'sch-demoted', [{ collection: 'vdocs', action: 'read' }, { collection: 'vdocs', action: 'update' }], ['versioning:view', 'versioning:create']);
    const id = await scheduled('sch-demoted', { action: 'unpublish', collection: 'vdocs', item: DOC_B });
    await q(t, "delete from svc_permissions where policy = $1 and action = 'update'", [p.policy]);
    await t.services.schema.invalidate();
    const moved = await t.req('PATCH', `/schedules/${id}`, { scheduled_at: inHours(3) }, { token: 'sch-demoted' });
    expect([moved.status, code(moved)]).toEqual([403, 'FORBIDDEN']);
    expect((await t.req('POST', `/schedules/${id}/cancel`, undefined, { token: 'sch-demoted' })).status).toBe(200);
  });
});
