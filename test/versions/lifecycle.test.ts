/** Versions through the HTTP app: create (draft), PATCH, save, submit (draft|rejected -> pending), delete, the
 * versions.submit events, concurrent submits, bad input, access rules. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { ARTICLE, code, EDITOR_PERMISSIONS, principal, q, reason, versionsApp, type Principal } from './setup.ts';

let t: TestApp;
let editor: Principal;
const as = (token: string | null) => ({ token });

beforeAll(async () => {
  t = await versionsApp();
  editor = await principal(t, 'editor', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:create']);
  await principal(t, 'editor2', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:create']);
  await principal(t, 'noapp', EDITOR_PERMISSIONS, []);
  await principal(t, 'manager', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:manage']);
  await principal(t, 'readonly', [{ collection: 'posts', action: 'read' }], ['versioning:view', 'versioning:create']);
});
afterAll(() => t.close());

let seq = 0;
async function create(body: Record<string, unknown>, token = 'editor'): Promise<string> {
  const res = await t.req('POST', '/versions', { key: `v-${++seq}`, collection: 'posts', item: '1', ...body }, as(token));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}
const status = async (id: string) => (await q(t, 'select status from svc_versions where id = $1', [id]))[0]?.status;

describe('create: (new) -> draft', () => {
  it('answers the uuid, stores a draft with the creator, the main item hash and activity', async () => {
    const res = await t.req('POST', '/versions', { key: 'draft-1', name: 'Draft one', collection: 'posts', item: '1', delta: { title: 'Changed' } }, as('editor'));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatch(/^[0-9a-f-]{36}$/);
    const [row] = await q(t, 'select * from svc_versions where id = $1', [res.body.data]);
    expect(row).toMatchObject({ key: 'draft-1', name: 'Draft one', collection: 'posts', item: '1', status: 'draft', user_created: editor.user, delta: { title: 'Changed' } });
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    const [activity] = await q(t, "select action, \"user\" from svc_activity where collection = 'svc_versions' and item = $1", [res.body.data]);
    expect(activity).toEqual({ action: 'create', user: editor.user });
  });

  it('new content of a uuid collection: no row needed, no placeholder written, no hash', async () => {
    const item = randomUUID();
    const id = await create({ collection: 'articles', item, delta: { title: 'Brand new' } });
    expect((await q(t, 'select hash from svc_versions where id = $1', [id]))[0].hash).toBeNull();
    expect(await q(t, 'select id from articles where id = $1', [item])).toEqual([]);
  });

  it('auto-increment keys need their placeholder row: a missing one is 403', async () => {
    const res = await t.req('POST', '/versions', { key: 'x', collection: 'posts', item: '999999', delta: { title: 'x' } }, as('editor'));
    expect(res.status).toBe(403);
  });

  it('duplicate key for (collection, item) -> 409 RECORD_NOT_UNIQUE; the same key on another item is fine', async () => {
    await create({ key: 'dup' });
    const dup = await t.req('POST', '/versions', { key: 'dup', collection: 'posts', item: '1' }, as('editor'));
    expect(dup.status).toBe(409);
    expect(code(dup)).toBe('RECORD_NOT_UNIQUE');
    await create({ key: 'dup', item: '2' });
  });

  it('bad input -> 400 and nothing written', async () => {
    const before = (await q(t, 'select count(*)::int as n from svc_versions'))[0].n;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ collection: 'posts', item: '1' }, 400, 'INVALID_PAYLOAD'], // no key
      [{ key: 'Not A Slug', collection: 'posts', item: '1' }, 400, 'INVALID_PAYLOAD'],
      [{ key: 'k'.repeat(65), collection: 'posts', item: '1' }, 400, 'INVALID_PAYLOAD'],
      [{ key: 'k', collection: 'posts' }, 400, 'INVALID_PAYLOAD'], // no item
      [{ key: 'k', collection: 'posts', item: 1 }, 400, 'INVALID_PAYLOAD'], // item not a string
      [{ key: 'k', collection: 'articles', item: 'not-a-uuid' }, 400, 'INVALID_PAYLOAD'],
      [{ key: 'k', collection: 'nope', item: '1' }, 404, 'COLLECTION_NOT_FOUND'],
      [{ key: 'k', collection: 'svc_users', item: '1' }, 403, 'FORBIDDEN'],
      [{ key: 'k', collection: 'posts', item: '1', delta: { nope: 1 } }, 400, 'INVALID_PAYLOAD'], // unknown field
      [{ key: 'k', collection: 'posts', item: '1', delta: { views: 'many' } }, 400, 'INVALID_PAYLOAD'], // wrong type
      [{ key: 'k', collection: 'posts', item: '1', delta: [1] }, 400, 'INVALID_PAYLOAD'],
      [{ key: 'k', collection: 'articles', item: randomUUID(), delta: { title: null } }, 400, 'INVALID_PAYLOAD'], // not nullable
      [{ key: 'k', collection: 'posts', item: '1', extra: true }, 400, 'INVALID_PAYLOAD'],
    ];
    for (const [body, status, c] of cases) {
      const res = await t.req('POST', '/versions', body, as('editor'));
      expect([res.status, code(res)], JSON.stringify(body)).toEqual([status, c]);
    }
    expect((await q(t, 'select count(*)::int as n from svc_versions'))[0].n).toBe(before);
  });

  it('permissions: anonymous 401, no versioning:create 403, no update permission on the collection 403, field not permitted 403', async () => {
    expect((await t.req('POST', '/versions', { key: 'a', collection: 'posts', item: '1' }, as(null))).status).toBe(401);
    expect((await t.req('POST', '/versions', { key: 'a', collection: 'posts', item: '1' }, as('noapp'))).status).toBe(403);
    expect((await t.req('POST', '/versions', { key: 'a', collection: 'posts', item: '1' }, as('readonly'))).status).toBe(403);
    await principal(t, 'limited', [{ collection: 'posts', action: 'read' }, { collection: 'posts', action: 'update', fields: ['title'] }], ['versioning:create']);
    expect((await t.req('POST', '/versions', { key: 'a', collection: 'posts', item: '1', delta: { title: 'ok' } }, as('limited'))).status).toBe(200);
    const res = await t.req('POST', '/versions', { key: 'b', collection: 'posts', item: '1', delta: { body: 'not allowed' } }, as('limited'));
    expect([res.status, code(res)]).toEqual([403, 'FORBIDDEN']);
  });
});

describe('PATCH and save', () => {
  it('PATCH replaces name and delta (delta checked again); save merges a partial delta and answers the merged item', async () => {
    const id = await create({ delta: { title: 'A', body: 'B' } });
    expect(await t.req('PATCH', `/versions/${id}`, { name: 'Renamed', delta: { views: 7 } }, as('editor'))).toMatchObject({ status: 200, body: { data: id } });
    expect((await q(t, 'select name, delta from svc_versions where id = $1', [id]))[0]).toEqual({ name: 'Renamed', delta: { views: 7 } });
    const bad = await t.req('PATCH', `/versions/${id}`, { delta: { views: 'x' } }, as('editor'));
    expect(bad.status).toBe(400);
    expect((await q(t, 'select delta from svc_versions where id = $1', [id]))[0].delta).toEqual({ views: 7 });

    const saved = await t.req('POST', `/versions/${id}/save`, { title: 'Saved title' }, as('editor'));
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ id: 1, title: 'Saved title', views: 7, body: 'The first post about engines' });
    expect((await q(t, 'select delta from svc_versions where id = $1', [id]))[0].delta).toEqual({ views: 7, title: 'Saved title' });
    expect((await t.req('POST', `/versions/${id}/save`, { nope: 1 }, as('editor'))).status).toBe(400);
    const activity = await q(t, "select action from svc_activity where collection = 'svc_versions' and item = $1 order by id", [id]);
    expect(activity.map((a) => a.action)).toEqual(['create', 'update', 'update']);
  });

  it('only the creator (or an admin) with versioning:create may PATCH, save or submit', async () => {
    const id = await create({ delta: { title: 'mine' } });
    for (const [method, path, body] of [['PATCH', `/versions/${id}`, { name: 'x' }], ['POST', `/versions/${id}/save`, { title: 'x' }], ['POST', `/versions/${id}/submit`, undefined]] as const) {
      expect((await t.req(method, path, body, as('editor2'))).status).toBe(403);
      expect((await t.req(method, path, body, as('noapp'))).status).toBe(403);
      expect((await t.req(method, path, body, as(null))).status).toBe(401);
    }
    expect((await q(t, 'select name, delta, status from svc_versions where id = $1', [id]))[0]).toEqual({ name: null, delta: { title: 'mine' }, status: 'draft' });
    expect((await t.req('PATCH', `/versions/${id}`, { name: 'by admin' })).status).toBe(200);
  });

  it('a pending or approved version cannot be changed', async () => {
    const id = await create({ delta: { title: 'x' } });
    await q(t, "update svc_versions set status = 'pending' where id = $1", [id]);
    const res = await t.req('PATCH', `/versions/${id}`, { name: 'x' }, as('editor'));
    expect([res.status, reason(res)]).toEqual([400, 'invalid_status']);
  });
});

describe('submit', () => {
  it('draft -> pending and rejected -> pending; answers {id, status}', async () => {
    const id = await create({ delta: { title: 'submit me' } });
    expect(await t.req('POST', `/versions/${id}/submit`, undefined, as('editor'))).toMatchObject({ status: 200, body: { data: { id, status: 'pending' } } });
    expect(await status(id)).toBe('pending');
    await q(t, "update svc_versions set status = 'rejected' where id = $1", [id]);
    expect((await t.req('POST', `/versions/${id}/submit`, undefined, as('editor'))).status).toBe(200);
    expect(await status(id)).toBe('pending');
  });

  it('wrong status, empty delta, running workflow instance -> 400 INVALID_PAYLOAD with reason; nothing changes', async () => {
    const pending = await create({ delta: { title: 'x' } });
    await t.req('POST', `/versions/${pending}/submit`, undefined, as('editor'));
    let res = await t.req('POST', `/versions/${pending}/submit`, undefined, as('editor'));
    expect([res.status, code(res), reason(res)]).toEqual([400, 'INVALID_PAYLOAD', 'invalid_status']);
    const approved = await create({ delta: { title: 'x' } });
    await q(t, "update svc_versions set status = 'approved' where id = $1", [approved]);
    res = await t.req('POST', `/versions/${approved}/submit`, undefined, as('editor'));
    expect([res.status, reason(res)]).toEqual([400, 'invalid_status']);

    for (const delta of [undefined, {}]) {
      const empty = await create(delta === undefined ? {} : { delta });
      res = await t.req('POST', `/versions/${empty}/submit`, undefined, as('editor'));
      expect([res.status, code(res), reason(res)]).toEqual([400, 'INVALID_PAYLOAD', 'empty_delta']);
      expect(await status(empty)).toBe('draft');
    }

    const running = await create({ delta: { title: 'x' } });
    const workflow = randomUUID();
    await q(t, "insert into svc_workflows (id, name, collection) values ($1, 'wf', 'posts')", [workflow]);
    await q(t, "insert into svc_workflow_instances (id, workflow_id, collection, item, version_id, status) values ($1, $2, 'posts', '1', $3, 'running')", [randomUUID(), workflow, running]);
    res = await t.req('POST', `/versions/${running}/submit`, undefined, as('editor'));
    expect([res.status, code(res), reason(res)]).toEqual([400, 'INVALID_PAYLOAD', 'workflow_running']);
    expect(await status(running)).toBe('draft');
  });

  it('unknown or malformed id -> 403', async () => {
    expect((await t.req('POST', `/versions/${randomUUID()}/submit`, undefined, as('editor'))).status).toBe(403);
    expect((await t.req('POST', '/versions/nope/submit', undefined, as('editor'))).status).toBe(403);
  });

  it('concurrent submits: exactly one 200, the others 400 invalid_status', async () => {
    const id = await create({ delta: { title: 'race' } });
    const results = await Promise.all(Array.from({ length: 5 }, () => t.req('POST', `/versions/${id}/submit`, undefined, as('editor'))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400, 400, 400, 400]);
    expect(results.filter((r) => r.status === 400).every((r) => reason(r) === 'invalid_status')).toBe(true);
    const activity = await q(t, "select count(*)::int as n from svc_activity where collection = 'svc_versions' and item = $1 and action = 'update'", [id]);
    expect(activity[0].n).toBe(1);
  });

  it('runs the versions.submit filter in the transaction (a throw rolls the submit back) and the action after commit', async () => {
    const seen: { payload: any; meta: any; inTrx: boolean }[] = [];
    const actions: any[] = [];
    const offFilter = t.services.events.filter('versions.submit', (payload, meta, context) => {
      seen.push({ payload, meta, inTrx: context.ctx.db.isTransaction });
      if (payload.name === 'refuse') throw new Error('refused by the workflow');
      return undefined;
    });
    const offAction = t.services.events.action('versions.submit', (meta) => { actions.push(meta); });
    try {
      const id = await create({ delta: { title: 'evented' } });
      expect((await t.req('POST', `/versions/${id}/submit`, undefined, as('editor'))).status).toBe(200);
      expect(seen).toHaveLength(1);
      expect(seen[0].inTrx).toBe(true);
      expect(seen[0].payload).toEqual({ id, key: expect.any(String), name: null, collection: 'posts', item: '1', delta: { title: 'evented' }, status: 'pending', user_created: editor.user });
      expect(seen[0].meta).toMatchObject({ collection: 'posts', keys: [id], event: 'versions.submit' });
      await expect.poll(() => actions.length).toBe(1);
      expect(actions[0]).toMatchObject({ collection: 'posts', keys: [id], payload: { id, status: 'pending' } });

      const refused = await create({ name: 'refuse', delta: { title: 'no' } });
      const res = await t.req('POST', `/versions/${refused}/submit`, undefined, as('editor'));
      expect(res.status).toBe(500);
      expect(await status(refused)).toBe('draft');
      await new Promise((r) => setTimeout(r, 50));
      expect(actions).toHaveLength(1);
    } finally {
      offFilter();
      offAction();
    }
  });
});

describe('delete', () => {
  it('versioning:manage deletes draft and rejected versions; pending and approved -> 400; others 403', async () => {
    const draft = await create({ delta: { title: 'd' } });
    expect((await t.req('DELETE', `/versions/${draft}`, undefined, as('editor'))).status).toBe(403);
    expect((await t.req('DELETE', `/versions/${draft}`, undefined, as('manager'))).status).toBe(204);
    expect(await status(draft)).toBeUndefined();
    expect((await q(t, "select action from svc_activity where collection = 'svc_versions' and item = $1 order by id desc limit 1", [draft]))[0].action).toBe('delete');
    const rejected = await create({ delta: { title: 'r' } });
    await q(t, "update svc_versions set status = 'rejected' where id = $1", [rejected]);
    expect((await t.req('DELETE', `/versions/${rejected}`)).status).toBe(204);
    for (const s of ['pending', 'approved']) {
      const id = await create({ delta: { title: s } });
      await q(t, 'update svc_versions set status = $2 where id = $1', [id, s]);
      const res = await t.req('DELETE', `/versions/${id}`, undefined, as('manager'));
      expect([res.status, code(res), reason(res)]).toEqual([400, 'INVALID_PAYLOAD', 'invalid_status']);
      expect(await status(id)).toBe(s);
    }
  });
});

describe('reads', () => {
  it('GET /versions: admins see all; viewers need versioning:view and see versions of collections they can read, deltas cut to readable fields', async () => {
    await principal(t, 'viewer', [{ collection: 'articles', action: 'read', fields: ['id', 'title'] }], ['versioning:view']);
    const art = await create({ collection: 'articles', item: ARTICLE, key: 'viewer-art', delta: { title: 'T', secret: 'leak?' } });
    const all = await t.req('GET', '/versions?limit=-1');
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThan(5);
    const mine = await t.req('GET', '/versions?limit=-1&fields=id,collection,delta', undefined, as('viewer'));
    expect(mine.status).toBe(200);
    expect(mine.body.data.every((v: any) => v.collection === 'articles')).toBe(true);
    expect(mine.body.data.find((v: any) => v.id === art).delta).toEqual({ title: 'T' });
    const deltaOnly = await t.req('GET', `/versions?filter[id][_eq]=${art}&fields=delta`, undefined, as('viewer'));
    expect(deltaOnly.body).toEqual({ data: [{ delta: { title: 'T' } }] });
    expect((await t.req('GET', '/versions', undefined, as('noapp'))).status).toBe(403);
    expect((await t.req('GET', '/versions', undefined, as(null))).status).toBe(401);
    expect((await t.req('GET', '/versions?fields=user_created.email', undefined, as('viewer'))).status).toBe(403);
    expect((await t.req('GET', '/versions?filter[delta][_nnull]=true', undefined, as('viewer'))).status).toBe(403);

    const one = await t.req('GET', `/versions/${art}`, undefined, as('viewer'));
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: art, key: 'viewer-art', collection: 'articles', item: ARTICLE, status: 'draft', delta: { title: 'T' } });
    const postVersion = await create({});
    expect((await t.req('GET', `/versions/${postVersion}`, undefined, as('viewer'))).status).toBe(403);
    expect((await t.req('GET', `/versions/${randomUUID()}`, undefined, as('viewer'))).status).toBe(403);
    expect((await t.req('GET', `/versions/${art}`, undefined, as('noapp'))).status).toBe(403);
  });

  it('compare: {outdated, mainHash, current, main}; outdated once the main item changes', async () => {
    const id = await create({ item: '2', delta: { title: 'Compare' } });
    const first = await t.req('GET', `/versions/${id}/compare`, undefined, as('editor'));
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ outdated: false, current: { title: 'Compare' }, main: { id: 2, title: 'Second post' } });
    expect(first.body.data.mainHash).toMatch(/^[0-9a-f]{64}$/);
    await t.req('PATCH', '/items/posts/2', { views: 26 });
    const second = await t.req('GET', `/versions/${id}/compare`, undefined, as('editor'));
    expect(second.body.data.outdated).toBe(true);
    expect(second.body.data.mainHash).not.toBe(first.body.data.mainHash);
    // Saving rebases the version on the current main item.
    await t.req('POST', `/versions/${id}/save`, { body: 'rebased' }, as('editor'));
    expect((await t.req('GET', `/versions/${id}/compare`, undefined, as('editor'))).body.data.outdated).toBe(false);
  });
});
