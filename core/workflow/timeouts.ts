/** Step timeouts (DESIGN.md > Durable jobs): an active approval step whose timeout_at has passed is a job row.
 * Each is claimed with FOR UPDATE SKIP LOCKED (with its instance) in its own transaction and fired once:
 * auto-approve (an approval by the system), auto-reject, escalate (reassigned to options.escalate_to or the
 * administrators, no new timeout) or notify (the assignees; timeout_fired_at marks it fired). Several processes
 * may run the job at once: a claimed row is skipped by the others, and a fired one no longer matches. */
import type { Transaction } from 'kysely';
import { systemAccountability } from '../access/accountability.ts';
import { inTransaction, run } from '../db/database.ts';
import type { SchemaOverview } from '../schema/types.ts';
import type { ConfigPort, DatabasePort, EventsPort, SchemaPort } from '../ports.ts';
import { logAction } from './actions.ts';
import { escalationTargets } from './assignees.ts';
import { applyApproval, applyRejection } from './decisions.ts';
import { openRun } from './engine.ts';
import { notifyUsers } from './notify.ts';
import type { InstanceRow, InstanceStepRow } from './types.ts';

export interface TimeoutResult { fired: { id: string; action: string }[]; failed: { id: string; error: string }[] }

const CLAIM_SQL = `select s.* from svc_workflow_instance_steps s join svc_workflow_instances i on i.id = s.instance_id
  where s.status = 'active' and s.timeout_at is not null and s.timeout_fired_at is null and s.timeout_at <= $1
    and i.status = 'running' and s.id <> all($2::uuid[])
  order by s.timeout_at, s.id limit 1 for update of s, i skip locked`;

/** Fires every timeout due at `now`; returns what it did. One failing step (its promotion fails, say) is rolled
 * back alone and retried on the next run. */
export async function runWorkflowTimeouts(services: ConfigPort & DatabasePort & EventsPort & SchemaPort, now: Date = new Date()): Promise<TimeoutResult> {
  const result: TimeoutResult = { fired: [], failed: [] };
  const skip: string[] = [];
  const schema = await services.schema.get();
  for (;;) {
    let claimed: string | null = null;
    try {
      claimed = await inTransaction(services.database.db, async (trx) => {
        const [is] = await run<InstanceStepRow>(trx, CLAIM_SQL, [now, skip]);
        if (!is) return null;
        const action = await fire(services, schema, trx, is);
        result.fired.push({ id: is.id, action });
        return is.id;
      });
    } catch (err) {
      // The failed row is rolled back; remember it so this run does not claim it again.
      const id = (err as { stepId?: string }).stepId;
      if (!id) throw err;
      skip.push(id);
      result.failed.push({ id, error: (err as { cause?: Error }).cause?.message ?? String(err) });
      continue;
    }
    if (claimed === null) return result;
  }
}

async function fire(services: ConfigPort & DatabasePort & EventsPort & SchemaPort, schema: SchemaOverview, trx: Transaction<any>, is: InstanceStepRow): Promise<string> {
  try {
    const [instance] = await run<InstanceRow>(trx, 'select * from svc_workflow_instances where id = $1', [is.instance_id]);
    const ctx = { db: trx, schema, accountability: systemAccountability(), config: services.config, events: services.events };
    const r = await openRun(ctx, trx, instance, null);
    const step = r.steps.find((s) => s.id === is.step_id)!;
    await run(trx, 'update svc_workflow_instance_steps set timeout_fired_at = clock_timestamp() where id = $1', [is.id]);
    switch (step.timeout_action) {
      case 'auto-approve':
        await applyApproval(r, is, step, null, 'Approved automatically: the step timed out.');
        break;
      case 'auto-reject':
        await applyRejection(r, is, step, null, 'Rejected automatically: the step timed out.');
        break;
      case 'escalate': {
        const targets = await escalationTargets(trx, step);
        await run(trx, 'update svc_workflow_instance_steps set assignees = $2::json, timeout_at = null where id = $1', [is.id, JSON.stringify(targets)]);
        await logAction(trx, { instanceId: instance.id, instanceStepId: is.id, user: null, kind: 'escalate', comment: 'Escalated: the step timed out.', toUser: targets[0] ?? null });
        await notifyUsers(trx, { recipients: targets, subject: `Escalated to you: ${step.name}`, collection: instance.collection, item: instance.item, events: services.events });
        break;
      }
      case 'notify':
        await notifyUsers(trx, { recipients: is.assignees ?? [], subject: `Overdue: ${step.name}`, collection: instance.collection, item: instance.item, events: services.events });
        break;
      default:
    }
    return step.timeout_action ?? 'none';
  } catch (err) {
    throw Object.assign(new Error(`workflow timeout of step ${is.id} failed`, { cause: err }), { stepId: is.id });
  }
}

/** Runs the timeout job every `intervalMs` in this (container or standalone) process; returns a stop function. */
export function startWorkflowTimeouts(services: ConfigPort & DatabasePort & EventsPort & SchemaPort, intervalMs: number): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const { fired, failed } = await runWorkflowTimeouts(services);
      if ((fired.length || failed.length) && services.config.logLevel !== 'silent') {
        console.log(`workflow timeouts: ${fired.length} fired, ${failed.length} failed`);
      }
    } catch (err) {
      console.error('workflow timeouts failed:', (err as Error).message);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => { void tick(); }, intervalMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
