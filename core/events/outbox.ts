/** The statements of svc_event_outbox (migrations/0009_event_outbox.ts), the durable copy of action events.
 * A row is written in the transaction of the change (one statement for all the events of a transaction), deleted
 * once the Queue has taken its event, and claimed by the relay (core/events/relay.ts) when the process that wrote
 * it did not send it in time: FOR UPDATE SKIP LOCKED inside an UPDATE ... RETURNING, so a claim commits by itself
 * and two relays never take the same row; the claim moves `relay_after` by a lease, so a relay that dies mid-send
 * leaves the row to the next scan. */
import { run, type Executor } from '../db/database.ts';

export interface OutboxRow {
  id: string;
  body: unknown;
  attempts: number;
}

/** Writes the events (their JSON, each with its `id`) and returns the row id of each event id. `relayAfterMs`: how
 * long the relay leaves the rows to the writer's own send. */
export async function insertEvents(ex: Executor, events: readonly { id: string }[], relayAfterMs: number): Promise<Map<string, string>> {
  const rows = await run<{ id: string; event_id: string }>(ex, `/*p*/insert into svc_event_outbox (event_id, body, relay_after)
    select (e->>'id')::uuid, e, now() + $2::int * interval '1 millisecond' from json_array_elements($1::json) as e
    returning id::text, event_id::text`, [JSON.stringify(events), relayAfterMs]);
  return new Map(rows.map((r) => [r.event_id, r.id]));
}

/** Deletes delivered rows. */
export async function deleteEvents(ex: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await run(ex, '/*p*/delete from svc_event_outbox where id = any($1::bigint[])', [ids]);
}

/** Claims up to `limit` due rows, oldest first, for `leaseMs`. */
export async function claimDue(ex: Executor, limit: number, leaseMs: number): Promise<OutboxRow[]> {
  return run<OutboxRow>(ex, `/*p*/with due as (
      select id from svc_event_outbox where relay_after <= now() order by id limit $1 for update skip locked
    )
    update svc_event_outbox o set relay_after = now() + $2::int * interval '1 millisecond', attempts = o.attempts + 1
    from due where o.id = due.id returning o.id::text, o.body, o.attempts`, [limit, leaseMs]);
}

/** Gives claimed rows whose send failed back to the next scan after `delayMs`. */
export async function retryLater(ex: Executor, ids: readonly string[], delayMs: number): Promise<void> {
  if (ids.length === 0) return;
  await run(ex, `/*p*/update svc_event_outbox set relay_after = now() + $2::int * interval '1 millisecond' where id = any($1::bigint[])`, [ids, delayMs]);
}
