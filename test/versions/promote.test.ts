/** Promote rules 1-6 through POST /versions/{id}/promote, promoteVersion as the workflow engine calls it
 * (system accountability, inside its transaction) and setVersionStatus. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemAccountability } from '../../core/access/accountability.ts';
import { inTransaction, run } from '../../core/db/database.ts';
import { promoteVersion } from '../../core/versions/promote.ts';
import { setVersionStatus } from '../../core/versions/status.ts';
import type { TestApp } from '../helpers/app.ts';
import { ARTICLE, code, EDITOR_PERMISSIONS, principal, q, reason, versionsApp } from './setup.ts';

let t: TestApp;
const as = (token: string | null) => ({ token });

beforeAll(async () => {
  t = await versionsApp();
  await principal(t, 'editor', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:create']);
  await principal(t, 'editor2', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:create']);
  await principal(t, 'manager', EDITOR_PERMISSIONS, ['versioning:manage']);
  await principal(t, 'creator-readonly', [{ collection: 'posts', action: 'read' }, { collection: 'posts', action: 'update', fields: ['title'] }], ['versioning:create']);
});
afterAll(() => t.close());

let seq = 0;
async function create(body: Record<string, unknown>, token = 'editor'): Promise<string> {
  const res = await t.req('POST', '/versions', { key: `p-${++seq}`, collection: 'posts', item: '3', ...body }, as(token));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}
const version = async (id: string) => (await q(t, 'select status, hash from svc_versions where id = $1', [id]))[0];

describe('promote', () => {
  it('rule 2 + 4 + 5: updates an existing auto-increment row with the delta, status -> published, version -> approved, 204', async () => {
    const id = await create({ delta: { title: 'Promoted title' } });
    const res = await t.req('POST', `/versions/${id}/promote`, undefined, as('editor'));
    expect(res.status).toBe(204);
    expect((await q(t, 'select title, status, body from posts where id = 3'))[0]).toEqual({ title: 'Promoted title', status: 'published', body: 'Unfinished' });
    expect((await version(id)).status).toBe('approved');
  });

  it('rule 4: a status in the delta is kept', async () => {
    const id = await create({ item: '5', delta: { status: 'archived', title: 'Still archived' } });
    expect((await t.req('POST', `/versions/${id}/promote`, undefined, as('editor'))).status).toBe(204);
    expect((await q(t, 'select status, title from posts where id = 5'))[0]).toEqual({ status: 'archived', title: 'Still archived' });
  });

  it('rules 2 + 6: a uuid item with no row is created at promote with the version item as its key', async () => {
    const item = randomUUID();
    const id = await create({ collection: 'articles', item, delta: { title: 'New article', body: 'Fresh' } });
    expect(await q(t, 'select 1 from articles where id = $1', [item])).toEqual([]);
    expect((await t.req('POST', `/versions/${id}/promote`, undefined, as('editor'))).status).toBe(204);
    expect((await q(t, 'select title, body, status from articles where id = $1', [item]))[0]).toEqual({ title: 'New article', body: 'Fresh', status: 'published' });
    const [activity] = await q(t, "select a.action, r.version from svc_activity a join svc_revisions r on r.activity = a.id where a.collection = 'articles' and a.item = $1", [item]);
    expect(activity).toEqual({ action: 'create', version: id });
  });

  it('rule 3: nested O2M writes in the delta are preserved; revisions carry the version', async () => {
    const id = await create({ item: '2', delta: { title: 'With comments', comments: { create: [{ id: randomUUID(), text: 'from the version' }], update: [], delete: [] } } });
    expect((await t.req('POST', `/versions/${id}/promote`, undefined, as('editor'))).status).toBe(204);
    expect((await q(t, 'select text from comments where post = 2 order by text')).map((r) => r.text)).toEqual(['Nice', 'from the version']);
    const revisions = await q(t, 'select collection, version from svc_revisions where version = $1 order by id', [id]);
    expect(revisions.map((r) => r.collection).sort()).toEqual(['comments', 'posts']);
    const [post] = await q(t, "select r.delta from svc_revisions r where r.version = $1 and r.collection = 'posts'", [id]);
    expect(post.delta).toMatchObject({ title: 'With comments', status: 'published' });
  });

  it('rule 3: an array of new child objects works too (nested uuid children on a new article)', async () => {
    const item = randomUUID();
    const id = await create({ collection: 'articles', item, delta: { title: 'Sectioned', sections: [{ id: randomUUID(), heading: 'One' }, { id: randomUUID(), heading: 'Two' }] } });
    expect((await t.req('POST', `/versions/${id}/promote`, undefined, as('editor'))).status).toBe(204);
    expect((await q(t, 'select heading from sections where article = $1 order by heading', [item])).map((r) => r.heading)).toEqual(['One', 'Two']);
  });

  it('any -> approved: pending, rejected and approved versions promote (manager); the hash follows the main item', async () => {
    for (const s of ['pending', 'rejected', 'approved']) {
      const id = await create({ item: '4', key: `any-${s}`, delta: { views: s.length } });
      await q(t, 'update svc_versions set status = $2 where id = $1', [id, s]);
      expect((await t.req('POST', `/versions/${id}/promote`, undefined, as('manager'))).status).toBe(204);
      expect((await version(id)).status).toBe('approved');
    }
    expect((await q(t, 'select views from posts where id = 4'))[0].views).toBe('approved'.length);
  });

  it('who may promote: creator with versioning:create (not while pending), versioning:manage, admin; not another editor', async () => {
    const id = await create({ item: '1', delta: { views: 11 } });
    expect((await t.req('POST', `/versions/${id}/promote`, undefined, as('editor2'))).status).toBe(403);
    await q(t, "update svc_versions set status = 'pending' where id = $1", [id]);
    expect((await t.req('POST', `/versions/${id}/promote`, undefined, as('editor'))).status).toBe(403);
    expect((await q(t, 'select views from posts where id = 1'))[0].views).toBe(10);
    expect((await t.req('POST', `/versions/${id}/promote`)).status).toBe(204);
    expect((await q(t, 'select views from posts where id = 1'))[0].views).toBe(11);
  });

  it('the item write runs under the promoting caller: a field its update permission lacks -> 403, nothing written', async () => {
    const id = await create({ item: '1', delta: { title: 'ok' } }, 'creator-readonly');
    // The collection's status field would be set to published: not in the caller's permitted fields.
    const res = await t.req('POST', `/versions/${id}/promote`, undefined, as('creator-readonly'));
    expect([res.status, code(res)]).toEqual([403, 'FORBIDDEN']);
    expect((await q(t, 'select title from posts where id = 1'))[0].title).toBe('Hello world');
    expect((await version(id)).status).toBe('draft');
  });

  it('an empty delta -> 400 empty_delta; unknown version -> 403', async () => {
    const id = await create({});
    const res = await t.req('POST', `/versions/${id}/promote`, undefined, as('editor'));
    expect([res.status, reason(res)]).toEqual([400, 'empty_delta']);
    expect((await t.req('POST', `/versions/${randomUUID()}/promote`, undefined, as('manager'))).status).toBe(403);
  });

  it('promoteVersion with a system accountability inside an open transaction: activity update with user null, revision with the version', async () => {
    const id = await create({ item: ARTICLE, collection: 'articles', delta: { body: 'Approved by the workflow' } });
    const schema = await t.services.schema.get();
    const base = { schema, accountability: systemAccountability(), config: t.services.config, events: t.services.events };
    await inTransaction(t.services.database.db, async (trx) => {
      await promoteVersion({ ...base, db: trx }, id);
      // Inside the caller's transaction: visible there (PGlite serialises connections, so only trx is queried).
      expect((await run<{ status: string }>(trx, 'select status from svc_versions where id = $1', [id]))[0].status).toBe('approved');
    });
    expect((await version(id)).status).toBe('approved');
    const [row] = await q(t, "select a.action, a.user, r.version from svc_activity a join svc_revisions r on r.activity = a.id where a.collection = 'articles' and a.item = $1 order by a.id desc limit 1", [ARTICLE]);
    expect(row).toEqual({ action: 'update', user: null, version: id });
    expect((await q(t, 'select body from articles where id = $1', [ARTICLE]))[0].body).toBe('Approved by the workflow');
  });

  it('promoteVersion rolls back with the enclosing transaction', async () => {
    const id = await create({ item: '4', key: 'rollback', delta: { title: 'never' } });
    const schema = await t.services.schema.get();
    const ctx = { schema, accountability: systemAccountability(), config: t.services.config };
    await expect(inTransaction(t.services.database.db, async (trx) => {
      await promoteVersion({ ...ctx, db: trx }, id);
      throw new Error('approval failed later');
    })).rejects.toThrow('approval failed later');
    expect((await version(id)).status).toBe('draft');
    expect((await q(t, 'select title from posts where id = 4'))[0].title).not.toBe('never');
  });

  it('setVersionStatus moves a version (rejected, back to draft)', async () => {
    const id = await create({ item: '4', key: 'status', delta: { title: 'x' } });
    await setVersionStatus(t.services.database.db, id, 'rejected');
    expect((await version(id)).status).toBe('rejected');
    await setVersionStatus(t.services.database.db, id, 'draft');
    expect((await version(id)).status).toBe('draft');
    await expect(setVersionStatus(t.services.database.db, randomUUID(), 'draft')).rejects.toThrow();
  });
});
