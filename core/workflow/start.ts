/** Starting a workflow (SPEC.md > Events 1, States > Workflow instance): a filter on `versions.submit`, inside the
 * submit's transaction. The active workflows bound to the version's collection are tried by name; the first
 * whose trigger filter holds for the item merged with the delta starts (one instance per submission, as
 * Directus-style flows start one). Starting needs workflow:start: without it the submit is refused (403) and
 * rolls back. The instance then runs from its start step to its first waiting step. */
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { requireAppPermission } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run, type Executor } from '../db/database.ts';
import type { FilterContext } from '../events/bus.ts';
import type { SchemaOverview } from '../schema/types.ts';
import { advance, openRun } from './engine.ts';
import { matchesFilter, readSubject } from './subject.ts';
import type { InstanceRow, WorkflowRow } from './types.ts';

export interface SubmittedVersion {
  id: string;
  collection: string;
  item: string;
  delta: unknown;
  user_created?: string | null;
}

/** Starts the first matching workflow for a submitted version; returns its instance id, or null. */
export async function startForVersion(context: FilterContext, version: SubmittedVersion): Promise<string | null> {
  const { ctx } = context;
  return inTransaction(ctx.db, (trx) => start({ ...ctx, db: trx }, trx, version));
}

/** The workflow a submit of this version would start: the first active one (by name) bound to its collection whose
 * trigger filter holds for the item merged with the delta; null when none does. Read as the engine reads it, whatever
 * the caller may see of workflows (the MCP server asks before it submits an agent's draft: core/mcp/drafts.ts). */
export async function matchingWorkflow(db: Executor, schema: SchemaOverview, version: Omit<SubmittedVersion, 'id'>): Promise<WorkflowRow | null> {
  const workflows = await run<WorkflowRow>(db, `select * from svc_workflows
    where active and collection = $1 and trigger_event = 'versions.submit' order by name, id`, [version.collection]);
  if (workflows.length === 0) return null;
  const subject = await readSubject(db, schema, version.collection, version.item, version.delta);
  return workflows.find((w) => matchesFilter(w.trigger_filter, subject)) ?? null;
}

async function start(ctx: ServiceContext, trx: Transaction<any>, version: SubmittedVersion): Promise<string | null> {
  const workflow = await matchingWorkflow(trx, ctx.schema, version);
  if (!workflow) return null;
  await requireAppPermission(ctx, 'workflow:start');
  const startedBy = ctx.accountability.user;
  const [instance] = await run<InstanceRow>(trx, `insert into svc_workflow_instances (id, workflow_id, collection, item, version_id, status, started_by)
    values ($1, $2, $3, $4, $5, 'running', $6) returning *`, [randomUUID(), workflow.id, version.collection, version.item, version.id, startedBy]);
  const r = await openRun(ctx, trx, instance, startedBy);
  const start = r.steps.find((s) => s.type === 'start');
  if (!start) return instance.id;
  await run(trx, `insert into svc_workflow_instance_steps (id, instance_id, step_id, status, activated_at, completed_at, result)
    values ($1, $2, $3, 'approved', clock_timestamp(), clock_timestamp(), 'started')`, [randomUUID(), instance.id, start.id]);
  await advance(r, start.id, 'always');
  return instance.id;
}
