/** Reject (comment required, version rejected, item unchanged, reject transition or end), resubmission starts a
 * new instance, delegate, comment, and the admin cancel. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  activeStep, buildWorkflow, code, doc, draft, instanceOf, q, role, snapshot, step, submit, user, versionStatus, workflowApp,
  type App, type Built,
} from './setup.ts';

let t: App;
const users: Record<string, string> = {};

beforeAll(async () => {
  t = await workflowApp();
  const editors = await role(t, 'editors', ['versioning:create', 'workflow:start']);
  users.editor = await user(t, editors.role, 'editor');
  const reviewers = await role(t, 'reviewers', ['workflow:participate']);
  for (const r of ['r1', 'r2', 'lead']) users[r] = await user(t, reviewers.role, r);
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => { await q(t, 'update svc_workflows set active = false'); });

/** start -> review (r1) -> done; with `rework`, a reject goes to a second review by the lead. */
function reviewFlow(opts: { rework?: boolean; mode?: string; assignee?: string } = {}): Promise<Built> {
  return buildWorkflow(t, {
    name: `flow-${Math.random()}`,
    steps: [
      { key: 'start', type: 'start' },
      { key: 'review', type: 'approval', assign_type: 'user', assign_value: opts.assignee ?? users.r1, approval_mode: opts.mode ?? 'any' },
      ...(opts.rework ? [{ key: 'appeal', type: 'approval', assign_type: 'user', assign_value: users.lead }] : []),
      { key: 'done', type: 'end' },
    ],
    transitions: [
      ['start', 'review', 'always'], ['review', 'done', 'approve'],
      ...(opts.rework ? [['review', 'appeal', 'reject'], ['appeal', 'done', 'approve']] as [string, string, string][] : []),
    ],
  });
}

async function started(delta: Record<string, unknown>) {
  const version = await draft(t, 'editor', delta);
  const res = await submit(t, 'editor', version);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const instance = await instanceOf(t, version);
  return { version, instance, active: await activeStep(t, instance.id) };
}

describe('reject', () => {
  it('needs a comment: 400 and nothing changes', async () => {
    await reviewFlow();
    const { instance, active } = await started({ title: 'Rejected title' });
    const before = await snapshot(t);
    for (const body of [undefined, {}, { comment: '' }, { comment: '   ' }, { comment: null }]) {
      const res = await t.req('POST', step(instance.id, active.id, 'reject'), body, { token: 'r1' });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(code(res)).toBe('INVALID_PAYLOAD');
    }
    expect(await snapshot(t)).toBe(before);
  });

  it('without a reject transition: version rejected, item unchanged, instance rejected; resubmission starts a new instance', async () => {
    await reviewFlow();
    const original = await doc(t);
    const { version, instance, active } = await started({ title: 'Rejected title' });
    const res = await t.req('POST', step(instance.id, active.id, 'reject'), { comment: 'Not yet' }, { token: 'r1' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'rejected', instance_status: 'rejected' });
    expect(await versionStatus(t, version)).toBe('rejected');
    expect(await doc(t)).toEqual(original);
    const [action] = await q(t, "select * from svc_workflow_actions where instance_id = $1 and kind = 'reject'", [instance.id]);
    expect(action).toMatchObject({ user_id: users.r1, comment: 'Not yet', instance_step_id: active.id });

    const again = await submit(t, 'editor', version);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const second = await instanceOf(t, version);
    expect(second.id).not.toBe(instance.id);
    expect(second.status).toBe('running');
    expect((await q(t, 'select * from svc_workflow_instances where version_id = $1', [version])).length).toBe(2);
    const next = await activeStep(t, second.id);
    const approved = await t.req('POST', step(second.id, next.id, 'approve'), {}, { token: 'r1' });
    expect(approved.body.data.instance_status).toBe('approved');
    expect((await doc(t)).title).toBe('Rejected title');
  });

  it('with a reject transition: the instance follows it; the version is rejected meanwhile', async () => {
    const wf = await reviewFlow({ rework: true });
    const { version, instance, active } = await started({ title: 'Appealed title' });
    const res = await t.req('POST', step(instance.id, active.id, 'reject'), { comment: 'Ask the lead' }, { token: 'r1' });
    expect(res.body.data).toMatchObject({ status: 'rejected', instance_status: 'running' });
    expect(await versionStatus(t, version)).toBe('rejected');
    const appeal = await activeStep(t, instance.id);
    expect(appeal.step_id).toBe(wf.steps.appeal);
    expect(appeal.assignees).toEqual([users.lead]);
    expect((await instanceOf(t, version)).current_step_id).toBe(wf.steps.appeal);
  });
});

describe('delegate and comment', () => {
  it('delegate moves the task to to_user: assignees updated, action row, notification; the delegate can approve', async () => {
    await reviewFlow();
    const { instance, active } = await started({ title: 'Delegated title' });
    const count = async (token: string) => (await t.req('GET', '/workflow-tasks/count', undefined, { token })).body.data.count as number;
    const [r1Before, r2Before] = [await count('r1'), await count('r2')];
    const res = await t.req('POST', step(instance.id, active.id, 'delegate'), { to_user: users.r2, comment: 'You know this' }, { token: 'r1' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = await activeStep(t, instance.id);
    expect(after.id).toBe(active.id);
    expect(after.assignees).toEqual([users.r2]);
    const [action] = await q(t, "select * from svc_workflow_actions where instance_id = $1 and kind = 'delegate'", [instance.id]);
    expect(action).toMatchObject({ user_id: users.r1, to_user: users.r2, comment: 'You know this' });
    const [note] = await q(t, 'select * from svc_notifications where recipient = $1', [users.r2]);
    expect(note).toMatchObject({ sender: users.r1, collection: 'docs' });
    expect(await count('r1')).toBe(r1Before - 1);
    expect(await count('r2')).toBe(r2Before + 1);
    expect((await t.req('POST', step(instance.id, active.id, 'approve'), {}, { token: 'r1' })).status).toBe(403);
    expect((await t.req('POST', step(instance.id, active.id, 'approve'), {}, { token: 'r2' })).body.data.instance_status).toBe('approved');
  });

  it('delegate refuses a missing, unknown or own to_user, one without workflow:participate, and non-assignees; nothing changes', async () => {
    await reviewFlow();
    const { instance, active } = await started({ title: 'Bad delegate' });
    const before = await snapshot(t);
    const cases: [string, unknown, number][] = [
      ['r1', {}, 400],
      ['r1', { to_user: 'nobody' }, 400],
      ['r1', { to_user: '00000000-0000-4000-8000-000000000000' }, 400],
      ['r1', { to_user: users.r1 }, 400],
      ['r1', { to_user: users.editor }, 400],
      ['r2', { to_user: users.r2 }, 403],
    ];
    for (const [token, body, status] of cases) {
      expect((await t.req('POST', step(instance.id, active.id, 'delegate'), body, { token })).status, JSON.stringify(body)).toBe(status);
    }
    expect(await snapshot(t)).toBe(before);
  });

  it('comment: an action row by an assignee or the starter; empty comments and strangers refused', async () => {
    await reviewFlow();
    const { instance, active } = await started({ title: 'Commented' });
    expect((await t.req('POST', step(instance.id, active.id, 'comment'), { comment: 'Question?' }, { token: 'r1' })).status).toBe(200);
    expect((await t.req('POST', step(instance.id, active.id, 'comment'), { comment: 'Answer.' }, { token: 'editor' })).status).toBe(200);
    const before = await snapshot(t);
    expect((await t.req('POST', step(instance.id, active.id, 'comment'), {}, { token: 'r1' })).status).toBe(400);
    expect((await t.req('POST', step(instance.id, active.id, 'comment'), { comment: 'Hi' }, { token: 'r2' })).status).toBe(403);
    expect(await snapshot(t)).toBe(before);
    const rows = await q(t, "select user_id, comment from svc_workflow_actions where instance_id = $1 and kind = 'comment' order by created_at", [instance.id]);
    expect(rows).toEqual([{ user_id: users.r1, comment: 'Question?' }, { user_id: users.editor, comment: 'Answer.' }]);
    expect((await activeStep(t, instance.id)).id).toBe(active.id);
  });
});

describe('admin cancel', () => {
  it('cancels a running instance: version back to draft, steps cancelled; the creator may edit and resubmit', async () => {
    await reviewFlow();
    const { version, instance, active } = await started({ title: 'Cancelled title' });
    expect((await t.req('POST', `/workflow-instances/${instance.id}/cancel`, { comment: 'x' }, { token: 'r1' })).status).toBe(403);
    const res = await t.req('POST', `/workflow-instances/${instance.id}/cancel`, { comment: 'Wrong version' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ id: instance.id, status: 'cancelled' });
    expect(await versionStatus(t, version)).toBe('draft');
    const [is] = await q(t, 'select status from svc_workflow_instance_steps where id = $1', [active.id]);
    expect(is.status).toBe('cancelled');
    const [action] = await q(t, "select * from svc_workflow_actions where instance_id = $1 and kind = 'cancel'", [instance.id]);
    expect(action.comment).toBe('Wrong version');
    expect((await t.req('POST', step(instance.id, active.id, 'approve'), {}, { token: 'r1' })).status).toBe(400);
    expect((await t.req('PATCH', `/versions/${version}`, { delta: { title: 'Fixed title' } }, { token: 'editor' })).status).toBe(200);
    expect((await submit(t, 'editor', version)).status).toBe(200);
    expect((await instanceOf(t, version)).id).not.toBe(instance.id);
  });

  it('cancel of a finished instance: 400 and nothing changes', async () => {
    await reviewFlow();
    const { instance, active } = await started({ title: 'Finished title' });
    expect((await t.req('POST', step(instance.id, active.id, 'approve'), {}, { token: 'r1' })).status).toBe(200);
    const before = await snapshot(t);
    const res = await t.req('POST', `/workflow-instances/${instance.id}/cancel`, { comment: 'too late' });
    expect(res.status).toBe(400);
    expect(code(res)).toBe('INVALID_PAYLOAD');
    expect(await snapshot(t)).toBe(before);
    expect((await t.req('POST', '/workflow-instances/00000000-0000-4000-8000-000000000000/cancel', {})).status).toBe(404);
  });
});
