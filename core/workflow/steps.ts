/** Steps and transitions of a workflow (SPEC.md > Workflow resources). Every field is checked (types, modes,
 * assignees that exist, fields of the workflow's collection, transitions between steps of this workflow with a
 * trigger that fits the step kind). The graph of an active workflow is frozen: deactivate it to change it. */
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run, type Executor } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import { isUuid } from '../uuid.ts';
import { userExists } from '../users/table.ts';
import { checkFilter, editableGraph, json, refuseRunning } from './definitions.ts';
import { body, integer, invalid, isObject, object, oneOf, pathId, text, uuid, type Body } from './input.ts';
import {
  ACTION_TYPES, APPROVAL_MODES, ASSIGN_TYPES, STEP_TYPES, TIMEOUT_ACTIONS, TRANSITION_TRIGGERS,
  type StepRow, type TransitionRow, type WorkflowRow,
} from './types.ts';

const STEP_FIELDS = ['key', 'name', 'type', 'assign_type', 'assign_value', 'approval_mode', 'sort_order', 'action_type',
  'action_config', 'options', 'timeout_minutes', 'timeout_action'] as const;
const TRANSITION_FIELDS = ['from_step_id', 'to_step_id', 'trigger', 'condition'] as const;
const KEY_PATTERN = /^[A-Za-z0-9_-]+$/;
const MAX_TIMEOUT_MINUTES = 525_600;

async function checkStep(ctx: ServiceContext, db: Executor, workflow: WorkflowRow, merged: Record<string, unknown>): Promise<void> {
  const type = merged.type as string;
  const assignType = merged.assign_type as string | null;
  const value = merged.assign_value as string | null;
  if (assignType && value) {
    if (assignType === 'role') {
      const [role] = isUuid(value) ? await run(db, 'select 1 from svc_roles where id = $1', [value]) : [];
      if (!role) throw invalid(`Role "${value}" does not exist.`, 'assign_value');
    } else if (assignType === 'user') {
      if (!isUuid(value) || !await userExists(db, value)) throw invalid(`User "${value}" does not exist.`, 'assign_value');
    } else if (!ctx.schema.collections[workflow.collection]?.fields[value]) {
      throw invalid(`Field "${value}" does not exist in "${workflow.collection}".`, 'assign_value');
    }
  } else if (assignType && !value) {
    throw invalid('"assign_value" is required with "assign_type".', 'assign_value');
  }
  if (type === 'action') {
    const action = merged.action_type as string | null;
    if (!action) throw invalid('"action_type" is required for action steps.', 'action_type');
    if (action === 'update_field') {
      const config = merged.action_config as Record<string, unknown> | null;
      const field = config?.field;
      if (typeof field !== 'string' || !Object.hasOwn(config!, 'value')) throw invalid('update_field needs "action_config" {field, value}.', 'action_config');
      const f = ctx.schema.collections[workflow.collection]?.fields[field];
      if (!f || f.alias || f.isPrimaryKey) throw invalid(`Field "${field}" cannot be updated in "${workflow.collection}".`, 'action_config');
    } else if (action === 'send_notification') {
      await checkNotificationConfig(db, merged.action_config as Record<string, unknown> | null);
    }
  } else if (merged.action_type) {
    throw invalid('"action_type" is only for action steps.', 'action_type');
  }
  const options = merged.options as Record<string, unknown> | null;
  if (type === 'condition' && options?.condition !== undefined) checkFilter(options.condition, 'options.condition');
  const escalate = options?.escalate_to;
  if (escalate !== undefined && escalate !== null) {
    if (!isObject(escalate)) throw invalid('"options.escalate_to" must be {user} or {role}.', 'options');
    const target = escalate.user ?? escalate.role;
    const found = isUuid(target) && (escalate.user !== undefined
      ? await userExists(db, target)
      : (await run(db, 'select 1 from svc_roles where id = $1', [target])).length > 0);
    if (!found) throw invalid('"options.escalate_to" names no existing user or role.', 'options');
  }
  const minutes = merged.timeout_minutes;
  const timeoutAction = merged.timeout_action;
  if ((minutes === null) !== (timeoutAction === null)) throw invalid('"timeout_minutes" and "timeout_action" go together.', 'timeout_action');
  if (minutes !== null && type !== 'approval') throw invalid('Only approval steps have a timeout.', 'timeout_minutes');
}

/** send_notification's action_config: an optional `template_id` (an existing notification template, sent to the
 * step's recipients through its channels; it must be published when the step runs), or an in-app `subject` and
 * `message`; optional `recipients` (user ids) beside the step's assignees. */
async function checkNotificationConfig(db: Executor, config: Record<string, unknown> | null): Promise<void> {
  if (!config) return;
  for (const key of Object.keys(config)) {
    if (!['template_id', 'subject', 'message', 'recipients'].includes(key)) throw invalid(`send_notification's "action_config" has no "${key}".`, 'action_config');
  }
  for (const key of ['subject', 'message'] as const) {
    if (config[key] !== undefined && config[key] !== null && typeof config[key] !== 'string') throw invalid(`"action_config.${key}" must be a string.`, 'action_config');
  }
  const recipients = config.recipients;
  if (recipients !== undefined && recipients !== null && (!Array.isArray(recipients) || !recipients.every((r) => isUuid(r)))) {
    throw invalid('"action_config.recipients" must be a list of user ids.', 'action_config');
  }
  const template = config.template_id;
  if (template === undefined || template === null) return;
  const [found] = typeof template === 'string' ? await run(db, 'select 1 from svc_notify_templates where id = $1', [template]) : [];
  if (!found) throw invalid(`Notification template "${String(template).slice(0, 64)}" does not exist.`, 'action_config');
}

function stepValues(b: Body, create: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const key = text(b, 'key', { required: create, max: 64, pattern: KEY_PATTERN });
  if (key !== undefined) out.key = key;
  const name = text(b, 'name', { max: 255 });
  if (name !== undefined) out.name = name;
  else if (create) out.name = key;
  const type = oneOf(b, 'type', STEP_TYPES, create);
  if (type !== undefined) out.type = type;
  const assignType = oneOf(b, 'assign_type', ASSIGN_TYPES);
  if (assignType !== undefined) out.assign_type = assignType;
  if (b.assign_value !== undefined) out.assign_value = b.assign_value === null ? null : text(b, 'assign_value', { max: 255 });
  const mode = oneOf(b, 'approval_mode', APPROVAL_MODES);
  if (mode === null) throw invalid('"approval_mode" must be one of any, all, majority.', 'approval_mode');
  if (mode !== undefined) out.approval_mode = mode;
  const sort = integer(b, 'sort_order', -1_000_000, 1_000_000);
  if (sort !== undefined) out.sort_order = sort ?? 0;
  const action = oneOf(b, 'action_type', ACTION_TYPES);
  if (action !== undefined) out.action_type = action;
  for (const field of ['action_config', 'options'] as const) {
    const v = object(b, field);
    if (v !== undefined) out[field] = v;
  }
  const minutes = integer(b, 'timeout_minutes', 1, MAX_TIMEOUT_MINUTES);
  if (minutes !== undefined) out.timeout_minutes = minutes;
  const timeoutAction = oneOf(b, 'timeout_action', TIMEOUT_ACTIONS);
  if (timeoutAction !== undefined) out.timeout_action = timeoutAction;
  return out;
}

const STEP_DEFAULTS: Record<string, unknown> = {
  assign_type: null, assign_value: null, approval_mode: 'any', sort_order: 0, action_type: null, action_config: null,
  options: null, timeout_minutes: null, timeout_action: null,
};

const stepParam = (k: string, v: unknown): unknown => (k === 'action_config' || k === 'options' ? json(v) : v);

export async function createStep(ctx: ServiceContext, workflowId: string, raw: unknown): Promise<StepRow> {
  const values = stepValues(body(raw, STEP_FIELDS), true);
  return inTransaction(ctx.db, async (trx) => {
    const workflow = await editableGraph(ctx, trx, workflowId);
    const merged = { ...STEP_DEFAULTS, ...values };
    await checkStep(ctx, trx, workflow, merged);
    const [dup] = await run(trx, 'select 1 from svc_workflow_steps where workflow_id = $1 and key = $2', [workflow.id, merged.key]);
    if (dup) throw invalid(`A step with key "${String(merged.key)}" already exists.`, 'key');
    const cols = ['id', 'workflow_id', ...Object.keys(merged)];
    const params = [randomUUID(), workflow.id, ...Object.entries(merged).map(([k, v]) => stepParam(k, v))];
    const [row] = await run<StepRow>(trx, `insert into svc_workflow_steps (${cols.join(', ')}) values (${cols.map((c, i) => `$${i + 1}${c === 'action_config' || c === 'options' ? '::json' : ''}`).join(', ')}) returning *`, params);
    return row;
  });
}

async function getStep(db: Executor, workflowId: string, stepId: string): Promise<StepRow> {
  const key = pathId(stepId);
  const [row] = key ? await run<StepRow>(db, 'select * from svc_workflow_steps where id = $1 and workflow_id = $2', [key, workflowId]) : [];
  if (!row) throw new NotFoundError('Step not found.');
  return row;
}

export async function updateStep(ctx: ServiceContext, workflowId: string, stepId: string, raw: unknown): Promise<StepRow> {
  const values = stepValues(body(raw, STEP_FIELDS), false);
  return inTransaction(ctx.db, async (trx) => {
    const workflow = await editableGraph(ctx, trx, workflowId);
    const current = await getStep(trx, workflow.id, stepId);
    const merged = { ...current, ...values };
    await checkStep(ctx, trx, workflow, merged);
    if (values.key !== undefined && values.key !== current.key) {
      const [dup] = await run(trx, 'select 1 from svc_workflow_steps where workflow_id = $1 and key = $2', [workflow.id, values.key]);
      if (dup) throw invalid(`A step with key "${String(values.key)}" already exists.`, 'key');
    }
    const entries = Object.entries(values);
    if (entries.length === 0) return current;
    const sets = entries.map(([k], i) => `${k} = $${i + 2}${k === 'action_config' || k === 'options' ? '::json' : ''}`);
    const [row] = await run<StepRow>(trx, `update svc_workflow_steps set ${sets.join(', ')} where id = $1 returning *`, [current.id, ...entries.map(([k, v]) => stepParam(k, v))]);
    return row;
  });
}

export async function deleteStep(ctx: ServiceContext, workflowId: string, stepId: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const workflow = await editableGraph(ctx, trx, workflowId);
    const step = await getStep(trx, workflow.id, stepId);
    await refuseRunning(trx, workflow.id, 'changed');
    await run(trx, 'delete from svc_workflow_steps where id = $1', [step.id]);
  });
}

export async function createTransition(ctx: ServiceContext, workflowId: string, raw: unknown): Promise<TransitionRow> {
  const b = body(raw, TRANSITION_FIELDS);
  const from = uuid(b, 'from_step_id', true)!;
  const to = uuid(b, 'to_step_id', true)!;
  const trigger = oneOf(b, 'trigger', TRANSITION_TRIGGERS, true)!;
  const condition = object(b, 'condition');
  if (condition) checkFilter(condition, 'condition');
  if (condition && trigger !== 'condition') throw invalid('"condition" is only for condition transitions.', 'condition');
  return inTransaction(ctx.db, async (trx) => {
    const workflow = await editableGraph(ctx, trx, workflowId);
    const steps = await run<{ id: string; type: string }>(trx, 'select id, type from svc_workflow_steps where workflow_id = $1 and id = any($2::uuid[])', [workflow.id, [from, to]]);
    const source = steps.find((s) => s.id === from);
    if (!source) throw invalid('"from_step_id" is not a step of this workflow.', 'from_step_id');
    if (!steps.some((s) => s.id === to)) throw invalid('"to_step_id" is not a step of this workflow.', 'to_step_id');
    if (source.type === 'end') throw invalid('An end step has no outgoing transitions.', 'from_step_id');
    if ((trigger === 'approve' || trigger === 'reject') && source.type !== 'approval') throw invalid(`"${trigger}" transitions leave approval steps only.`, 'trigger');
    if (trigger === 'condition' && source.type !== 'condition') throw invalid('"condition" transitions leave condition steps only.', 'trigger');
    const [row] = await run<TransitionRow>(trx, `insert into svc_workflow_transitions (id, workflow_id, from_step_id, to_step_id, trigger, condition)
      values ($1, $2, $3, $4, $5, $6::json) returning *`, [randomUUID(), workflow.id, from, to, trigger, json(condition)]);
    return row;
  });
}

export async function deleteTransition(ctx: ServiceContext, workflowId: string, transitionId: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const workflow = await editableGraph(ctx, trx, workflowId);
    const key = pathId(transitionId);
    const rows = key ? await run(trx, 'delete from svc_workflow_transitions where id = $1 and workflow_id = $2 returning id', [key, workflow.id]) : [];
    if (rows.length === 0) throw new NotFoundError('Transition not found.');
  });
}
