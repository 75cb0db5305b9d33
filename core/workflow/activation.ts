/** Activation (POST /workflows/{id}/activate): a workflow triggers only while active, and only a graph that can
 * run is activated (./problems.ts). Otherwise 400 naming every problem: the message joins them, and
 * `extensions.problems` lists them one by one, each with the key of the step it is about (when it is about one),
 * so a designer can show each problem on its step. */
import { requireAppPermission } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run } from '../db/database.ts';
import { InvalidPayloadError } from '../errors.ts';
import { collectionOf, getWorkflow } from './definitions.ts';
import { graphProblems } from './problems.ts';
import type { StepRow, TransitionRow, WorkflowRow } from './types.ts';

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
