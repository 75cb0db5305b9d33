/** Workflow engine columns (core/workflow): a timeout fires once (`timeout_fired_at` marks a fired notify or
 * escalate timeout, whose step stays active), and the action log also records cancellations and escalations. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`
alter table svc_workflow_instance_steps add column timeout_fired_at timestamptz;
alter table svc_workflow_actions drop constraint if exists svc_workflow_actions_kind_check;
alter table svc_workflow_actions add constraint svc_workflow_actions_kind_check
  check (kind in ('approve', 'reject', 'delegate', 'comment', 'cancel', 'escalate'));
create index svc_workflow_instance_steps_timeout_idx on svc_workflow_instance_steps (timeout_at)
  where status = 'active' and timeout_at is not null and timeout_fired_at is null;
create index svc_workflow_instance_steps_instance_idx on svc_workflow_instance_steps (instance_id);
`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(`
drop index if exists svc_workflow_instance_steps_instance_idx;
drop index if exists svc_workflow_instance_steps_timeout_idx;
alter table svc_workflow_actions drop constraint if exists svc_workflow_actions_kind_check;
alter table svc_workflow_actions add constraint svc_workflow_actions_kind_check
  check (kind in ('approve', 'reject', 'delegate', 'comment'));
alter table svc_workflow_instance_steps drop column if exists timeout_fired_at;
`).execute(db);
}
