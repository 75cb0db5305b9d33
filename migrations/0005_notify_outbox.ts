/** The notify outbox (core/notify/outbox): a log row is the job. `next_attempt_at` holds a retry back until its
 * backoff has passed; `claimed_at`/`claimed_by` mark a log a worker took (status sending), so a log left in sending
 * by a worker that died is taken again once its lease has run out. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`
alter table svc_notify_logs add column next_attempt_at timestamptz;
alter table svc_notify_logs add column claimed_at timestamptz;
alter table svc_notify_logs add column claimed_by varchar(64);
create index svc_notify_logs_due_idx on svc_notify_logs ((coalesce(next_attempt_at, scheduled_at, '-infinity'::timestamptz)), id)
  where status = 'pending';
create index svc_notify_logs_sending_idx on svc_notify_logs (claimed_at) where status = 'sending';
create index svc_notify_delivery_events_early_idx on svc_notify_delivery_events (provider_message_id) where log_id is null;
create index svc_notify_logs_message_idx on svc_notify_logs (provider_message_id) where provider_message_id is not null;
`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(`
drop index if exists svc_notify_logs_message_idx;
drop index if exists svc_notify_delivery_events_early_idx;
drop index if exists svc_notify_logs_sending_idx;
drop index if exists svc_notify_logs_due_idx;
alter table svc_notify_logs drop column if exists claimed_by;
alter table svc_notify_logs drop column if exists claimed_at;
alter table svc_notify_logs drop column if exists next_attempt_at;
`).execute(db);
}
