/** Scheduled publishing through the API and the scheduler in-process (runDueSchedules with a `now` past the time):
 * publish a draft (the promotion, its revision and activity under the scheduling user), unpublish (archive value,
 * else status draft), every refusal of POST/PATCH/cancel with its 400, reschedule and cancel, the standard query on
 * GET /schedules, and runs the rules refuse at run time (the user lost the right, the draft was deleted or promoted
 * meanwhile, the item is gone), each marked failed with its reason; the timer of startPublishSchedules. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueSchedules, startPublishSchedules } from '../../core/publishing/runner.ts';
import type { TestApp } from '../helpers/app.ts';
import { code, draft, EDITOR_PERMISSIONS, inHours, inMs, principal, publishingApp, q, reason, schedule, scheduleRow } from './setup.ts';

let t: TestApp;
const users: Record<string, string> = {};
const later = (hours: number) => new Date(Date.now() + hours * 3600_000);
const editor = { token: 'editor' };

beforeAll(async () => {
  t = await publishingApp();
  [{ id: users.editor }] = await q(t, "select id from svc_users where email = 'editor@example.com'");
});
afterAll(() => t.close());

describe('publish', () => {
  it('promotes the draft when its time comes, as the user who scheduled it; once', async () => {
    const version = await draft(t, 'editor', { title: 'Scheduled title' }, 'posts', '3');
    const id = await schedule(t, 'editor', { action: 'publish', version, scheduled_at: inHours(1) });
    const read = await t.req('GET', `/schedules/${id}`, undefined, editor);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      id, collection: 'posts', item: '3', action: 'publish', version, status: 'scheduled', scheduled_by: users.editor, ran_at: null, error: null,
    });
    // Not yet due.
    expect((await runDueSchedules(t.services, later(0.5))).done).not.toContain(id);
    expect((await q(t, 'select title, status from posts where id = 3'))[0]).toEqual({ title: 'Draft thoughts', status: 'draft' });

    const result = await runDueSchedules(t.services, later(2));
    expect(result.done).toContain(id);
    expect((await q(t, 'select title, status from posts where id = 3'))[0]).toEqual({ title: 'Scheduled title', status: 'published' });
    expect((await q(t, 'select status from svc_versions where id = $1', [version]))[0].status).toBe('approved');
    const row = await scheduleRow(t, id);
    expect(row).toMatchObject({ status: 'done', error: null });
    expect(row.ran_at).not.toBeNull();
    // The promotion's revision carries the version; its activity the scheduling user.
    const revisions = await q(t, `select a."user", a.action from svc_revisions r join svc_activity a on a.id = r.activity
      where r.version = $1 and r.collection = 'posts'`, [version]);
    expect(revisions).toEqual([{ user: users.editor, action: 'update' }]);
    // A second scan runs nothing again.
    expect((await runDueSchedules(t.services, later(3))).done).not.toContain(id);
    expect(await q(t, 'select count(*)::int as n from svc_revisions where version = $1', [version])).toEqual([{ n: 1 }]);
  });

  it('creates new content (a uuid item with no row yet) at its time', async () => {
    const item = randomUUID();
    const version = await draft(t, 'editor', { title: 'Born on schedule' }, 'articles', item);
    const id = await schedule(t, 'editor', { action: 'publish', version, collection: 'articles', item, scheduled_at: inHours(1) });
    expect((await runDueSchedules(t.services, later(2))).done).toContain(id);
    expect(await q(t, 'select title, status from articles where id = $1', [item])).toEqual([{ title: 'Born on schedule', status: 'published' }]);
  });
});

describe('unpublish', () => {
  it('sets status to draft when the collection has no archive field', async () => {
    await q(t, "update posts set status = 'published' where id = 1");
    const id = await schedule(t, 'editor', { action: 'unpublish', collection: 'posts', item: '1', scheduled_at: inHours(1) });
    expect((await runDueSchedules(t.services, later(2))).done).toContain(id);
    expect((await q(t, 'select status from posts where id = 1'))[0].status).toBe('draft');
    expect((await scheduleRow(t, id)).status).toBe('done');
  });

  it('sets the archive field to its archive value when the collection has one', async () => {
    await q(t, "update svc_collections set archive_field = 'status', archive_value = 'archived' where collection = 'posts'");
    await t.services.schema.invalidate();
    try {
      await q(t, "update posts set status = 'published' where id = 2");
      const id = await schedule(t, 'editor', { action: 'unpublish', collection: 'posts', item: '2', scheduled_at: inHours(1) });
      expect((await runDueSchedules(t.services, later(2))).done).toContain(id);
      expect((await q(t, 'select status from posts where id = 2'))[0].status).toBe('archived');
    } finally {
      await q(t, "update svc_collections set archive_field = null, archive_value = null where collection = 'posts'");
      await t.services.schema.invalidate();
    }
  });

  it('refuses a collection with neither an archive field nor a status field', async () => {
    const res = await t.req('POST', '/schedules', { action: 'unpublish', collection: 'tags', item: 'news', scheduled_at: inHours(1) });
    expect([res.status, code(res), reason(res)]).toEqual([400, 'INVALID_PAYLOAD', 'cannot_unpublish']);
    expect(res.body.errors[0].message).toMatch(/no archive field and no status field/);
  });
});

describe('refusals of POST /schedules', () => {
  let version: string;
  beforeAll(async () => { version = await draft(t, 'editor', { title: 'For refusals' }, 'posts', '4'); });

  const post = (body: Record<string, unknown>, token = 'editor') => t.req('POST', '/schedules', body, { token });
  const expectInvalid = (res: { status: number; body: any }, field: string | undefined, pattern: RegExp, why?: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(code(res)).toBe('INVALID_PAYLOAD');
    const e = res.body.errors.find((x: any) => x.extensions.field === field) ?? res.body.errors[0];
    expect(e.message).toMatch(pattern);
    if (why) expect(e.extensions.reason).toBe(why);
  };

  it('a time in the past, without a zone, or missing', async () => {
    expectInvalid(await post({ action: 'publish', version, scheduled_at: inMs(-60_000) }), 'scheduled_at', /in the past/, 'time_in_past');
    expectInvalid(await post({ action: 'publish', version, scheduled_at: '2999-01-01T10:00:00' }), 'scheduled_at', /time zone/);
    expectInvalid(await post({ action: 'publish', version, scheduled_at: 'tomorrow' }), 'scheduled_at', /ISO 8601/);
    expectInvalid(await post({ action: 'publish', version }), 'scheduled_at', /required/);
    expectInvalid(await post({ action: 'publish', version, scheduled_at: '2999-01-01T10:00:00Z' }), 'scheduled_at', /ten years/);
  });

  it('a bad action, an unknown field, a version with unpublish', async () => {
    expectInvalid(await post({ action: 'promote', version, scheduled_at: inHours(1) }), 'action', /"publish".*"unpublish"/);
    expectInvalid(await post({ action: 'publish', version, scheduled_at: inHours(1), note: 'x' }), 'note', /not allowed/);
    expectInvalid(await post({ action: 'unpublish', collection: 'posts', item: '4', version, scheduled_at: inHours(1) }), 'version', /takes no "version"/);
    expectInvalid(await post({ action: 'publish', scheduled_at: inHours(1) }), 'version', /required/);
    expectInvalid(await post({ action: 'publish', version: 'not-a-uuid', scheduled_at: inHours(1) }), 'version', /uuid/);
  });

  it('a version of another item, an approved version, an empty one, one already scheduled', async () => {
    expectInvalid(await post({ action: 'publish', version, collection: 'posts', item: '5', scheduled_at: inHours(1) }), 'version', /another item/, 'other_item');
    expectInvalid(await post({ action: 'publish', version, collection: 'articles', scheduled_at: inHours(1) }), 'version', /another item/, 'other_item');

    const promoted = await draft(t, 'editor', { views: 7 }, 'posts', '4');
    expect((await t.req('POST', `/versions/${promoted}/promote`, undefined, editor)).status).toBe(204);
    expectInvalid(await post({ action: 'publish', version: promoted, scheduled_at: inHours(1) }), 'version', /already promoted/, 'invalid_status');

    const empty = await draft(t, 'editor', {}, 'posts', '4');
    expectInvalid(await post({ action: 'publish', version: empty, scheduled_at: inHours(1) }), 'version', /no changes/, 'empty_delta');

    const first = await schedule(t, 'editor', { action: 'publish', version, scheduled_at: inHours(1) });
    const again = await post({ action: 'publish', version, scheduled_at: inHours(2) });
    expectInvalid(again, 'version', /already scheduled to publish/, 'already_scheduled');
    expect(again.body.errors[0].extensions.schedule).toBe(first);
    expect((await t.req('POST', `/schedules/${first}/cancel`, undefined, editor)).status).toBe(200);
  });

  it('a version that does not exist, an unknown collection, an item that does not exist', async () => {
    const missing = await post({ action: 'publish', version: randomUUID(), scheduled_at: inHours(1) });
    expect([missing.status, code(missing)]).toEqual([403, 'FORBIDDEN']);
    const unknown = await post({ action: 'unpublish', collection: 'nope', item: '1', scheduled_at: inHours(1) });
    expect([unknown.status, code(unknown)]).toEqual([404, 'COLLECTION_NOT_FOUND']);
    const system = await post({ action: 'unpublish', collection: 'svc_users', item: users.editor, scheduled_at: inHours(1) });
    expect(system.status).toBe(403);
    const systemAdmin = await t.req('POST', '/schedules', { action: 'unpublish', collection: 'svc_users', item: users.editor, scheduled_at: inHours(1) });
    expect([systemAdmin.status, code(systemAdmin)]).toEqual([404, 'COLLECTION_NOT_FOUND']);
    const noItem = await post({ action: 'unpublish', collection: 'posts', item: '9999', scheduled_at: inHours(1) });
    expect([noItem.status, code(noItem)]).toEqual([403, 'FORBIDDEN']);
    const badKey = await post({ action: 'unpublish', collection: 'posts', item: 'abc', scheduled_at: inHours(1) });
    expect([badKey.status, code(badKey)]).toEqual([400, 'INVALID_PAYLOAD']);
  });

  it('nothing is written by a refused request', async () => {
    const before = await q(t, 'select count(*)::int as n from svc_schedules');
    await post({ action: 'publish', version, collection: 'posts', item: '5', scheduled_at: inHours(1) });
    expect(await q(t, 'select count(*)::int as n from svc_schedules')).toEqual(before);
  });
});

describe('reschedule and cancel', () => {
  it('PATCH changes the time only, while scheduled; cancel stops it; neither after it ran', async () => {
    const version = await draft(t, 'editor', { title: 'Moved around' }, 'posts', '5');
    const id = await schedule(t, 'editor', { action: 'publish', version, scheduled_at: inHours(1) });
    const at = new Date(Date.now() + 5 * 3600_000);
    const moved = await t.req('PATCH', `/schedules/${id}`, { scheduled_at: at.toISOString() }, editor);
    expect([moved.status, moved.body.data]).toEqual([200, id]);
    expect(new Date((await scheduleRow(t, id)).scheduled_at).getTime()).toBe(at.getTime());
    // The old time passes: nothing runs.
    expect((await runDueSchedules(t.services, later(2))).done).not.toContain(id);

    const other = await t.req('PATCH', `/schedules/${id}`, { scheduled_at: inHours(3), action: 'unpublish' }, editor);
    expect([other.status, other.body.errors[0].extensions.field]).toEqual([400, 'action']);
    expect(other.body.errors[0].message).toMatch(/cancel this schedule and create another/);
    const past = await t.req('PATCH', `/schedules/${id}`, { scheduled_at: inMs(-1000) }, editor);
    expect([past.status, past.body.errors[0].extensions.reason]).toEqual([400, 'time_in_past']);

    const cancel = await t.req('POST', `/schedules/${id}/cancel`, undefined, editor);
    expect([cancel.status, cancel.body.data]).toEqual([200, { id, status: 'cancelled' }]);
    expect((await runDueSchedules(t.services, later(6))).done).not.toContain(id);
    expect((await q(t, 'select status from svc_versions where id = $1', [version]))[0].status).toBe('draft');
    for (const res of [await t.req('POST', `/schedules/${id}/cancel`, undefined, editor), await t.req('PATCH', `/schedules/${id}`, { scheduled_at: inHours(1) }, editor)]) {
      expect([res.status, reason(res)]).toEqual([400, 'invalid_status']);
      expect(res.body.errors[0].message).toMatch(/this one is cancelled/);
    }
    // The version can be scheduled again once the old schedule is cancelled.
    await schedule(t, 'editor', { action: 'publish', version, scheduled_at: inHours(1) });
  });

  it('a missing schedule answers 403, as a missing version does', async () => {
    for (const res of [
      await t.req('GET', `/schedules/${randomUUID()}`, undefined, editor),
      await t.req('PATCH', `/schedules/${randomUUID()}`, { scheduled_at: inHours(1) }, editor),
      await t.req('POST', `/schedules/${randomUUID()}/cancel`, undefined, editor),
      await t.req('GET', '/schedules/not-a-uuid', undefined, editor),
    ]) expect([res.status, code(res)]).toEqual([403, 'FORBIDDEN']);
  });

  it('changes are recorded in activity under the user who made them', async () => {
    const id = await schedule(t, 'editor', { action: 'unpublish', collection: 'posts', item: '4', scheduled_at: inHours(1) });
    await t.req('PATCH', `/schedules/${id}`, { scheduled_at: inHours(2) }, editor);
    await t.req('POST', `/schedules/${id}/cancel`, undefined);
    const activity = await q(t, "select action, \"user\" from svc_activity where collection = 'svc_schedules' and item = $1 order by id", [id]);
    const [{ id: admin }] = await q(t, "select id from svc_users where token = 'static-admin-token'");
    expect(activity).toEqual([{ action: 'create', user: users.editor }, { action: 'update', user: users.editor }, { action: 'update', user: admin }]);
  });
});

describe('GET /schedules', () => {
  it('the standard query: filter, sort, limit, offset, meta', async () => {
    const a = await schedule(t, 'editor', { action: 'unpublish', collection: 'articles', item: 'aaaaaaaa-0000-4000-8000-000000000001', scheduled_at: inHours(30) });
    const b = await schedule(t, 'editor', { action: 'unpublish', collection: 'articles', item: 'aaaaaaaa-0000-4000-8000-000000000001', scheduled_at: inHours(20) });
    const res = await t.req('GET', '/schedules?filter[collection][_eq]=articles&filter[status][_eq]=scheduled&sort=scheduled_at&fields=id,action&meta=filter_count&limit=1', undefined, editor);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [{ id: b, action: 'unpublish' }], meta: { filter_count: 2 } });
    const next = await t.req('GET', '/schedules?filter[collection][_eq]=articles&filter[status][_eq]=scheduled&sort=scheduled_at&fields=id&limit=1&offset=1', undefined, editor);
    expect(next.body.data).toEqual([{ id: a }]);
  });

  it('a non-admin reads direct fields only', async () => {
    for (const path of ['/schedules?fields=version.name', '/schedules?filter[scheduled_by][email][_eq]=x', '/schedules?sort=version.name']) {
      const res = await t.req('GET', path, undefined, editor);
      expect([res.status, code(res)], path).toEqual([403, 'FORBIDDEN']);
    }
    // An admin may follow the relations.
    const admin = await t.req('GET', '/schedules?fields=id,scheduled_by.email&limit=1&filter[action][_eq]=publish');
    expect(admin.status).toBe(200);
    expect(admin.body.data[0].scheduled_by).toEqual({ email: 'editor@example.com' });
  });
});

describe('runs the rules refuse', () => {
  it('the user lost the right to promote: failed, with the reason; the item is unchanged', async () => {
    const weak = await principal(t, 'weak-editor', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:create']);
    const version = await draft(t, 'weak-editor', { title: 'Never published' }, 'posts', '5');
    const id = await schedule(t, 'weak-editor', { action: 'publish', version, scheduled_at: inHours(1) });
    await q(t, "delete from svc_app_permissions where policy = $1 and action = 'create'", [weak.policy]);
    await t.services.schema.invalidate();
    const result = await runDueSchedules(t.services, later(2));
    expect(result.failed).toContainEqual({ id, error: 'The person who scheduled this may no longer publish this version.' });
    expect(await scheduleRow(t, id)).toMatchObject({ status: 'failed', error: 'The person who scheduled this may no longer publish this version.' });
    expect((await q(t, 'select title from posts where id = 5'))[0].title).not.toBe('Never published');
    expect((await q(t, 'select status from svc_versions where id = $1', [version]))[0].status).toBe('draft');
  });

  it('the user lost the item permission: failed with the reason', async () => {
    const p = await principal(t, 'item-editor', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:create']);
    const id = await schedule(t, 'item-editor', { action: 'unpublish', collection: 'posts', item: '4', scheduled_at: inHours(1) });
    await q(t, "delete from svc_permissions where policy = $1 and collection = 'posts' and action = 'update'", [p.policy]);
    await t.services.schema.invalidate();
    await runDueSchedules(t.services, later(2));
    expect(await scheduleRow(t, id)).toMatchObject({ status: 'failed', error: 'The person who scheduled this may no longer change this item.' });
  });

  it('the user was suspended: failed', async () => {
    const p = await principal(t, 'leaver', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:create']);
    const id = await schedule(t, 'leaver', { action: 'unpublish', collection: 'posts', item: '4', scheduled_at: inHours(1) });
    await q(t, "update svc_users set status = 'suspended' where id = $1", [p.user]);
    await t.services.schema.invalidate();
    await runDueSchedules(t.services, later(2));
    expect(await scheduleRow(t, id)).toMatchObject({ status: 'failed', error: 'The person who scheduled this is no longer an active user (suspended).' });
  });

  it('the draft was deleted, or promoted by hand, before its time', async () => {
    const deleted = await draft(t, 'editor', { title: 'Deleted draft' }, 'posts', '5');
    const d = await schedule(t, 'editor', { action: 'publish', version: deleted, scheduled_at: inHours(1) });
    expect((await t.req('DELETE', `/versions/${deleted}`)).status).toBe(204);
    const promoted = await draft(t, 'editor', { title: 'Promoted by hand' }, 'posts', '5');
    const p = await schedule(t, 'editor', { action: 'publish', version: promoted, scheduled_at: inHours(1) });
    expect((await t.req('POST', `/versions/${promoted}/promote`, undefined, editor)).status).toBe(204);
    await runDueSchedules(t.services, later(2));
    expect(await scheduleRow(t, d)).toMatchObject({ status: 'failed', error: 'The version was deleted before its time came.' });
    expect(await scheduleRow(t, p)).toMatchObject({ status: 'failed', error: 'The version had already been promoted (approved) before its time came.' });
    expect(await q(t, 'select count(*)::int as n from svc_revisions where version = $1', [promoted])).toEqual([{ n: 1 }]);
  });

  it('the item was deleted before its publishing: not brought back', async () => {
    const [{ id: item }] = await q(t, "insert into posts (title, status) values ('Gone soon', 'draft') returning id");
    const version = await draft(t, 'editor', { title: 'Back from the dead' }, 'posts', String(item));
    const id = await schedule(t, 'editor', { action: 'publish', version, scheduled_at: inHours(1) });
    await q(t, 'delete from posts where id = $1', [item]);
    await runDueSchedules(t.services, later(2));
    expect(await scheduleRow(t, id)).toMatchObject({ status: 'failed', error: 'The item was deleted before its time came.' });
    expect(await q(t, 'select 1 from posts where id = $1', [item])).toEqual([]);
    // Scheduling it now is refused outright.
    const again = await t.req('POST', '/schedules', { action: 'publish', version, scheduled_at: inHours(1) }, editor);
    expect([again.status, reason(again)]).toEqual([400, 'item_deleted']);
  });

  it('the item was deleted before its unpublishing', async () => {
    const [{ id: item }] = await q(t, "insert into posts (title, status) values ('Short-lived', 'published') returning id");
    const id = await schedule(t, 'editor', { action: 'unpublish', collection: 'posts', item: String(item), scheduled_at: inHours(1) });
    await q(t, 'delete from posts where id = $1', [item]);
    await runDueSchedules(t.services, later(2));
    expect(await scheduleRow(t, id)).toMatchObject({ status: 'failed', error: 'The item no longer exists.' });
  });

  it('a write the rules refuse at run time (a validation rule added since) fails with its message', async () => {
    const p = await principal(t, 'validated', [{ collection: 'posts', action: 'read' }, { collection: 'posts', action: 'update' }], ['versioning:view']);
    const id = await schedule(t, 'validated', { action: 'unpublish', collection: 'posts', item: '4', scheduled_at: inHours(1) });
    await q(t, `update svc_permissions set validation = '{"status":{"_neq":"draft"}}' where policy = $1 and action = 'update'`, [p.policy]);
    await t.services.schema.invalidate();
    // Creating it now is refused the same way.
    const res = await t.req('POST', '/schedules', { action: 'unpublish', collection: 'posts', item: '4', scheduled_at: inHours(1) }, { token: 'validated' });
    expect(res.status).toBe(400);
    await runDueSchedules(t.services, later(2));
    const row = await scheduleRow(t, id);
    expect(row.status).toBe('failed');
    expect(row.error).toBe(res.body.errors.map((e: any) => e.message.replace(/^Invalid payload\.\s*/, '')).join(' '));
  });
});

describe('the timer', () => {
  it('runs a schedule when it falls due, without waiting for the interval', async () => {
    const version = await draft(t, 'editor', { title: 'On the dot' }, 'posts', '1');
    const id = await schedule(t, 'editor', { action: 'publish', version, scheduled_at: inMs(1500) });
    // A long interval: only the wake-up at the next due time can run it in time.
    const stop = startPublishSchedules(t.services, 60_000);
    try {
      await expect.poll(async () => (await scheduleRow(t, id)).status, { timeout: 15_000, interval: 100 }).toBe('done');
      const row = await scheduleRow(t, id);
      expect(new Date(row.ran_at!).getTime()).toBeGreaterThanOrEqual(new Date(row.scheduled_at).getTime());
    } finally {
      await stop();
    }
    expect((await q(t, 'select title from posts where id = 1'))[0].title).toBe('On the dot');
  });
});
