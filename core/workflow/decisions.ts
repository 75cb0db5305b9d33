/** Approving and rejecting an active approval step, by a user or by the system (timeouts). Both run in the
 * caller's transaction with the instance and its step locked; a final approval promotes the version in that same
 * transaction, so when promotion fails nothing of the approval is kept. */
import { setVersionStatus } from '../versions/status.ts';
import { run } from '../db/database.ts';
import { logAction } from './actions.ts';
import { advance, type EngineRun } from './engine.ts';
import type { Approval, InstanceStepRow, StepRow } from './types.ts';

/** Whether the approvals given so far decide the step under its approval mode. */
export function approvalReached(mode: StepRow['approval_mode'], assignees: readonly string[], approvals: readonly Approval[]): boolean {
  if (approvals.some((a) => a.system)) return true;
  const approvers = new Set(approvals.map((a) => a.user).filter((u): u is string => u !== null && assignees.includes(u)));
  if (mode === 'all') return assignees.every((u) => approvers.has(u));
  if (mode === 'majority') return approvers.size * 2 > assignees.length;
  return approvers.size > 0;
}

/** Records an approval (user null: the system); completes the step and moves on when the mode is reached.
 * Returns whether the step completed. */
export async function applyApproval(r: EngineRun, is: InstanceStepRow, step: StepRow, user: string | null, comment: string | null): Promise<boolean> {
  const approvals: Approval[] = [...is.approvals, user === null ? { user: null, timestamp: new Date().toISOString(), system: true } : { user, timestamp: new Date().toISOString() }];
  await logAction(r.trx, { instanceId: r.instance.id, instanceStepId: is.id, user, kind: 'approve', comment });
  const done = approvalReached(step.approval_mode, is.assignees ?? [], approvals);
  await run(r.trx, `update svc_workflow_instance_steps set approvals = $2::json,
    status = case when $3 then 'approved' else status end, result = case when $3 then 'approved' else result end,
    completed_at = case when $3 then clock_timestamp() else completed_at end where id = $1`, [is.id, JSON.stringify(approvals), done]);
  if (done) await advance(r, step.id, 'approve');
  return done;
}

/** Rejects the step: the version becomes rejected (the item is unchanged) and the instance follows the step's
 * reject transition, or ends rejected. */
export async function applyRejection(r: EngineRun, is: InstanceStepRow, step: StepRow, user: string | null, comment: string | null): Promise<void> {
  await logAction(r.trx, { instanceId: r.instance.id, instanceStepId: is.id, user, kind: 'reject', comment });
  await run(r.trx, "update svc_workflow_instance_steps set status = 'rejected', result = 'rejected', completed_at = clock_timestamp() where id = $1", [is.id]);
  if (r.version && r.version.status === 'pending') {
    await setVersionStatus(r.trx, r.version.id, 'rejected');
    r.version = { ...r.version, status: 'rejected' };
  }
  await advance(r, step.id, 'reject');
}
