/** Activation (POST /workflows/{id}/activate): a workflow triggers only while active, and only a graph that can
 * run is activated: exactly one start step, an end step reachable from it, approval and notification steps with
 * assignees, condition steps with a condition. Otherwise 400 naming every problem: the message joins them, and
 * `extensions.problems` lists them one by one, each with the key of the step it is about (when it is about one),
 * so a designer can show each problem on its step. */
import { requireAppPermission } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run } from '../db/database.ts';
import { InvalidPayloadError } from '../errors.ts';
import { collectionOf, getWorkflow } from './definitions.ts';
import { isObject } from './input.ts';
import type { StepRow, TransitionRow, WorkflowRow } from './types.ts';

/** One reason a graph cannot run; `step` is the key of the step it is about. */
export interface GraphProblem { message: string; step?: string }

/** The problems that keep a graph from running (empty when it can be activated). */
export function graphProblems(steps: StepRow[], transitions: TransitionRow[]): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const starts = steps.filter((s) => s.type === 'start');
  if (starts.length !== 1) problems.push({ message: `A workflow needs exactly one start step (it has ${starts.length}).` });
  for (const s of steps) {
    if (s.type === 'approval' && (!s.assign_type || !s.assign_value)) problems.push({ message: `Approval step "${s.key}" has no assignees.`, step: s.key });
    if (s.type === 'notification' && (!s.assign_type || !s.assign_value)) problems.push({ message: `Notification step "${s.key}" has no recipients.`, step: s.key });
    if (s.type === 'condition' && !isObject(s.options?.condition) && !transitions.some((t) => t.from_step_id === s.id && t.condition)) {
      problems.push({ message: `Condition step "${s.key}" has no condition.`, step: s.key });
    }
  }
  if (starts.length === 1) {
    const seen = new Set([starts[0].id]);
    const queue = [starts[0].id];
    while (queue.length) {
      const id = queue.shift()!;
      for (const t of transitions) if (t.from_step_id === id && !seen.has(t.to_step_id)) { seen.add(t.to_step_id); queue.push(t.to_step_id); }
    }
    if (!steps.some((s) => s.type === 'end' && seen.has(s.id))) problems.push({ message: 'No end step is reachable from the start step.' });
  }
  return problems;
}

export async function activateWorkflow(ctx: ServiceContext, id: string): Promise<WorkflowRow> {
  await requireAppPermission(ctx, 'workflow:manage');
  return inTransaction(ctx.db, async (trx) => {
    const workflow = await getWorkflow(trx, id, true);
    collectionOf(ctx, workflow.collection);
    const steps = await run<StepRow>(trx, 'select * from svc_workflow_steps where workflow_id = $1 order by sort_order, key', [workflow.id]);
    const transitions = await run<TransitionRow>(trx, 'select * from svc_workflow_transitions where workflow_id = $1', [workflow.id]);
    const problems = graphProblems(steps, transitions);
    if (problems.length) {
      throw new InvalidPayloadError(`Invalid payload. ${problems.map((p) => p.message).join(' ')}`, { reason: 'graph_problems', problems });
    }
    const [row] = await run<WorkflowRow>(trx, 'update svc_workflows set active = true where id = $1 returning *', [workflow.id]);
    return row;
  });
}

export async function deactivateWorkflow(ctx: ServiceContext, id: string): Promise<WorkflowRow> {
  await requireAppPermission(ctx, 'workflow:manage');
  const workflow = await getWorkflow(ctx.db, id);
  const [row] = await run<WorkflowRow>(ctx.db, 'update svc_workflows set active = false where id = $1 returning *', [workflow.id]);
  return row;
}
