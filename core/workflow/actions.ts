/** The action log (svc_workflow_actions): who did what on an instance, with their comment. */
import { randomUUID } from 'node:crypto';
import { run, type Executor } from '../db/database.ts';
import type { ActionKind } from './types.ts';

export async function logAction(db: Executor, entry: {
  instanceId: string; instanceStepId: string | null; user: string | null; kind: ActionKind; comment?: string | null; toUser?: string | null;
}): Promise<void> {
  await run(db, `insert into svc_workflow_actions (id, instance_id, instance_step_id, user_id, kind, comment, to_user)
    values ($1, $2, $3, $4, $5, $6, $7)`,
  [randomUUID(), entry.instanceId, entry.instanceStepId, entry.user, entry.kind, entry.comment ?? null, entry.toUser ?? null]);
}
