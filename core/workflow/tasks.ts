/** What reviewers do on an active step (SPEC.md > Workflow): approve, reject (comment required), delegate,
 * comment. The caller must hold workflow:participate and be an assignee of the step (a comment may also come
 * from the instance's starter or an administrator). The instance and the step row are locked (`for update`), so
 * concurrent decisions on one step are taken one after the other; every refusal leaves every row as it was. */
import type { Transaction } from 'kysely';
import { hasAppPermission } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run } from '../db/database.ts';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import { activeUserId } from '../users/table.ts';
import { logAction } from './actions.ts';
import { canParticipate } from './assignees.ts';
import { notifyUsers } from './notify.ts';
import { applyApproval, applyRejection } from './decisions.ts';
import { openRun, type EngineRun } from './engine.ts';
import { comment as readComment, invalid, pathId, uuid } from './input.ts';
import type { InstanceRow, InstanceStepRow, StepRow } from './types.ts';

export interface LockedStep { r: EngineRun; is: InstanceStepRow; step: StepRow }

/** The instance (running) and its step (active), locked in `trx`. `stepId` names the instance step, or the
 * workflow step (its latest instance step). */
export async function lockStep(ctx: ServiceContext, trx: Transaction<any>, instanceId: string, stepId: string, actor: string | null): Promise<LockedStep> {
  const iid = pathId(instanceId);
  const sid = pathId(stepId);
  const [instance] = iid ? await run<InstanceRow>(trx, 'select * from svc_workflow_instances where id = $1 for update', [iid]) : [];
  if (!instance) throw new NotFoundError('Workflow instance not found.');
  const [is] = sid ? await run<InstanceStepRow>(trx, `select * from svc_workflow_instance_steps where instance_id = $1 and (id = $2 or step_id = $2)
    order by (status = 'active') desc, activated_at desc limit 1 for update`, [instance.id, sid]) : [];
  if (!is) throw new NotFoundError('Workflow step not found.');
  if (instance.status !== 'running') throw invalid(`The workflow instance is ${instance.status}.`);
  if (is.status !== 'active') throw invalid(`The step is not active (it is ${is.status}).`);
  const r = await openRun(ctx, trx, instance, actor);
  const step = r.steps.find((s) => s.id === is.step_id)!;
  return { r, is, step };
}

async function asAssignee(ctx: ServiceContext, locked: LockedStep): Promise<string> {
  const user = ctx.accountability.user;
  if (!user || !(await hasAppPermission(ctx, 'workflow:participate'))) throw new ForbiddenError();
  if (!(locked.is.assignees ?? []).includes(user)) throw new ForbiddenError('You are not an assignee of this step.');
  return user;
}

export interface DecisionResult { id: string; instance_id: string; step_id: string; status: string; instance_status: string }

async function decide(ctx: ServiceContext, instanceId: string, stepId: string, fn: (l: LockedStep, user: string) => Promise<void>): Promise<DecisionResult> {
  return inTransaction(ctx.db, async (trx) => {
    const locked = await lockStep({ ...ctx, db: trx }, trx, instanceId, stepId, ctx.accountability.user);
    const user = await asAssignee({ ...ctx, db: trx }, locked);
    await fn(locked, user);
    const [after] = await run<{ status: string; instance_status: string }>(trx, `select s.status, i.status as instance_status
      from svc_workflow_instance_steps s join svc_workflow_instances i on i.id = s.instance_id where s.id = $1`, [locked.is.id]);
    return { id: locked.is.id, instance_id: locked.r.instance.id, step_id: locked.step.id, ...after };
  });
}

export async function approveStep(ctx: ServiceContext, instanceId: string, stepId: string, raw: unknown): Promise<DecisionResult> {
  const { comment } = readComment(raw, false);
  return decide(ctx, instanceId, stepId, async ({ r, is, step }, user) => {
    if (is.approvals.some((a) => a.user === user)) throw invalid('You have already approved this step.');
    await applyApproval(r, is, step, user, comment);
  });
}

export async function rejectStep(ctx: ServiceContext, instanceId: string, stepId: string, raw: unknown): Promise<DecisionResult> {
  const { comment } = readComment(raw, true);
  return decide(ctx, instanceId, stepId, ({ r, is, step }, user) => applyRejection(r, is, step, user, comment));
}

/** Hands the caller's part of the task to `to_user` (an active user who can take part in workflows): the step's
 * assignees are updated and the new assignee is notified. */
export async function delegateStep(ctx: ServiceContext, instanceId: string, stepId: string, raw: unknown): Promise<DecisionResult> {
  const { comment, body } = readComment(raw, false, ['to_user']);
  const to = uuid(body, 'to_user', true)!;
  return decide(ctx, instanceId, stepId, async ({ r, is }, user) => {
    if (to === user) throw invalid('"to_user" is the caller.', 'to_user');
    if (await activeUserId(r.trx, to) === null) throw invalid('"to_user" is not an active user.', 'to_user');
    if (!(await canParticipate(r.trx, to))) throw invalid('"to_user" cannot take part in workflows (workflow:participate).', 'to_user');
    const assignees = [...new Set((is.assignees ?? []).map((u) => (u === user ? to : u)))];
    await run(r.trx, 'update svc_workflow_instance_steps set assignees = $2::json where id = $1', [is.id, JSON.stringify(assignees)]);
    await logAction(r.trx, { instanceId: r.instance.id, instanceStepId: is.id, user, kind: 'delegate', comment, toUser: to });
    await notifyUsers(r.trx, { recipients: [to], sender: user, subject: 'A workflow task was delegated to you', message: comment, collection: r.instance.collection, item: r.instance.item, events: r.ctx.events });
  });
}

/** A comment on an active step: by an assignee (with workflow:participate), the instance's starter, or an admin. */
export async function commentStep(ctx: ServiceContext, instanceId: string, stepId: string, raw: unknown): Promise<DecisionResult> {
  const { comment } = readComment(raw, true);
  return inTransaction(ctx.db, async (trx) => {
    const locked = await lockStep({ ...ctx, db: trx }, trx, instanceId, stepId, ctx.accountability.user);
    const user = ctx.accountability.user;
    const allowed = ctx.accountability.admin || (user !== null && user === locked.r.instance.started_by);
    if (!allowed) await asAssignee({ ...ctx, db: trx }, locked);
    await logAction(trx, { instanceId: locked.r.instance.id, instanceStepId: locked.is.id, user, kind: 'comment', comment });
    return { id: locked.is.id, instance_id: locked.r.instance.id, step_id: locked.step.id, status: locked.is.status, instance_status: locked.r.instance.status };
  });
}
