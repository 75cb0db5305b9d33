/** Scheduled publishing (core/publishing): a row is one timed promotion of a version (`publish`) or one timed
 * unpublishing of an item (`unpublish`), and the row is its job: the container claims due rows with FOR UPDATE SKIP
 * LOCKED and marks them in the transaction of the write (DESIGN.md > Durable jobs). `scheduled_by` is whose rights
 * the run uses (who last set the time); a publish whose draft was deleted keeps its row (version null) and fails
 * with that reason when it falls due. One live publish per version (the partial unique index). */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`
create table svc_schedules (
  id uuid primary key,
  collection varchar(64) not null references svc_collections(collection) on delete cascade,
  item varchar(255) not null,
  action varchar(20) not null check (action in ('publish', 'unpublish')),
  version uuid references svc_versions(id) on delete set null,
  scheduled_at timestamptz not null,
  status varchar(20) not null default 'scheduled' check (status in ('scheduled', 'done', 'failed', 'cancelled')),
  scheduled_by uuid references svc_users(id) on delete set null,
  date_created timestamptz not null default now(),
  user_updated uuid references svc_users(id) on delete set null,
  date_updated timestamptz,
  ran_at timestamptz,
  error text,
  attempts integer not null default 0
);
create index svc_schedules_due_idx on svc_schedules (scheduled_at) where status = 'scheduled';
create index svc_schedules_item_idx on svc_schedules (collection, item);
create unique index svc_schedules_version_once_idx on svc_schedules (version) where status = 'scheduled' and action = 'publish';
`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('drop table if exists svc_schedules').execute(db);
}
