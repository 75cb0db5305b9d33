/** The action event outbox (core/events/outbox.ts): an action event is a row written in the transaction of the
 * change it describes, sent to the Queue after commit and deleted once the Queue took it. `id` is monotonic (the
 * relay sends in commit order as far as ids go); `event_id` is the event's own id, the one handlers are
 * de-duplicated by, stable across resends. `relay_after` is when the relay may take the row: a grace period after
 * commit when the writing process sends it itself, at once when it leaves that to the relay, and the lease or the
 * backoff of a relay that took it. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`
create table svc_event_outbox (
  id bigint generated always as identity primary key,
  event_id uuid not null,
  body json not null,
  relay_after timestamptz not null,
  attempts integer not null default 0
);
`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('drop table if exists svc_event_outbox').execute(db);
}
