/** What is not an item write reaches subscribers too: the inbox rows the notification module writes
 * (svc_notifications, the Studio's bell) and a reviewer's tasks (svc_workflow_tasks, the review badge). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeStep, buildWorkflow, draft, installDocs, instanceOf, role, step, submit, user } from '../workflow/setup.ts';
import { Barrier } from './barrier.ts';
import { Client, startRealtimeApp, until, type RealtimeApp } from './helpers.ts';

let t: RealtimeApp;
const users: Record<string, string> = {};

beforeAll(async () => {
  t = await startRealtimeApp();
  await installDocs(t);
  const editors = await role(t, 'editors', ['versioning:create', 'workflow:start']);
  users.editor = await user(t, editors.role, 'editor');
  const reviewers = await role(t, 'reviewers', ['workflow:participate']);
  users.r1 = await user(t, reviewers.role, 'r1');
  users.r2 = await user(t, reviewers.role, 'r2');
});
afterAll(async () => { await t?.close(); });

describe('feeds: the review tasks and the inbox', () => {
  it('tasks arrive, move on delegation with a notification to the delegate, and leave on approval; nobody else hears', async () => {
    await buildWorkflow(t, {
      steps: [
        { key: 'start', type: 'start' },
        { key: 'review', type: 'approval', assign_type: 'user', assign_value: users.r1, approval_mode: 'any' },
        { key: 'done', type: 'end' },
      ],
      transitions: [['start', 'review', 'always'], ['review', 'done', 'approve']],
    });
    const r1 = await Client.open(t.wsUrl);
    await r1.auth('r1');
    const r2 = await Client.open(t.wsUrl);
    await r2.auth('r2');
    for (const c of [r1, r2]) {
      expect(await c.subscribe({ collection: 'svc_workflow_tasks', uid: 'tasks' })).toMatchObject({ event: 'init', data: [] });
      expect(await c.subscribe({ collection: 'svc_notifications', uid: 'bell', query: { fields: ['id', 'subject', 'recipient'] } }))
        .toMatchObject({ event: 'init', data: [] });
    }
    const editor = await Client.open(t.wsUrl);
    await editor.auth('editor');
    expect(await editor.subscribe({ collection: 'svc_workflow_tasks', uid: 'tasks' }))
      .toMatchObject({ type: 'subscribe', status: 'error', error: { code: 'FORBIDDEN' } });
    expect(await editor.subscribe({ collection: 'svc_workflow_tasks', uid: 'q', query: { filter: { id: { _eq: 1 } } } }))
      .toMatchObject({ type: 'subscribe', status: 'error' });

    const version = await draft(t, 'editor', { title: 'Please review' });
    expect((await submit(t, 'editor', version)).status).toBe(200);
    const instance = await instanceOf(t, version);
    const arrived = await r1.next((m) => m.uid === 'tasks' && m.event === 'update');
    expect(arrived.data).toEqual([expect.objectContaining({ instance_id: instance.id, step_name: 'review', status: 'active' })]);

    const active = await activeStep(t, instance.id);
    const delegated = await t.req('POST', step(instance.id, active.id, 'delegate'), { to_user: users.r2, comment: 'Yours' }, { token: 'r1' });
    expect(delegated.status, JSON.stringify(delegated.body)).toBe(200);
    expect((await r1.next((m) => m.uid === 'tasks' && m.event === 'delete')).data).toEqual([instance.id]);
    // Each subscription's messages arrive in order; two subscriptions' may interleave either way (their groups read
    // their rows side by side), so the task and the notification are awaited together.
    await until(() => r2.events('tasks').length > 0 && r2.events('bell').length > 0, 15_000, 'the delegate\'s task and notification');
    expect(r2.events('tasks').map((m) => [m.event, m.data])).toEqual([['update', [expect.objectContaining({ instance_id: instance.id })]]]);
    expect(r2.events('bell').map((m) => [m.event, m.data]))
      .toEqual([['create', [expect.objectContaining({ subject: 'A workflow task was delegated to you', recipient: users.r2 })]]]);

    expect((await t.req('POST', step(instance.id, active.id, 'approve'), {}, { token: 'r2' })).status).toBe(200);
    expect((await r2.next((m) => m.uid === 'tasks' && m.event === 'delete')).data).toEqual([instance.id]);
    const barrier = await Barrier.create(t);
    await barrier.pass([r1]);
    barrier.close();
    // r1 heard of its own task only, and of no notification.
    expect(r1.events('bell')).toEqual([]);
    expect(r1.events('tasks').map((m) => m.event)).toEqual(['update', 'delete']);
    for (const c of [r1, r2, editor]) c.close();
  });
});
