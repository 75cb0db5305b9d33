/** Approval modes (any, all, majority), tasks, the instance read, and the refusals of reviewers' actions: all
 * through the HTTP app, versions created and submitted through /versions. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  activeStep, buildWorkflow, code, doc, draft, instanceOf, q, role, snapshot, step, submit, user, versionStatus, workflowApp,
  type App, type Built,
} from './setup.ts';

let t: App;
const users: Record<string, string> = {};
let reviewers: string;
let panel: string;

beforeAll(async () => {
  t = await workflowApp();
  const editors = await role(t, 'editors', ['versioning:create', 'workflow:start']);
  users.editor = await user(t, editors.role, 'editor');
  reviewers = (await role(t, 'reviewers', ['workflow:participate'])).role;
  for (const r of ['r1', 'r2', 'r3']) users[r] = await user(t, reviewers, r);
  panel = (await role(t, 'panel', ['workflow:participate'])).role;
  for (const p of ['p1', 'p2', 'p3', 'p4']) users[p] = await user(t, panel, p);
  const viewers = await role(t, 'viewers', ['workflow:view']);
  users.viewer = await user(t, viewers.role, 'viewer');
  const others = await role(t, 'others', ['workflow:participate']);
  users.other = await user(t, others.role, 'other');
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => { await q(t, 'update svc_workflows set active = false'); });

function oneApproval(mode: string, roleId = reviewers): Promise<Built> {
  return buildWorkflow(t, {
    name: `review-${mode}`,
    steps: [
      { key: 'start', type: 'start' },
      { key: 'review', type: 'approval', assign_type: 'role', assign_value: roleId, approval_mode: mode },
      { key: 'done', type: 'end' },
    ],
    transitions: [['start', 'review', 'always'], ['review', 'done', 'approve']],
  });
}

async function started(delta: Record<string, unknown>) {
  const version = await draft(t, 'editor', delta);
  const res = await submit(t, 'editor', version);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data).toEqual({ id: version, status: 'pending' });
  const instance = await instanceOf(t, version);
  expect(instance).toMatchObject({ status: 'running', started_by: users.editor, collection: 'docs' });
  const active = await activeStep(t, instance.id);
  return { version, instance, active };
}

const approve = (instance: string, stepId: string, token: string, comment?: string) =>
  t.req('POST', step(instance, stepId, 'approve'), comment ? { comment } : {}, { token });

describe('approval modes', () => {
  it('any: one approval completes the instance and promotes the version, activity with user null', async () => {
    await oneApproval('any');
    const { version, instance, active } = await started({ title: 'Any title' });
    expect([...active.assignees].sort()).toEqual([users.r1, users.r2, users.r3].sort());
    const before = await q(t, "select count(*)::int as n from svc_activity where collection = 'docs' and action = 'update'");
    const res = await approve(instance.id, active.id, 'r2', 'Looks good');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ id: active.id, status: 'approved', instance_status: 'approved' });
    expect((await instanceOf(t, version)).status).toBe('approved');
    expect(await versionStatus(t, version)).toBe('approved');
    expect((await doc(t)).title).toBe('Any title');
    const activity = await q(t, "select * from svc_activity where collection = 'docs' and action = 'update' order by id desc");
    expect(activity.length).toBe(before[0].n + 1);
    expect(activity[0].user).toBeNull();
    const [revision] = await q(t, 'select version from svc_revisions where activity = $1', [activity[0].id]);
    expect(revision.version).toBe(version);
    const [action] = await q(t, "select * from svc_workflow_actions where instance_id = $1 and kind = 'approve'", [instance.id]);
    expect(action).toMatchObject({ user_id: users.r2, comment: 'Looks good' });
    const [is] = await q(t, 'select approvals from svc_workflow_instance_steps where id = $1', [active.id]);
    expect(is.approvals).toEqual([{ user: users.r2, timestamp: expect.any(String) }]);
  });

  it('all: every assignee must approve', async () => {
    await oneApproval('all');
    const { version, instance, active } = await started({ title: 'All title' });
    for (const r of ['r1', 'r3']) {
      const res = await approve(instance.id, active.id, r);
      expect(res.body.data).toMatchObject({ status: 'active', instance_status: 'running' });
    }
    expect(await versionStatus(t, version)).toBe('pending');
    expect((await doc(t)).title).not.toBe('All title');
    const last = await approve(instance.id, active.id, 'r2');
    expect(last.body.data).toMatchObject({ status: 'approved', instance_status: 'approved' });
    expect((await doc(t)).title).toBe('All title');
  });

  it('majority: more than half of the assignees (2 of 3)', async () => {
    await oneApproval('majority');
    const { version, instance, active } = await started({ title: 'Majority title' });
    expect((await approve(instance.id, active.id, 'r1')).body.data.instance_status).toBe('running');
    expect(await versionStatus(t, version)).toBe('pending');
    expect((await approve(instance.id, active.id, 'r3')).body.data.instance_status).toBe('approved');
    expect(await versionStatus(t, version)).toBe('approved');
    expect((await doc(t)).title).toBe('Majority title');
  });

  it('majority is strict: 2 of 4 is not enough, 3 of 4 is', async () => {
    await oneApproval('majority', panel);
    const { version, instance, active } = await started({ title: 'Panel title' });
    expect(active.assignees).toHaveLength(4);
    for (const p of ['p1', 'p2']) expect((await approve(instance.id, active.id, p)).body.data.instance_status).toBe('running');
    expect(await versionStatus(t, version)).toBe('pending');
    expect((await approve(instance.id, active.id, 'p4')).body.data.instance_status).toBe('approved');
    expect((await doc(t)).title).toBe('Panel title');
  });

  it('concurrent approvals of an "any" step: one completes it, the other is refused, one promotion', async () => {
    await oneApproval('any');
    const { instance, active } = await started({ title: 'Race title' });
    const results = await Promise.all(['r1', 'r2', 'r3'].map((r) => approve(instance.id, active.id, r)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
    const actions = await q(t, "select * from svc_workflow_actions where instance_id = $1 and kind = 'approve'", [instance.id]);
    expect(actions).toHaveLength(1);
    const revisions = await q(t, "select count(*)::int as n from svc_revisions r join svc_activity a on a.id = r.activity where r.version = (select version_id::uuid from svc_workflow_instances where id = $1)", [instance.id]);
    expect(revisions[0].n).toBe(1);
  });
});

describe('tasks and the instance read', () => {
  it('lists the caller\'s tasks with the SPEC fields, counts them, and lists all tasks for admins', async () => {
    const wf = await oneApproval('any');
    const { version, instance, active } = await started({ title: 'Task title' });
    const res = await t.req('GET', '/workflow-tasks', undefined, { token: 'r1' });
    expect(res.status).toBe(200);
    const mine = res.body.data.filter((x: any) => x.instance_id === instance.id);
    expect(mine).toHaveLength(1);
    expect(Object.keys(mine[0]).sort()).toEqual(['actions_available', 'activated_at', 'collection', 'id', 'instance_id', 'item_id',
      'status', 'step_id', 'step_name', 'timeout_at', 'version_id', 'workflow_name'].sort());
    expect(mine[0]).toMatchObject({
      id: active.id, step_id: wf.steps.review, workflow_name: 'review-any', step_name: 'review', collection: 'docs',
      version_id: version, status: 'active', timeout_at: null, actions_available: ['approve', 'reject', 'delegate', 'comment'],
    });
    expect(mine[0].activated_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    expect(res.body.meta.total_count).toBe(res.body.data.length);
    const count = await t.req('GET', '/workflow-tasks/count', undefined, { token: 'r1' });
    expect(count.body).toEqual({ data: { count: res.body.data.length } });
    expect((await t.req('GET', '/workflow-tasks', undefined, { token: 'other' })).body.data).toEqual([]);
    expect((await t.req('GET', '/workflow-tasks', undefined, { token: 'editor' })).status).toBe(403);
    expect((await t.req('GET', '/workflow-tasks/all', undefined, { token: 'r1' })).status).toBe(403);
    const all = await t.req('GET', '/workflow-tasks/all');
    expect(all.body.data.find((x: any) => x.id === active.id).assignees.sort()).toEqual([users.r1, users.r2, users.r3].sort());
    expect((await t.req('GET', '/workflow-tasks', undefined, { token: null })).status).toBe(401);
  });

  it('pages the task lists on request (limit, page, offset), counting them all; bad paging is 400', async () => {
    await oneApproval('any');
    for (const title of ['Paged one', 'Paged two', 'Paged three']) await started({ title });
    const every = (await t.req('GET', '/workflow-tasks', undefined, { token: 'r1' })).body;
    expect(every.data.length).toBeGreaterThanOrEqual(3);
    const first = (await t.req('GET', '/workflow-tasks?limit=2', undefined, { token: 'r1' })).body;
    const second = (await t.req('GET', '/workflow-tasks?limit=2&page=2', undefined, { token: 'r1' })).body;
    expect(first.data.map((x: any) => x.id)).toEqual(every.data.slice(0, 2).map((x: any) => x.id));
    expect(second.data.map((x: any) => x.id)).toEqual(every.data.slice(2, 4).map((x: any) => x.id));
    expect(first.meta.total_count).toBe(every.data.length);
    expect((await t.req('GET', '/workflow-tasks?limit=1&offset=1', undefined, { token: 'r1' })).body.data[0].id).toBe(every.data[1].id);
    const all = (await t.req('GET', '/workflow-tasks/all?limit=1')).body;
    expect(all.data).toHaveLength(1);
    expect(all.meta.total_count).toBeGreaterThanOrEqual(every.data.length);
    for (const bad of ['limit=x', 'limit=-2', 'page=0', 'offset=-1']) {
      expect((await t.req('GET', `/workflow-tasks?${bad}`, undefined, { token: 'r1' })).status, bad).toBe(400);
    }
  });

  it('GET /workflow-instances/{id}: workflow:view, participants and admins; others 403', async () => {
    const wf = await oneApproval('any');
    const { instance } = await started({ title: 'Read title' });
    for (const token of ['viewer', 'r1', 'editor', 'static-admin-token']) {
      const res = await t.req('GET', `/workflow-instances/${instance.id}`, undefined, { token });
      expect(res.status, token).toBe(200);
      expect(res.body.data.id).toBe(instance.id);
      expect(res.body.data.workflow_name).toBe('review-any');
      expect(res.body.data.workflow_steps.map((s: any) => s.id).sort()).toEqual(Object.values(wf.steps).sort());
      expect(res.body.data.instance_steps.map((s: any) => s.status)).toEqual(['approved', 'active']);
      expect(res.body.data.actions).toEqual([]);
    }
    expect((await t.req('GET', `/workflow-instances/${instance.id}`, undefined, { token: 'other' })).status).toBe(403);
    expect((await t.req('GET', `/workflow-instances/${instance.id}`, undefined, { token: null })).status).toBe(401);
    expect((await t.req('GET', '/workflow-instances/not-a-uuid')).status).toBe(404);
  });
});

describe('refusals leave every row as it was', () => {
  it('a non-assignee (even with workflow:participate, even an admin) cannot approve: 403', async () => {
    await oneApproval('any');
    const { instance, active } = await started({ title: 'Refused title' });
    const before = await snapshot(t);
    for (const token of ['other', 'editor', 'viewer', 'static-admin-token']) {
      const res = await approve(instance.id, active.id, token);
      expect(res.status, token).toBe(403);
      expect(code(res)).toBe('FORBIDDEN');
    }
    expect(await snapshot(t)).toBe(before);
  });

  it('a reviewer without workflow:participate cannot act even when assigned', async () => {
    const { role: lazy } = await role(t, 'lazy', []);
    const lazyUser = await user(t, lazy, 'lazy');
    await buildWorkflow(t, {
      name: 'lazy',
      steps: [{ key: 'start', type: 'start' }, { key: 'review', type: 'approval', assign_type: 'user', assign_value: lazyUser }, { key: 'done', type: 'end' }],
      transitions: [['start', 'review', 'always'], ['review', 'done', 'approve']],
    });
    const { instance, active } = await started({ title: 'Lazy title' });
    const before = await snapshot(t);
    expect((await approve(instance.id, active.id, 'lazy')).status).toBe(403);
    expect(await snapshot(t)).toBe(before);
  });

  it('a second approval by the same user on the same step: 400, nothing changes', async () => {
    await oneApproval('all');
    const { instance, active } = await started({ title: 'Twice title' });
    expect((await approve(instance.id, active.id, 'r1')).status).toBe(200);
    const before = await snapshot(t);
    const again = await approve(instance.id, active.id, 'r1');
    expect(again.status).toBe(400);
    expect(code(again)).toBe('INVALID_PAYLOAD');
    expect(await snapshot(t)).toBe(before);
  });

  it('actions on a step that is not active: 400, nothing changes', async () => {
    await oneApproval('any');
    const { instance, active } = await started({ title: 'Done title' });
    expect((await approve(instance.id, active.id, 'r1')).status).toBe(200);
    const before = await snapshot(t);
    for (const [action, body] of [['approve', {}], ['reject', { comment: 'no' }], ['delegate', { to_user: users.r3 }], ['comment', { comment: 'late' }]] as const) {
      const res = await t.req('POST', step(instance.id, active.id, action), body, { token: 'r2' });
      expect(res.status, action).toBe(400);
    }
    expect(await snapshot(t)).toBe(before);
  });

  it('unknown instance or step: 404; bad body: 400', async () => {
    await oneApproval('any');
    const { instance, active } = await started({ title: 'Bad title' });
    expect((await approve('00000000-0000-4000-8000-000000000000', active.id, 'r1')).status).toBe(404);
    expect((await approve(instance.id, '00000000-0000-4000-8000-000000000000', 'r1')).status).toBe(404);
    const before = await snapshot(t);
    expect((await t.req('POST', step(instance.id, active.id, 'approve'), { comment: 5 }, { token: 'r1' })).status).toBe(400);
    expect((await t.req('POST', step(instance.id, active.id, 'approve'), { extra: 1 }, { token: 'r1' })).status).toBe(400);
    expect((await t.req('POST', step(instance.id, active.id, 'approve'), '[1]', { token: 'r1' })).status).toBe(400);
    expect(await snapshot(t)).toBe(before);
  });
});
