/** Reading an instance (GET /workflow-instances/{id}) and the admin cancel (SPEC.md > States > Workflow
 * instance: running -> cancelled, the pending version returns to draft). */
import { hasAppPermission } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run, type Executor } from '../db/database.ts';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import { setVersionStatus } from '../versions/status.ts';
import { logAction } from './actions.ts';
import { announceTasks } from './engine.ts';
import { comment as readComment, invalid, pathId } from './input.ts';
import type { InstanceRow, InstanceStepRow, StepRow } from './types.ts';

export interface InstanceDetail extends InstanceRow {
  /** The workflow's name, so a reader without workflow:view can still say which workflow this is. */
  workflow_name: string | null;
  instance_steps: InstanceStepRow[];
  actions: Record<string, unknown>[];
  workflow_steps: StepRow[];
}

/** workflow:view, an administrator, or a participant (starter, assignee of any of its steps, or actor). */
export async function readInstance(ctx: ServiceContext, id: string): Promise<InstanceDetail> {
  const key = pathId(id);
  const [instance] = key ? await run<InstanceRow & { workflow_name: string | null }>(ctx.db, `select i.*, w.name as workflow_name
    from svc_workflow_instances i left join svc_workflows w on w.id = i.workflow_id where i.id = $1`, [key]) : [];
  if (!instance) throw new NotFoundError('Workflow instance not found.');
  const instanceSteps = await run<InstanceStepRow>(ctx.db, 'select * from svc_workflow_instance_steps where instance_id = $1 order by activated_at, id', [instance.id]);
  const actions = await run<Record<string, unknown>>(ctx.db, 'select * from svc_workflow_actions where instance_id = $1 order by created_at, id', [instance.id]);
  if (!(await hasAppPermission(ctx, 'workflow:view'))) {
    const user = ctx.accountability.user;
    const participant = user !== null && (instance.started_by === user
      || instanceSteps.some((s) => (s.assignees ?? []).includes(user)) || actions.some((a) => a.user_id === user));
    if (!participant) throw new ForbiddenError();
  }
  const workflowSteps = await run<StepRow>(ctx.db, 'select * from svc_workflow_steps where workflow_id = $1 order by sort_order, key', [instance.workflow_id]);
  return { ...instance, instance_steps: instanceSteps, actions, workflow_steps: workflowSteps };
}

/** The running instance of a submitted version, or null (the MCP server names it to the agent whose draft it reviews). */
export async function runningInstanceOf(db: Executor, versionId: string): Promise<string | null> {
  const [row] = await run<{ id: string }>(db, "select id from svc_workflow_instances where version_id = $1 and status = 'running' order by started_at desc limit 1", [versionId]);
  return row?.id ?? null;
}

/** Admin only. A finished instance cannot be cancelled (400, nothing changes). */
export async function cancelInstance(ctx: ServiceContext, id: string, raw: unknown): Promise<InstanceRow> {
  if (!ctx.accountability.admin) throw new ForbiddenError();
  const { comment } = readComment(raw, false);
  return inTransaction(ctx.db, async (trx) => {
    const key = pathId(id);
    const [instance] = key ? await run<InstanceRow>(trx, 'select * from svc_workflow_instances where id = $1 for update', [key]) : [];
    if (!instance) throw new NotFoundError('Workflow instance not found.');
    if (instance.status !== 'running') throw invalid(`The workflow instance is already ${instance.status}.`);
    await run(trx, "update svc_workflow_instance_steps set status = 'cancelled', completed_at = clock_timestamp() where instance_id = $1 and status in ('active', 'pending')", [instance.id]);
    await logAction(trx, { instanceId: instance.id, instanceStepId: null, user: ctx.accountability.user, kind: 'cancel', comment });
    announceTasks(ctx, trx, instance.id);
    if (instance.version_id) {
      const [version] = await run<{ status: string }>(trx, 'select status from svc_versions where id = $1 for update', [instance.version_id]);
      if (version?.status === 'pending') await setVersionStatus(trx, instance.version_id, 'draft');
    }
    const [row] = await run<InstanceRow>(trx, "update svc_workflow_instances set status = 'cancelled', completed_at = clock_timestamp() where id = $1 returning *", [instance.id]);
    return row;
  });
}
