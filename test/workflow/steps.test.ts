/** Step kinds and starting rules: condition (both branches), notification, action steps (promote_version mid-
 * workflow, update_field), dynamic assignees, trigger filters, the workflow:start permission, several matching
 * workflows, and a final approval whose promotion fails (everything of the approval rolls back). */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DOC, activeStep, buildWorkflow, code, doc, draft, instanceOf, q, role, snapshot, step, submit, user, versionStatus, workflowApp,
  type App,
} from './setup.ts';

let t: App;
const users: Record<string, string> = {};

beforeAll(async () => {
  t = await workflowApp();
  const editors = await role(t, 'editors', ['versioning:create', 'workflow:start']);
  users.editor = await user(t, editors.role, 'editor');
  const writers = await role(t, 'writers', ['versioning:create']);
  users.writer = await user(t, writers.role, 'writer');
  const reviewers = await role(t, 'reviewers', ['workflow:participate']);
  for (const r of ['r1', 'r2', 'lead']) users[r] = await user(t, reviewers.role, r);
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => { await q(t, 'update svc_workflows set active = false'); });

const simple = (name: string, extra: { trigger_filter?: unknown } = {}) => buildWorkflow(t, {
  name, ...extra,
  steps: [{ key: 'start', type: 'start' }, { key: 'review', type: 'approval', assign_type: 'user', assign_value: users.r1 }, { key: 'done', type: 'end' }],
  transitions: [['start', 'review', 'always'], ['review', 'done', 'approve']],
});

async function submitted(delta: Record<string, unknown>, token = 'editor', item = DOC) {
  const version = await draft(t, token, delta, item);
  const res = await submit(t, token, version);
  return { version, res, instance: await instanceOf(t, version) };
}

const approve = (instance: string, stepId: string, token: string) => t.req('POST', step(instance, stepId, 'approve'), {}, { token });

describe('condition step', () => {
  const build = () => buildWorkflow(t, {
    name: 'conditional',
    steps: [
      { key: 'start', type: 'start' },
      { key: 'urgent', type: 'condition', options: { condition: { priority: { _gte: 5 } } } },
      { key: 'lead_review', type: 'approval', assign_type: 'user', assign_value: users.lead },
      { key: 'normal_review', type: 'approval', assign_type: 'user', assign_value: users.r1 },
      { key: 'done', type: 'end' },
    ],
    transitions: [
      ['start', 'urgent', 'always'], ['urgent', 'lead_review', 'condition'], ['urgent', 'normal_review', 'always'],
      ['lead_review', 'done', 'approve'], ['normal_review', 'done', 'approve'],
    ],
  });

  it('true: follows the condition transition (item merged with the delta)', async () => {
    const wf = await build();
    const { instance } = await submitted({ priority: 9 });
    const active = await activeStep(t, instance.id);
    expect(active.step_id).toBe(wf.steps.lead_review);
    expect(active.assignees).toEqual([users.lead]);
    const [cond] = await q(t, 'select result from svc_workflow_instance_steps where instance_id = $1 and step_id = $2', [instance.id, wf.steps.urgent]);
    expect(cond.result).toBe('true');
  });

  it('false: follows the always transition', async () => {
    const wf = await build();
    const { instance } = await submitted({ priority: 1 });
    const active = await activeStep(t, instance.id);
    expect(active.step_id).toBe(wf.steps.normal_review);
    const [cond] = await q(t, 'select result from svc_workflow_instance_steps where instance_id = $1 and step_id = $2', [instance.id, wf.steps.urgent]);
    expect(cond.result).toBe('false');
  });
});

describe('notification and action steps', () => {
  it('a notification step writes an in-app notification to its assignees and moves on', async () => {
    const wf = await buildWorkflow(t, {
      name: 'notifying',
      steps: [
        { key: 'start', type: 'start' },
        { key: 'heads_up', type: 'notification', assign_type: 'user', assign_value: users.r2, options: { subject: 'A doc is coming', message: 'Please look' } },
        { key: 'review', type: 'approval', assign_type: 'user', assign_value: users.r1 },
        { key: 'done', type: 'end' },
      ],
      transitions: [['start', 'heads_up', 'always'], ['heads_up', 'review', 'always'], ['review', 'done', 'approve']],
    });
    const { instance } = await submitted({ title: 'Notified' });
    const notes = await q(t, 'select * from svc_notifications where recipient = $1', [users.r2]);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ subject: 'A doc is coming', message: 'Please look', collection: 'docs', item: DOC, sender: users.editor, status: 'inbox' });
    expect((await activeStep(t, instance.id)).step_id).toBe(wf.steps.review);
    expect((await t.req('GET', '/notifications', undefined, { token: 'r2' })).body.data).toHaveLength(1);
  });

  it('promote_version mid-workflow applies the delta at that step; completion does not promote again', async () => {
    await buildWorkflow(t, {
      name: 'publish-first',
      steps: [
        { key: 'start', type: 'start' },
        { key: 'publish', type: 'action', action_type: 'promote_version' },
        { key: 'review', type: 'approval', assign_type: 'user', assign_value: users.r1 },
        { key: 'done', type: 'end' },
      ],
      transitions: [['start', 'publish', 'always'], ['publish', 'review', 'always'], ['review', 'done', 'approve']],
    });
    const { version, instance } = await submitted({ title: 'Published early' });
    expect((await doc(t)).title).toBe('Published early');
    expect(await versionStatus(t, version)).toBe('approved');
    expect(instance.status).toBe('running');
    const active = await activeStep(t, instance.id);
    expect((await approve(instance.id, active.id, 'r1')).body.data.instance_status).toBe('approved');
    const [revisions] = await q(t, 'select count(*)::int as n from svc_revisions where version = $1', [version]);
    expect(revisions.n).toBe(1);
  });

  it('update_field sets a field of the item through the items service (activity with user null)', async () => {
    await buildWorkflow(t, {
      name: 'mark-reviewed',
      steps: [
        { key: 'start', type: 'start' },
        { key: 'review', type: 'approval', assign_type: 'user', assign_value: users.r1 },
        { key: 'mark', type: 'action', action_type: 'update_field', action_config: { field: 'reviewed', value: true } },
        { key: 'done', type: 'end' },
      ],
      transitions: [['start', 'review', 'always'], ['review', 'mark', 'approve'], ['mark', 'done', 'always']],
    });
    await q(t, 'update docs set reviewed = false where id = $1', [DOC]);
    const { instance } = await submitted({ title: 'Marked' });
    expect((await doc(t)).reviewed).toBe(false);
    const before = (await q(t, "select count(*)::int as n from svc_activity where collection = 'docs' and item = $1 and \"user\" is null", [DOC]))[0].n;
    expect((await approve(instance.id, (await activeStep(t, instance.id)).id, 'r1')).body.data.instance_status).toBe('approved');
    const after = await doc(t);
    expect(after).toMatchObject({ reviewed: true, title: 'Marked' });
    const [activity] = await q(t, "select count(*)::int as n from svc_activity where collection = 'docs' and item = $1 and \"user\" is null", [DOC]);
    expect(activity.n).toBe(before + 2);
  });

  it('dynamic assignment: the user id held by a field of the item merged with the delta', async () => {
    await buildWorkflow(t, {
      name: 'dynamic',
      steps: [{ key: 'start', type: 'start' }, { key: 'review', type: 'approval', assign_type: 'dynamic', assign_value: 'reviewer' }, { key: 'done', type: 'end' }],
      transitions: [['start', 'review', 'always'], ['review', 'done', 'approve']],
    });
    const { instance } = await submitted({ title: 'Dynamic', reviewer: users.r2 });
    expect((await activeStep(t, instance.id)).assignees).toEqual([users.r2]);
  });

  it('send_notification with a template sends it through its channels to the step\'s recipients, rendered with the item', async () => {
    const inapp = (await t.req('POST', '/notify/providers', { name: 'inbox', channel: 'inapp', config: {}, is_primary: true, enabled: true })).body.data;
    const provider = typeof inapp === 'object' ? inapp.id : inapp;
    expect((await t.req('POST', '/notify/templates', { id: 'wf-heads-up', name: 'Heads up', channels: ['inapp'], status: 'published' })).status).toBe(200);
    expect((await t.req('POST', '/notify/templates/wf-heads-up/contents', {
      provider_id: provider, active: true, subject: '{{step}}: {{values.title}}', content: 'On {{collection}} {{item}}',
    })).status).toBe(200);
    // A template that does not exist is refused when the step is written.
    const bare = await buildWorkflow(t, { name: 'tpl-check', steps: [], transitions: [], activate: false });
    const missing = await t.req('POST', `/workflows/${bare.id}/steps`, { key: 'tell', type: 'action', action_type: 'send_notification', action_config: { template_id: 'nope' } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({ message: expect.stringMatching(/template "nope" does not exist/), extensions: { field: 'action_config' } });
    expect((await t.req('POST', `/workflows/${bare.id}/steps`, { key: 'tell', type: 'action', action_type: 'send_notification', action_config: { template: 'x' } })).status).toBe(400);

    await buildWorkflow(t, {
      name: 'templated',
      steps: [
        { key: 'start', type: 'start' },
        { key: 'tell', name: 'Tell the lead', type: 'action', action_type: 'send_notification', assign_type: 'user', assign_value: users.lead, action_config: { template_id: 'wf-heads-up' } },
        { key: 'review', type: 'approval', assign_type: 'user', assign_value: users.r1 },
        { key: 'done', type: 'end' },
      ],
      transitions: [['start', 'tell', 'always'], ['tell', 'review', 'always'], ['review', 'done', 'approve']],
    });
    const { res } = await submitted({ title: 'Templated' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const notes = await q(t, 'select subject, message, sender from svc_notifications where recipient = $1', [users.lead]);
    expect(notes).toEqual([{ subject: 'Tell the lead: Templated', message: `On docs ${DOC}`, sender: users.editor }]);
    const [log] = await q(t, "select template_id, channel, status from svc_notify_logs where template_id = 'wf-heads-up'");
    expect(log).toEqual({ template_id: 'wf-heads-up', channel: 'inapp', status: 'sent' });

    // A template that is no longer published fails the move: the submit is refused and nothing of it is kept.
    expect((await t.req('PATCH', '/notify/templates/wf-heads-up', { status: 'draft' })).status).toBe(200);
    const version = await draft(t, 'editor', { title: 'Not sent' });
    const refused = await submit(t, 'editor', version);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toMatch(/only published templates/);
    expect(await versionStatus(t, version)).toBe('draft');
    expect(await instanceOf(t, version)).toBeUndefined();
  });
});

describe('starting', () => {
  it('trigger_filter matching starts an instance; not matching starts none (the version stays pending)', async () => {
    await simple('news-only', { trigger_filter: { category: { _eq: 'news' } } });
    const matching = await submitted({ title: 'News again' });
    expect(matching.res.status).toBe(200);
    expect(matching.instance).toMatchObject({ status: 'running', version_id: matching.version, item: DOC });
    const other = await submitted({ title: 'Now a blog post', category: 'blog' });
    expect(other.res.status).toBe(200);
    expect(other.instance).toBeUndefined();
    expect(await versionStatus(t, other.version)).toBe('pending');
  });

  it('a primary key in the delta is ignored: the trigger filter sees the item\'s real key', async () => {
    await simple('this-doc', { trigger_filter: { id: { _eq: DOC } } });
    const other = randomUUID();
    const { instance } = await submitted({ id: other, title: 'Key in the delta' });
    expect(instance).toMatchObject({ status: 'running', item: DOC });
    await simple('other-doc', { trigger_filter: { id: { _eq: other } } });
    await q(t, "update svc_workflows set active = false where name = 'this-doc'");
    const unmatched = await submitted({ id: other, title: 'Key in the delta again' });
    expect(unmatched.instance).toBeUndefined();
  });

  it('a new item (no row yet): the filter sees the delta alone; promotion creates the row', async () => {
    await simple('new-items', { trigger_filter: { _and: [{ category: { _eq: 'guide' } }, { slug: { _null: true } }] } });
    const id = randomUUID();
    const { instance, version } = await submitted({ title: 'Brand new', category: 'guide' }, 'editor', id);
    expect(instance?.status).toBe('running');
    expect(await doc(t, id)).toBeUndefined();
    expect((await approve(instance.id, (await activeStep(t, instance.id)).id, 'r1')).body.data.instance_status).toBe('approved');
    expect(await doc(t, id)).toMatchObject({ title: 'Brand new', category: 'guide', status: 'published' });
    expect(await versionStatus(t, version)).toBe('approved');
    const unmatched = await submitted({ title: 'Other new', category: 'blog' }, 'editor', randomUUID());
    expect(unmatched.instance).toBeUndefined();
  });

  it('the submitter needs workflow:start when a workflow starts: 403 and the submit rolls back', async () => {
    await simple('guarded', { trigger_filter: { category: { _eq: 'news' } } });
    const version = await draft(t, 'writer', { title: 'Writer title' });
    const before = await snapshot(t);
    const res = await submit(t, 'writer', version);
    expect(res.status).toBe(403);
    expect(code(res)).toBe('FORBIDDEN');
    expect(await versionStatus(t, version)).toBe('draft');
    expect(await snapshot(t)).toBe(before);
    const unmatched = await draft(t, 'writer', { category: 'blog' });
    expect((await submit(t, 'writer', unmatched)).status).toBe(200);
  });

  it('several matching workflows: the first by name starts, only one instance', async () => {
    const b = await simple('B flow');
    const a = await simple('A flow');
    const { version } = await submitted({ title: 'Two flows' });
    const instances = await q(t, 'select workflow_id from svc_workflow_instances where version_id = $1', [version]);
    expect(instances).toEqual([{ workflow_id: a.id }]);
    expect(b.id).not.toBe(a.id);
  });

  it('an inactive workflow does not start', async () => {
    await simple('inactive');
    await q(t, 'update svc_workflows set active = false');
    const { instance } = await submitted({ title: 'No flow' });
    expect(instance).toBeUndefined();
  });
});

describe('final approval whose promotion fails', () => {
  it('rolls back everything of the approval: no action row, no approval entry, step active, version pending', async () => {
    await simple('fragile');
    const { version, instance } = await submitted({ title: 'Clashing', slug: 'taken' });
    const active = await activeStep(t, instance.id);
    // A constraint added after the version was saved: the delta no longer fits.
    await q(t, "insert into docs (id, title, slug) values ($1, 'Other', 'taken')", [randomUUID()]);
    await q(t, 'create unique index docs_slug_unique on docs (slug)');
    await t.services.schema.invalidate();
    const before = await snapshot(t);
    const res = await approve(instance.id, active.id, 'r1');
    expect(res.status).toBe(409);
    expect(code(res)).toBe('RECORD_NOT_UNIQUE');
    expect(await snapshot(t)).toBe(before);
    expect(await q(t, 'select * from svc_workflow_actions where instance_id = $1', [instance.id])).toEqual([]);
    const after = await activeStep(t, instance.id);
    expect(after).toMatchObject({ id: active.id, status: 'active', approvals: [] });
    expect(await versionStatus(t, version)).toBe('pending');
    expect((await instanceOf(t, version)).status).toBe('running');
    expect((await doc(t)).slug).not.toBe('taken');
    // Once the conflict is gone, the same approval goes through.
    await q(t, "delete from docs where slug = 'taken'");
    expect((await approve(instance.id, active.id, 'r1')).body.data.instance_status).toBe('approved');
    expect((await doc(t)).slug).toBe('taken');
    await q(t, 'drop index docs_slug_unique');
  });
});
