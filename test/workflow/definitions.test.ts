/** Workflow definitions through HTTP: CRUD of workflows, steps and transitions, activation checks, bad input
 * (400 INVALID_PAYLOAD naming the problem, nothing written), and workflow:view / workflow:manage. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkflow, code, q, role, user, workflowApp, type App } from './setup.ts';

let t: App;
let reviewers: string;
let reviewer: string;

beforeAll(async () => {
  t = await workflowApp();
  reviewers = (await role(t, 'reviewers', ['workflow:participate'])).role;
  reviewer = await user(t, reviewers, 'r1');
  await user(t, (await role(t, 'managers', ['workflow:manage'])).role, 'manager');
  await user(t, (await role(t, 'viewers', ['workflow:view'])).role, 'viewer');
  await user(t, (await role(t, 'nobody', [])).role, 'nobody');
});
afterAll(async () => { await t?.close(); });

const message = (res: { body: any }) => String(res.body?.errors?.[0]?.message);
const count = async (table: string) => (await q(t, `select count(*)::int as n from ${table}`))[0].n as number;

describe('workflows', () => {
  it('create (trigger_event defaults to versions.submit), list, read with steps and transitions, update, delete', async () => {
    const created = await t.req('POST', '/workflows', { name: 'Editorial', collection: 'docs', trigger_filter: { status: { _eq: 'published' } } }, { token: 'manager' });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ name: 'Editorial', collection: 'docs', trigger_event: 'versions.submit', active: false, trigger_filter: { status: { _eq: 'published' } } });
    const id = created.body.data.id;
    const list = await t.req('GET', '/workflows', undefined, { token: 'viewer' });
    expect(list.body.data.map((w: any) => w.id)).toContain(id);
    const s = await t.req('POST', `/workflows/${id}/steps`, { key: 'start', name: 'Start', type: 'start' }, { token: 'manager' });
    const e = await t.req('POST', `/workflows/${id}/steps`, { key: 'end', type: 'end' }, { token: 'manager' });
    expect(e.body.data).toMatchObject({ key: 'end', name: 'end', type: 'end', approval_mode: 'any', sort_order: 0 });
    const tr = await t.req('POST', `/workflows/${id}/transitions`, { from_step_id: s.body.data.id, to_step_id: e.body.data.id, trigger: 'always' }, { token: 'manager' });
    expect(tr.status).toBe(200);
    const read = await t.req('GET', `/workflows/${id}`, undefined, { token: 'viewer' });
    expect(read.body.data.steps.map((x: any) => x.key).sort()).toEqual(['end', 'start']);
    expect(read.body.data.transitions).toEqual([tr.body.data]);
    const patched = await t.req('PATCH', `/workflows/${id}`, { name: 'Renamed', trigger_filter: null }, { token: 'manager' });
    expect(patched.body.data).toMatchObject({ id, name: 'Renamed', trigger_filter: null });
    const step = await t.req('PATCH', `/workflows/${id}/steps/${e.body.data.id}`, { name: 'Finish' }, { token: 'manager' });
    expect(step.body.data.name).toBe('Finish');
    expect((await t.req('DELETE', `/workflows/${id}/transitions/${tr.body.data.id}`, undefined, { token: 'manager' })).status).toBe(204);
    expect((await t.req('DELETE', `/workflows/${id}/steps/${e.body.data.id}`, undefined, { token: 'manager' })).status).toBe(204);
    expect((await t.req('DELETE', `/workflows/${id}`, undefined, { token: 'manager' })).status).toBe(204);
    expect((await t.req('GET', `/workflows/${id}`)).status).toBe(404);
  });

  it('workflow:manage for writes, workflow:view (or manage) for reads; anonymous 401', async () => {
    const wf = await buildWorkflow(t, { name: 'perm', steps: [{ key: 'start', type: 'start' }, { key: 'end', type: 'end' }], transitions: [['start', 'end', 'always']], activate: false });
    const before = await count('svc_workflows');
    for (const token of ['viewer', 'r1', 'nobody']) {
      expect((await t.req('POST', '/workflows', { name: 'x', collection: 'docs' }, { token })).status, token).toBe(403);
      expect((await t.req('PATCH', `/workflows/${wf.id}`, { name: 'x' }, { token })).status).toBe(403);
      expect((await t.req('POST', `/workflows/${wf.id}/steps`, { key: 'x', type: 'end' }, { token })).status).toBe(403);
      expect((await t.req('POST', `/workflows/${wf.id}/activate`, undefined, { token })).status).toBe(403);
      expect((await t.req('DELETE', `/workflows/${wf.id}`, undefined, { token })).status).toBe(403);
    }
    for (const token of ['r1', 'nobody']) expect((await t.req('GET', '/workflows', undefined, { token })).status).toBe(403);
    expect((await t.req('GET', `/workflows/${wf.id}`, undefined, { token: 'manager' })).status).toBe(200);
    expect((await t.req('GET', '/workflows', undefined, { token: null })).status).toBe(401);
    expect(await count('svc_workflows')).toBe(before);
    const [row] = await q(t, 'select name, active from svc_workflows where id = $1', [wf.id]);
    expect(row).toEqual({ name: 'perm', active: false });
  });

  it('list: pages, search in name and collection, meta counts, the number of steps of each', async () => {
    const made: string[] = [];
    for (const name of ['Paged A', 'Paged B', 'Paged C']) {
      made.push((await buildWorkflow(t, { name, steps: [{ key: 'start', type: 'start' }, { key: 'end', type: 'end' }], transitions: [], activate: false })).id);
    }
    const first = await t.req('GET', '/workflows?search=paged&limit=2&page=1&meta=total_count,filter_count', undefined, { token: 'viewer' });
    expect(first.status).toBe(200);
    expect(first.body.data.map((w: any) => [w.name, w.step_count])).toEqual([['Paged A', 2], ['Paged B', 2]]);
    expect(first.body.meta).toEqual({ total_count: await count('svc_workflows'), filter_count: 3 });
    const second = await t.req('GET', '/workflows?search=PAGED&limit=2&page=2', undefined, { token: 'viewer' });
    expect(second.body.data.map((w: any) => w.name)).toEqual(['Paged C']);
    expect(second.body.meta).toBeUndefined();
    expect((await t.req('GET', '/workflows?search=docs&limit=-1')).body.data.length).toBe(await count('svc_workflows'));
    expect((await t.req('GET', '/workflows?search=50%25_off')).body.data).toEqual([]);
    for (const bad of ['limit=x', 'limit=-2', 'page=0', 'offset=-1']) expect((await t.req('GET', `/workflows?${bad}`)).status, bad).toBe(400);
    for (const id of made) await t.req('DELETE', `/workflows/${id}`);
  });

  it('bad input: 400 INVALID_PAYLOAD, nothing written', async () => {
    const before = await count('svc_workflows');
    const cases: [unknown, RegExp][] = [
      [{ collection: 'docs' }, /name/],
      [{ name: 'x' }, /collection/],
      [{ name: 'x', collection: 'nope' }, /does not exist/],
      [{ name: 'x', collection: 'docs', trigger_event: 'items.create' }, /trigger_event/],
      [{ name: 'x', collection: 'docs', trigger_filter: 'yes' }, /trigger_filter/],
      [{ name: 'x', collection: 'docs', trigger_filter: { title: { _like: 'a' } } }, /unknown operator/],
      [{ name: 'x', collection: 'docs', color: 'red' }, /Unknown field "color"/],
      [{ name: 5, collection: 'docs' }, /name/],
      [[1], /object/],
    ];
    for (const [body, pattern] of cases) {
      const res = await t.req('POST', '/workflows', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(code(res)).toBe('INVALID_PAYLOAD');
      expect(message(res)).toMatch(pattern);
    }
    expect(await count('svc_workflows')).toBe(before);
  });
});

describe('steps and transitions', () => {
  it('bad steps: unknown type, mode, assign_type, timeout action; missing assignees targets; 400 and nothing written', async () => {
    const { id } = await buildWorkflow(t, { name: 'steps', steps: [], transitions: [], activate: false });
    const before = await count('svc_workflow_steps');
    const cases: [unknown, RegExp][] = [
      [{ key: 'a', type: 'review' }, /type/],
      [{ key: 'a', type: 'approval', approval_mode: 'most' }, /approval_mode/],
      [{ key: 'a', type: 'approval', assign_type: 'group', assign_value: 'x' }, /assign_type/],
      [{ key: 'a', type: 'approval', assign_type: 'role', assign_value: '00000000-0000-4000-8000-000000000000' }, /Role/],
      [{ key: 'a', type: 'approval', assign_type: 'user', assign_value: 'bob' }, /User/],
      [{ key: 'a', type: 'approval', assign_type: 'dynamic', assign_value: 'nofield' }, /Field/],
      [{ key: 'a', type: 'approval', assign_type: 'role' }, /assign_value/],
      [{ key: 'a', type: 'approval', timeout_minutes: 5, timeout_action: 'explode' }, /timeout_action/],
      [{ key: 'a', type: 'approval', timeout_minutes: 5 }, /go together/],
      [{ key: 'a', type: 'approval', timeout_minutes: -1, timeout_action: 'notify' }, /timeout_minutes/],
      [{ key: 'a', type: 'end', timeout_minutes: 5, timeout_action: 'notify' }, /Only approval/],
      [{ key: 'a', type: 'action' }, /action_type/],
      [{ key: 'a', type: 'action', action_type: 'launch' }, /action_type/],
      [{ key: 'a', type: 'action', action_type: 'update_field', action_config: { field: 'nope', value: 1 } }, /cannot be updated/],
      [{ key: 'a', type: 'action', action_type: 'update_field', action_config: { field: 'title' } }, /action_config/],
      [{ key: 'a', type: 'condition', options: { condition: { title: { _bogus: 1 } } } }, /unknown operator/],
      [{ key: 'a', type: 'approval', options: { escalate_to: { user: 'x' } } }, /escalate_to/],
      [{ key: 'a b', type: 'end' }, /key/],
      [{ type: 'end' }, /key/],
      [{ key: 'a', type: 'end', weight: 3 }, /Unknown field/],
    ];
    for (const [body, pattern] of cases) {
      const res = await t.req('POST', `/workflows/${id}/steps`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(code(res)).toBe('INVALID_PAYLOAD');
      expect(message(res), JSON.stringify(body)).toMatch(pattern);
    }
    expect((await t.req('POST', `/workflows/${id}/steps`, { key: 'dup', type: 'end' })).status).toBe(200);
    expect(message(await t.req('POST', `/workflows/${id}/steps`, { key: 'dup', type: 'end' }))).toMatch(/already exists/);
    expect(await count('svc_workflow_steps')).toBe(before + 1);
    expect((await t.req('POST', '/workflows/00000000-0000-4000-8000-000000000000/steps', { key: 'x', type: 'end' })).status).toBe(404);
  });

  it('bad transitions: steps of another workflow, unknown trigger, wrong trigger for the step kind', async () => {
    const a = await buildWorkflow(t, { name: 'A', steps: [{ key: 'start', type: 'start' }, { key: 'review', type: 'approval', assign_type: 'role', assign_value: reviewers }, { key: 'end', type: 'end' }], transitions: [], activate: false });
    const b = await buildWorkflow(t, { name: 'B', steps: [{ key: 'end', type: 'end' }], transitions: [], activate: false });
    const before = await count('svc_workflow_transitions');
    const cases: [unknown, RegExp][] = [
      [{ from_step_id: a.steps.start, to_step_id: b.steps.end, trigger: 'always' }, /to_step_id/],
      [{ from_step_id: b.steps.end, to_step_id: a.steps.end, trigger: 'always' }, /from_step_id/],
      [{ from_step_id: a.steps.start, to_step_id: a.steps.end, trigger: 'sometimes' }, /trigger/],
      [{ from_step_id: a.steps.start, to_step_id: a.steps.end }, /trigger/],
      [{ from_step_id: a.steps.start, to_step_id: a.steps.end, trigger: 'approve' }, /approval steps only/],
      [{ from_step_id: a.steps.review, to_step_id: a.steps.end, trigger: 'condition' }, /condition steps only/],
      [{ from_step_id: a.steps.end, to_step_id: a.steps.start, trigger: 'always' }, /end step/],
      [{ from_step_id: 'x', to_step_id: a.steps.end, trigger: 'always' }, /UUID/],
    ];
    for (const [body, pattern] of cases) {
      const res = await t.req('POST', `/workflows/${a.id}/transitions`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(message(res)).toMatch(pattern);
    }
    expect(await count('svc_workflow_transitions')).toBe(before);
    expect((await t.req('DELETE', `/workflows/${a.id}/transitions/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });
});

describe('activate', () => {
  const activate = (id: string) => t.req('POST', `/workflows/${id}/activate`);

  it('refuses a graph without exactly one start, without a reachable end, or with an approval without assignees', async () => {
    const noStart = await buildWorkflow(t, { name: 'n1', steps: [{ key: 'end', type: 'end' }], transitions: [], activate: false });
    expect(message(await activate(noStart.id))).toMatch(/exactly one start step \(it has 0\)/);
    const twoStarts = await buildWorkflow(t, { name: 'n2', steps: [{ key: 's1', type: 'start' }, { key: 's2', type: 'start' }, { key: 'end', type: 'end' }], transitions: [['s1', 'end', 'always'], ['s2', 'end', 'always']], activate: false });
    expect(message(await activate(twoStarts.id))).toMatch(/exactly one start step \(it has 2\)/);
    const unreachable = await buildWorkflow(t, { name: 'n3', steps: [{ key: 'start', type: 'start' }, { key: 'end', type: 'end' }], transitions: [], activate: false });
    expect(message(await activate(unreachable.id))).toMatch(/No end step is reachable/);
    const unassigned = await buildWorkflow(t, { name: 'n4', steps: [{ key: 'start', type: 'start' }, { key: 'review', type: 'approval' }, { key: 'end', type: 'end' }], transitions: [['start', 'review', 'always'], ['review', 'end', 'approve']], activate: false });
    const res = await activate(unassigned.id);
    expect(res.status).toBe(400);
    expect(message(res)).toMatch(/Approval step "review" has no assignees/);
    const [rows] = await q(t, 'select count(*)::int as n from svc_workflows where active and id = any($1::uuid[])', [[noStart.id, twoStarts.id, unreachable.id, unassigned.id]]);
    expect(rows.n).toBe(0);
  });

  it('names each problem in extensions.problems, with the key of the step it is about, beside the joined message', async () => {
    const wf = await buildWorkflow(t, {
      name: 'problems',
      steps: [
        { key: 'start', type: 'start' }, { key: 'review', type: 'approval' }, { key: 'tell', type: 'notification' },
        { key: 'route', type: 'condition' }, { key: 'end', type: 'end' },
      ],
      transitions: [['start', 'review', 'always'], ['review', 'tell', 'approve'], ['tell', 'route', 'always']],
      activate: false,
    });
    const res = await activate(wf.id);
    expect(res.status).toBe(400);
    const [error] = res.body.errors;
    expect(error.extensions).toEqual({
      code: 'INVALID_PAYLOAD',
      reason: 'graph_problems',
      problems: [
        { message: 'Approval step "review" has no assignees.', step: 'review' },
        { message: 'Notification step "tell" has no recipients.', step: 'tell' },
        { message: 'Condition step "route" has no condition.', step: 'route' },
        { message: 'No end step is reachable from the start step.' },
      ],
    });
    expect(error.message).toBe(`Invalid payload. ${error.extensions.problems.map((p: { message: string }) => p.message).join(' ')}`);
    // The same list comes with the workflow, for a designer to show before and after an attempt.
    expect((await t.req('GET', `/workflows/${wf.id}`, undefined, { token: 'viewer' })).body.data.problems).toEqual(error.extensions.problems);
    // Two start steps: a problem of the graph as a whole (no step key).
    const twoStarts = await buildWorkflow(t, { name: 'problems-2', steps: [{ key: 'a', type: 'start' }, { key: 'b', type: 'start' }, { key: 'end', type: 'end' }], transitions: [['a', 'end', 'always']], activate: false });
    expect((await activate(twoStarts.id)).body.errors[0].extensions.problems).toEqual([{ message: 'A workflow needs exactly one start step (it has 2).' }]);
    // Fixed, the same workflow activates.
    await t.req('PATCH', `/workflows/${wf.id}/steps/${wf.steps.review}`, { assign_type: 'user', assign_value: reviewer });
    await t.req('PATCH', `/workflows/${wf.id}/steps/${wf.steps.tell}`, { assign_type: 'role', assign_value: reviewers });
    await t.req('PATCH', `/workflows/${wf.id}/steps/${wf.steps.route}`, { options: { condition: { category: { _eq: 'news' } } } });
    await t.req('POST', `/workflows/${wf.id}/transitions`, { from_step_id: wf.steps.route, to_step_id: wf.steps.end, trigger: 'always' });
    expect((await t.req('GET', `/workflows/${wf.id}`)).body.data.problems).toEqual([]);
    const ok = await activate(wf.id);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.active).toBe(true);
  });

  it('activates a valid graph; an active graph is frozen until deactivated', async () => {
    const wf = await buildWorkflow(t, { name: 'ok', steps: [{ key: 'start', type: 'start' }, { key: 'review', type: 'approval', assign_type: 'user', assign_value: reviewer }, { key: 'end', type: 'end' }], transitions: [['start', 'review', 'always'], ['review', 'end', 'approve']], activate: false });
    const res = await activate(wf.id);
    expect(res.body.data).toMatchObject({ id: wf.id, active: true });
    const frozen = await t.req('POST', `/workflows/${wf.id}/steps`, { key: 'more', type: 'end' });
    expect(frozen.status).toBe(400);
    expect(message(frozen)).toMatch(/deactivate/);
    expect((await t.req('PATCH', `/workflows/${wf.id}/steps/${wf.steps.end}`, { name: 'x' })).status).toBe(400);
    expect((await t.req('DELETE', `/workflows/${wf.id}/steps/${wf.steps.end}`)).status).toBe(400);
    expect((await t.req('POST', `/workflows/${wf.id}/deactivate`)).body.data.active).toBe(false);
    expect((await t.req('POST', `/workflows/${wf.id}/steps`, { key: 'more', type: 'end' })).status).toBe(200);
  });
});
