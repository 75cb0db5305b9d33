/** Workflow definitions (SPEC.md > Workflow): the workflow records. Reads need workflow:view (or manage), writes
 * workflow:manage; admins hold both. Steps and transitions: steps.ts; activation: activation.ts. */
import { randomUUID } from 'node:crypto';
import { hasAppPermission, requireAppPermission } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run, type Executor } from '../db/database.ts';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import { FILTER_OPERATORS } from '../query/types.ts';
import { pageOf, pageSql } from './paging.ts';
import { body, invalid, isObject, oneOf, pathId, text, type Body } from './input.ts';
import { graphProblems, type GraphProblem } from './problems.ts';
import { TRIGGER_EVENTS, type StepRow, type TransitionRow, type WorkflowRow } from './types.ts';

const WORKFLOW_FIELDS = ['name', 'description', 'collection', 'trigger_event', 'trigger_filter'] as const;

export async function requireView(ctx: ServiceContext): Promise<void> {
  if (!(await hasAppPermission(ctx, 'workflow:view')) && !(await hasAppPermission(ctx, 'workflow:manage'))) throw new ForbiddenError();
}

export const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));

/** A filter: an object whose `_and`/`_or` hold filters and whose other keys hold operators or nested filters. */
export function checkFilter(value: unknown, field: string, depth = 0): void {
  if (!isObject(value) || depth > 10) throw invalid(`"${field}" must be a filter object.`, field);
  for (const [key, rule] of Object.entries(value)) {
    if (key === '_and' || key === '_or') {
      if (!Array.isArray(rule)) throw invalid(`"${field}": ${key} must be an array.`, field);
      for (const part of rule) checkFilter(part, field, depth + 1);
    } else if (key.startsWith('_')) {
      if (!FILTER_OPERATORS.has(key)) throw invalid(`"${field}": unknown operator "${key}".`, field);
    } else {
      checkFilter(rule, field, depth + 1);
    }
  }
}

export function collectionOf(ctx: ServiceContext, name: string): void {
  const c = ctx.schema.collections[name];
  if (!c || c.folder || !c.primary) throw invalid(`Collection "${name}" does not exist.`, 'collection');
}

export async function getWorkflow(db: Executor, id: string, lock = false): Promise<WorkflowRow> {
  const key = pathId(id);
  const [row] = key ? await run<WorkflowRow>(db, `select * from svc_workflows where id = $1${lock ? ' for update' : ''}`, [key]) : [];
  if (!row) throw new NotFoundError('Workflow not found.');
  return row;
}

/** GET /workflows' query: `search` (in the name and the collection), `limit` (QUERY_LIMIT_DEFAULT by default, -1
 * for all, at most QUERY_LIMIT_MAX), `page` or `offset`, and `meta` (total_count, filter_count) as for items. */
export interface WorkflowListQuery { search?: string; limit?: string; page?: string; offset?: string; meta?: string }

export interface WorkflowListRow extends WorkflowRow { step_count: number }

/** Workflows by name, a page at a time, each with its number of steps. */
export async function listWorkflows(ctx: ServiceContext, query: WorkflowListQuery = {}): Promise<{ data: WorkflowListRow[]; meta?: Record<string, number> }> {
  await requireView(ctx);
  const page = pageOf(ctx, query, ctx.config.queryLimitDefault);
  const search = query.search?.trim() ? `%${query.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = search ? 'where w.name ilike $1 or w.collection ilike $1' : '';
  const params: unknown[] = search ? [search] : [];
  const paging = [...params];
  const rows = await run<WorkflowListRow>(ctx.db, `select w.*, (select count(*) from svc_workflow_steps s where s.workflow_id = w.id)::int as step_count
    from svc_workflows w ${where} order by w.name, w.id${pageSql(page, paging)}`, paging);
  const wanted = (query.meta ?? '').split(',').map((m) => m.trim());
  if (!wanted.some((m) => m === '*' || m === 'total_count' || m === 'filter_count')) return { data: rows };
  const meta: Record<string, number> = {};
  if (wanted.includes('*') || wanted.includes('total_count')) {
    const [all] = await run<{ n: number }>(ctx.db, 'select count(*)::int as n from svc_workflows');
    meta.total_count = all.n;
  }
  if (wanted.includes('*') || wanted.includes('filter_count')) {
    const [found] = await run<{ n: number }>(ctx.db, `select count(*)::int as n from svc_workflows w ${where}`, params);
    meta.filter_count = found.n;
  }
  return { data: rows, meta };
}

/** A workflow with its graph, and what keeps the graph from being activated (empty when it can be). */
export interface WorkflowDetail extends WorkflowRow { steps: StepRow[]; transitions: TransitionRow[]; problems: GraphProblem[] }

export async function readWorkflow(ctx: ServiceContext, id: string): Promise<WorkflowDetail> {
  await requireView(ctx);
  const workflow = await getWorkflow(ctx.db, id);
  const steps = await run<StepRow>(ctx.db, 'select * from svc_workflow_steps where workflow_id = $1 order by sort_order, key', [workflow.id]);
  const transitions = await run<TransitionRow>(ctx.db, 'select * from svc_workflow_transitions where workflow_id = $1 order by id', [workflow.id]);
  return { ...workflow, steps, transitions, problems: graphProblems(steps, transitions) };
}

function workflowValues(ctx: ServiceContext, b: Body, create: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const name = text(b, 'name', { required: create, max: 255 });
  if (name !== undefined) out.name = name;
  if (b.description !== undefined) {
    if (b.description !== null && typeof b.description !== 'string') throw invalid('"description" must be a string.', 'description');
    out.description = b.description;
  }
  const collection = text(b, 'collection', { required: create, max: 64 });
  if (collection !== undefined) {
    collectionOf(ctx, collection);
    out.collection = collection;
  }
  const trigger = oneOf(b, 'trigger_event', TRIGGER_EVENTS);
  if (trigger === null) throw invalid('"trigger_event" must be one of versions.submit.', 'trigger_event');
  if (trigger !== undefined) out.trigger_event = trigger;
  else if (create) out.trigger_event = 'versions.submit';
  if (b.trigger_filter !== undefined) {
    if (b.trigger_filter !== null) checkFilter(b.trigger_filter, 'trigger_filter');
    out.trigger_filter = json(b.trigger_filter);
  }
  return out;
}

export async function createWorkflow(ctx: ServiceContext, raw: unknown): Promise<WorkflowRow> {
  await requireAppPermission(ctx, 'workflow:manage');
  const values = workflowValues(ctx, body(raw, WORKFLOW_FIELDS), true);
  const [row] = await run<WorkflowRow>(ctx.db, `insert into svc_workflows (id, name, description, collection, trigger_event, trigger_filter, user_created)
    values ($1, $2, $3, $4, $5, $6::json, $7) returning *`,
  [randomUUID(), values.name, values.description ?? null, values.collection, values.trigger_event, values.trigger_filter ?? null, ctx.accountability.user]);
  return row;
}

export async function updateWorkflow(ctx: ServiceContext, id: string, raw: unknown): Promise<WorkflowRow> {
  await requireAppPermission(ctx, 'workflow:manage');
  const values = workflowValues(ctx, body(raw, WORKFLOW_FIELDS), false);
  return inTransaction(ctx.db, async (trx) => {
    const current = await getWorkflow(trx, id, true);
    const entries = Object.entries(values);
    if (entries.length === 0) return current;
    const sets = entries.map(([k], i) => `${k} = $${i + 2}${k === 'trigger_filter' ? '::json' : ''}`);
    const [row] = await run<WorkflowRow>(trx, `update svc_workflows set ${sets.join(', ')} where id = $1 returning *`, [current.id, ...entries.map(([, v]) => v)]);
    return row;
  });
}

export async function deleteWorkflow(ctx: ServiceContext, id: string): Promise<void> {
  await requireAppPermission(ctx, 'workflow:manage');
  await inTransaction(ctx.db, async (trx) => {
    const workflow = await getWorkflow(trx, id, true);
    await refuseRunning(trx, workflow.id, 'deleted');
    await run(trx, 'delete from svc_workflows where id = $1', [workflow.id]);
  });
}

export async function refuseRunning(db: Executor, workflowId: string, verb: string): Promise<void> {
  const [running] = await run(db, "select 1 from svc_workflow_instances where workflow_id = $1 and status = 'running' limit 1", [workflowId]);
  if (running) throw invalid(`The workflow has running instances and cannot be ${verb}; cancel them first.`);
}

/** The workflow, locked, for a change of its graph: refused while it is active. */
export async function editableGraph(ctx: ServiceContext, db: Executor, id: string): Promise<WorkflowRow> {
  await requireAppPermission(ctx, 'workflow:manage');
  const workflow = await getWorkflow(db, id, true);
  if (workflow.active) throw invalid('The workflow is active; deactivate it before changing its steps or transitions.');
  return workflow;
}
