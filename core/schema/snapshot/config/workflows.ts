/** Section `workflows`: each workflow by name, with its steps (by key) and transitions (by the keys of their steps and
 * the trigger), through core/workflow's services, which run inside the caller's transaction. Assignees and escalation
 * targets name roles by name and users by email; notification recipients are emails. An active workflow is
 * deactivated while its graph changes and activated again (which checks the graph) at the end. */
import type { ServiceContext } from '../../../context.ts';
import { InvalidPayloadError } from '../../../errors.ts';
import { activateWorkflow, deactivateWorkflow } from '../../../workflow/activation.ts';
import { createWorkflow, deleteWorkflow, listWorkflows, readWorkflow, updateWorkflow } from '../../../workflow/definitions.ts';
import { createStep, createTransition, deleteStep, deleteTransition, updateStep } from '../../../workflow/steps.ts';
import type { StepRow, TransitionRow } from '../../../workflow/types.ts';
import { isPlainObject } from '../../ddl/names.ts';
import { stableJson } from '../snapshot.ts';
import { byText, changed, emailsOf, names, need, onlyFields, pick, requireUniqueNames, userIdOf } from './refs.ts';
import type { ConfigSection, Row } from './types.ts';

const WORKFLOW_FIELDS = ['name', 'description', 'collection', 'trigger_event', 'trigger_filter'] as const;
const STEP_FIELDS = ['key', 'name', 'type', 'assign_type', 'assign_value', 'approval_mode', 'sort_order', 'action_type',
  'action_config', 'options', 'timeout_minutes', 'timeout_action'] as const;
const STEP_VALUES = STEP_FIELDS.filter((f) => f !== 'key');

interface Refs {
  roleName(id: unknown): unknown;
  email(id: unknown): unknown;
}

/** A step as the snapshot holds it: role and user ids as names and emails. */
function stepOut(s: StepRow, refs: Refs): Row {
  const out = pick(s as unknown as Row, STEP_FIELDS);
  if (s.assign_type === 'role') out.assign_value = refs.roleName(s.assign_value);
  if (s.assign_type === 'user') out.assign_value = refs.email(s.assign_value);
  const esc = s.options?.escalate_to;
  if (isPlainObject(esc)) {
    out.options = { ...s.options, escalate_to: esc.user !== undefined ? { ...esc, user: refs.email(esc.user) } : { ...esc, role: refs.roleName(esc.role) } };
  }
  const recipients = s.action_config?.recipients;
  if (Array.isArray(recipients)) out.action_config = { ...s.action_config, recipients: recipients.map((r) => refs.email(r)) };
  return out;
}

/** A step of a snapshot as the workflow service takes it: names and emails back to this database's ids. */
async function stepIn(ctx: ServiceContext, s: Row, where: string): Promise<Row> {
  const out = { ...s };
  const roles = await names(ctx, 'svc_roles');
  if (s.assign_type === 'role') out.assign_value = roles.idOf(s.assign_value, where);
  if (s.assign_type === 'user') out.assign_value = await userIdOf(ctx, s.assign_value, where);
  const options = isPlainObject(s.options) ? s.options : null;
  const esc = options?.escalate_to;
  if (isPlainObject(esc)) {
    out.options = { ...options, escalate_to: esc.user !== undefined ? { ...esc, user: await userIdOf(ctx, esc.user, where) } : { ...esc, role: roles.idOf(esc.role, where) } };
  }
  const config = isPlainObject(s.action_config) ? s.action_config : null;
  if (Array.isArray(config?.recipients)) {
    const ids: unknown[] = [];
    for (const r of config.recipients) ids.push(await userIdOf(ctx, r, where));
    out.action_config = { ...config, recipients: ids };
  }
  return out;
}

const transitionKey = (t: Row): string => `${String(t.from)}\u0000${String(t.to)}\u0000${String(t.trigger)}`;

async function workflowRows(ctx: ServiceContext): Promise<{ id: string; row: Row }[]> {
  const { data } = await listWorkflows(ctx, { limit: '-1' });
  requireUniqueNames(data as unknown as Row[], 'workflows');
  const roleNames = await names(ctx, 'svc_roles');
  const out: { id: string; row: Row }[] = [];
  for (const w of data) {
    const detail = await readWorkflow(ctx, w.id);
    const userIds: unknown[] = [];
    for (const s of detail.steps) {
      if (s.assign_type === 'user') userIds.push(s.assign_value);
      const esc = s.options?.escalate_to;
      if (isPlainObject(esc)) userIds.push(esc.user);
      if (Array.isArray(s.action_config?.recipients)) userIds.push(...s.action_config.recipients);
    }
    const emails = await emailsOf(ctx, userIds);
    const refs: Refs = { roleName: (id) => roleNames.nameOf(id) ?? id, email: (id) => (typeof id === 'string' ? emails.get(id) ?? id : id) };
    const keyOf = new Map(detail.steps.map((s) => [s.id, s.key]));
    const steps = detail.steps.map((s) => stepOut(s, refs)).sort((a, b) => byText(String(a.key), String(b.key)));
    const transitions = detail.transitions
      .map((t: TransitionRow) => ({ from: keyOf.get(t.from_step_id) ?? null, to: keyOf.get(t.to_step_id) ?? null, trigger: t.trigger, condition: t.condition ?? null }))
      .sort((a, b) => byText(transitionKey(a), transitionKey(b)));
    out.push({ id: w.id, row: { ...pick(w as unknown as Row, WORKFLOW_FIELDS), active: w.active, steps, transitions } });
  }
  return out.sort((a, b) => byText(String(a.row.name), String(b.row.name)));
}

async function addSteps(ctx: ServiceContext, workflowId: string, name: string, steps: Row[]): Promise<void> {
  for (const s of steps) await createStep(ctx, workflowId, await stepIn(ctx, pick(s, STEP_FIELDS.filter((f) => f in s)), `Workflow "${name}", step "${String(s.key)}"`));
}

async function addTransitions(ctx: ServiceContext, workflowId: string, name: string, transitions: Row[]): Promise<void> {
  const stepIds = new Map((await readWorkflow(ctx, workflowId)).steps.map((s) => [s.key, s.id]));
  for (const t of transitions) {
    const from = stepIds.get(String(t.from));
    const to = stepIds.get(String(t.to));
    if (!from || !to) throw new InvalidPayloadError(`Workflow "${name}": a transition names the step "${String(from ? t.to : t.from)}", which the workflow does not have.`);
    await createTransition(ctx, workflowId, { from_step_id: from, to_step_id: to, trigger: t.trigger, ...(t.condition ? { condition: t.condition } : {}) });
  }
}

const list = (v: unknown): Row[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

export const workflows: ConfigSection = {
  name: 'workflows',
  keyFields: ['name'],
  async read(ctx) {
    return (await workflowRows(ctx)).map((w) => w.row);
  },
  check(row, where) {
    onlyFields(row, [...WORKFLOW_FIELDS, 'active', 'steps', 'transitions'], where);
    need(row, 'name', where, 'string');
    need(row, 'collection', where, 'string');
    need(row, 'active', where, 'boolean');
    for (const f of ['steps', 'transitions']) if (row[f] !== undefined) need(row, f, where, 'array');
    list(row.steps).forEach((s, i) => {
      onlyFields(s, STEP_FIELDS, `${where}.steps[${i}]`);
      need(s, 'key', `${where}.steps[${i}]`, 'string');
    });
    list(row.transitions).forEach((t, i) => onlyFields(t, ['from', 'to', 'trigger', 'condition'], `${where}.transitions[${i}]`));
  },
  async create(ctx, row) {
    const name = String(row.name);
    const w = await createWorkflow(ctx, pick(row, WORKFLOW_FIELDS.filter((f) => f in row)));
    await addSteps(ctx, w.id, name, list(row.steps));
    await addTransitions(ctx, w.id, name, list(row.transitions));
    if (row.active) await activateWorkflow(ctx, w.id);
  },
  async update(ctx, from, to) {
    const found = (await workflowRows(ctx)).find((w) => w.row.name === from.name);
    if (!found) return;
    const name = String(to.name);
    const id = found.id;
    const graphChanges = stableJson(from.steps) !== stableJson(to.steps) || stableJson(from.transitions) !== stableJson(to.transitions);
    if (found.row.active && graphChanges) await deactivateWorkflow(ctx, id);
    const fields = changed(from, to, WORKFLOW_FIELDS);
    if (fields.length) await updateWorkflow(ctx, id, pick(to, fields));
    if (graphChanges) {
      const detail = await readWorkflow(ctx, id);
      const stepIds = new Map(detail.steps.map((s) => [s.key, s.id]));
      const keyOf = new Map(detail.steps.map((s) => [s.id, s.key]));
      const wanted = new Map(list(to.transitions).map((t) => [stableJson(t), t]));
      // Transitions first: a step can't go while one leads to it.
      for (const t of detail.transitions) {
        const mine = { from: keyOf.get(t.from_step_id) ?? null, to: keyOf.get(t.to_step_id) ?? null, trigger: t.trigger, condition: t.condition ?? null };
        if (!wanted.delete(stableJson(mine))) await deleteTransition(ctx, id, t.id);
      }
      const stepsBefore = new Map(list(from.steps).map((s) => [String(s.key), s]));
      const stepsAfter = list(to.steps);
      for (const [key, stepId] of stepIds) if (!stepsAfter.some((s) => s.key === key)) await deleteStep(ctx, id, stepId);
      for (const s of stepsAfter) {
        const was = stepsBefore.get(String(s.key));
        const stepId = stepIds.get(String(s.key));
        if (!stepId || !was) await addSteps(ctx, id, name, [s]);
        else {
          let diff = changed(was, s, STEP_VALUES);
          // An assignee is read with its type (a role name or a user email).
          if (diff.includes('assign_value') || diff.includes('assign_type')) diff = [...new Set([...diff, 'assign_type', 'assign_value'])];
          if (diff.length) await updateStep(ctx, id, stepId, await stepIn(ctx, pick(s, diff), `Workflow "${name}", step "${String(s.key)}"`));
        }
      }
      await addTransitions(ctx, id, name, [...wanted.values()]);
    }
    const active = (await readWorkflow(ctx, id)).active;
    if (to.active && !active) await activateWorkflow(ctx, id);
    if (!to.active && active) await deactivateWorkflow(ctx, id);
  },
  async remove(ctx, row) {
    const found = (await workflowRows(ctx)).find((w) => w.row.name === row.name);
    if (found) await deleteWorkflow(ctx, found.id);
  },
  describeRemoval: (row) => `Deletes the workflow "${String(row.name)}" with its steps, transitions and past instances.`,
};
