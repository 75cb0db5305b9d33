/** Step timeouts, in-process: runWorkflowTimeouts with a `now` past the step's timeout_at fires each action once
 * (auto-approve, auto-reject, escalate, notify); a second run fires nothing; a failing firing is rolled back
 * alone and retried. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runWorkflowTimeouts } from '../../core/workflow/timeouts.ts';
import { ADMIN_EMAIL } from '../helpers/template.ts';
import { activeStep, buildWorkflow, doc, draft, instanceOf, q, role, submit, user, versionStatus, workflowApp, type App } from './setup.ts';
import { randomUUID } from 'node:crypto';

let t: App;
const users: Record<string, string> = {};
const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);

beforeAll(async () => {
  t = await workflowApp();
  const editors = await role(t, 'editors', ['versioning:create', 'workflow:start']);
  users.editor = await user(t, editors.role, 'editor');
  const reviewers = await role(t, 'reviewers', ['workflow:participate']);
  for (const r of ['r1', 'lead']) users[r] = await user(t, reviewers.role, r);
  [{ id: users.admin }] = await q(t, 'select id from svc_users where email = $1', [ADMIN_EMAIL]);
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => { await q(t, 'update svc_workflows set active = false'); });

async function timed(action: string, options?: Record<string, unknown>) {
  await buildWorkflow(t, {
    name: `timeout-${action}`,
    steps: [
      { key: 'start', type: 'start' },
      { key: 'review', type: 'approval', assign_type: 'user', assign_value: users.r1, timeout_minutes: 10, timeout_action: action, ...(options ? { options } : {}) },
      { key: 'done', type: 'end' },
    ],
    transitions: [['start', 'review', 'always'], ['review', 'done', 'approve']],
  });
  const version = await draft(t, 'editor', { title: `Timed ${action}` });
  expect((await submit(t, 'editor', version)).status).toBe(200);
  const instance = await instanceOf(t, version);
  const active = await activeStep(t, instance.id);
  expect(new Date(active.timeout_at).getTime() - new Date(active.activated_at).getTime()).toBe(10 * 60_000);
  return { version, instance, active };
}

const firedFor = (result: { fired: { id: string; action: string }[] }, id: string) => result.fired.filter((f) => f.id === id);
const actions = (instance: string) => q(t, 'select kind, user_id, to_user, comment from svc_workflow_actions where instance_id = $1 order by created_at', [instance]);

describe('runWorkflowTimeouts', () => {
  it('nothing fires before timeout_at; the task shows its timeout_at', async () => {
    const { active } = await timed('auto-approve');
    expect(firedFor(await runWorkflowTimeouts(t.services, later(9)), active.id)).toEqual([]);
    const tasks = await t.req('GET', '/workflow-tasks', undefined, { token: 'r1' });
    const task = tasks.body.data.find((x: any) => x.id === active.id);
    expect(task.timeout_at).toBe(new Date(active.timeout_at).toISOString());
    expect(await q(t, 'select status from svc_workflow_instance_steps where id = $1', [active.id])).toEqual([{ status: 'active' }]);
  });

  it('auto-approve: an approval by the system, the instance completes and promotes; once', async () => {
    const { version, instance, active } = await timed('auto-approve');
    expect(firedFor(await runWorkflowTimeouts(t.services, later(11)), active.id)).toEqual([{ id: active.id, action: 'auto-approve' }]);
    expect((await instanceOf(t, version)).status).toBe('approved');
    expect(await versionStatus(t, version)).toBe('approved');
    expect((await doc(t)).title).toBe('Timed auto-approve');
    expect(await actions(instance.id)).toEqual([{ kind: 'approve', user_id: null, to_user: null, comment: expect.stringMatching(/timed out/) }]);
    const [is] = await q(t, 'select status, approvals from svc_workflow_instance_steps where id = $1', [active.id]);
    expect(is).toEqual({ status: 'approved', approvals: [{ user: null, system: true, timestamp: expect.any(String) }] });
    expect(firedFor(await runWorkflowTimeouts(t.services, later(60)), active.id)).toEqual([]);
    expect(await actions(instance.id)).toHaveLength(1);
  });

  it('auto-reject: the version is rejected, the item unchanged, the instance ends rejected; once', async () => {
    const before = await doc(t);
    const { version, instance, active } = await timed('auto-reject');
    expect(firedFor(await runWorkflowTimeouts(t.services, later(11)), active.id)).toHaveLength(1);
    expect((await instanceOf(t, version)).status).toBe('rejected');
    expect(await versionStatus(t, version)).toBe('rejected');
    expect(await doc(t)).toEqual(before);
    expect(await actions(instance.id)).toEqual([{ kind: 'reject', user_id: null, to_user: null, comment: expect.stringMatching(/timed out/) }]);
    expect(firedFor(await runWorkflowTimeouts(t.services, later(60)), active.id)).toEqual([]);
  });

  it('escalate: reassigned to options.escalate_to, notified, no new timeout; once', async () => {
    const { instance, active } = await timed('escalate', { escalate_to: { user: users.lead } });
    expect(firedFor(await runWorkflowTimeouts(t.services, later(11)), active.id)).toHaveLength(1);
    const after = await activeStep(t, instance.id);
    expect(after).toMatchObject({ id: active.id, status: 'active', assignees: [users.lead], timeout_at: null });
    expect(await actions(instance.id)).toEqual([{ kind: 'escalate', user_id: null, to_user: users.lead, comment: expect.any(String) }]);
    expect(await q(t, 'select subject from svc_notifications where recipient = $1', [users.lead])).toEqual([{ subject: 'Escalated to you: review' }]);
    expect(firedFor(await runWorkflowTimeouts(t.services, later(600)), active.id)).toEqual([]);
    expect((await t.req('POST', `/workflow-instances/${instance.id}/steps/${active.id}/approve`, {}, { token: 'lead' })).body.data.instance_status).toBe('approved');
  });

  it('escalate without escalate_to goes to the administrators', async () => {
    const { instance } = await timed('escalate');
    await runWorkflowTimeouts(t.services, later(11));
    expect((await activeStep(t, instance.id)).assignees).toEqual([users.admin]);
  });

  it('notify: the assignees are notified once; the step stays active with its assignees', async () => {
    const { instance, active } = await timed('notify');
    const notes = () => q(t, "select recipient, subject from svc_notifications where subject like 'Overdue:%' and recipient = $1", [users.r1]);
    const before = (await notes()).length;
    expect(firedFor(await runWorkflowTimeouts(t.services, later(11)), active.id)).toHaveLength(1);
    expect(await notes()).toHaveLength(before + 1);
    const after = await activeStep(t, instance.id);
    expect(after).toMatchObject({ id: active.id, status: 'active', assignees: [users.r1] });
    expect(after.timeout_fired_at).not.toBeNull();
    expect(firedFor(await runWorkflowTimeouts(t.services, later(600)), active.id)).toEqual([]);
    expect(await notes()).toHaveLength(before + 1);
    expect(await actions(instance.id)).toEqual([]);
  });

  it('a firing that fails (promotion refused) is rolled back alone and retried on the next run', async () => {
    const { version, active } = await timed('auto-approve');
    await q(t, 'alter table docs add constraint docs_title_short check (length(title) < 5) not valid');
    try {
      const result = await runWorkflowTimeouts(t.services, later(11));
      expect(result.failed.map((f) => f.id)).toContain(active.id);
      expect(await activeStep(t, (await instanceOf(t, version)).id)).toMatchObject({ id: active.id, approvals: [], timeout_fired_at: null });
      expect(await versionStatus(t, version)).toBe('pending');
    } finally {
      await q(t, 'alter table docs drop constraint docs_title_short');
    }
    expect(firedFor(await runWorkflowTimeouts(t.services, later(11)), active.id)).toHaveLength(1);
    expect(await versionStatus(t, version)).toBe('approved');
  });
});
