/** Stores verified delivery events and advances the correlated logs, all in one transaction per request.
 *
 * - Idempotency: provider_event_id (`{key}:{provider id}:{event id}`) is unique; `on conflict do nothing` makes a
 *   replayed event a no-op that changes no log (the request still answers 200).
 * - Correlation: the newest log with the event's provider_message_id whose provider_id is the verified provider
 *   (or null). An event without a matching log is stored with log_id null.
 * - Status order (never backwards): sending < sent < delivered < bounced = rejected. `delivered` applies to a log
 *   in sending or sent (delivered_at = the event's time); `bounced` and `rejected` apply to a log in sending, sent
 *   or delivered (a bounce reported after the delivery is the later fact; its reason goes to error_message) and
 *   are final: a late `delivered` after them is stored but changes nothing. pending, failed and cancelled logs
 *   are never moved by a report. deferred, opened, clicked, complaint and unsubscribed are stored only.
 * - A report can arrive before the worker has recorded the provider's message id on the log (the provider accepted
 *   the message, the outcome is not written yet): it is stored with log_id null, and attachEarlyEvents (to be called
 *   with the ids of logs just marked sent) links such events and applies them in arrival order. */
import { inTransaction, run, type Executor } from '../../db/database.ts';
import type { DeliveryEventInput, DeliveryEventKind, VerifiedReport } from './types.ts';

const INSERT = `insert into svc_notify_delivery_events
  (log_id, provider_id, provider_message_id, event, provider_status_raw, reason, occurred_at, provider_event_id, raw_payload)
values (
  (select id from svc_notify_logs where provider_message_id = $1 and (provider_id = $2 or provider_id is null) order by id desc limit 1),
  $2, $1, $3, $4, $5, $6::timestamptz, $7, $8::json)
on conflict (provider_event_id) do nothing
returning log_id`;

const DELIVERED = `update svc_notify_logs set status = 'delivered', delivered_at = coalesce($2::timestamptz, now()), updated_at = now()
where id = $1 and status in ('sending', 'sent')`;

const FAILED = `update svc_notify_logs set status = $2, error_message = coalesce($3, error_message), updated_at = now()
where id = $1 and status in ('sending', 'sent', 'delivered')`;

async function advance(trx: Executor, logId: number, e: Pick<DeliveryEventInput, 'event' | 'occurredAt' | 'reason'>): Promise<void> {
  if (e.event === 'delivered') await run(trx, DELIVERED, [logId, e.occurredAt]);
  else if (e.event === 'bounced' || e.event === 'rejected') await run(trx, FAILED, [logId, e.event, e.reason]);
}

export interface RecordResult { stored: number; duplicates: number }

export async function recordReport(db: Executor, key: string, report: VerifiedReport): Promise<RecordResult> {
  if (report.events.length === 0) return { stored: 0, duplicates: 0 };
  return inTransaction(db, async (trx) => {
    const result: RecordResult = { stored: 0, duplicates: 0 };
    for (const e of report.events) {
      const rows = await run<{ log_id: number | null }>(trx, INSERT, [
        e.providerMessageId, report.providerId, e.event, e.statusRaw, e.reason, e.occurredAt,
        `${key}:${report.providerId}:${e.eventId}`, JSON.stringify(e.raw ?? null),
      ]);
      if (rows.length === 0) {
        result.duplicates++;
        continue;
      }
      result.stored++;
      if (rows[0].log_id !== null) await advance(trx, Number(rows[0].log_id), e);
    }
    return result;
  });
}

const ATTACH = `update svc_notify_delivery_events e set log_id = l.id
from svc_notify_logs l
where l.id = any($1::int[]) and e.log_id is null and l.provider_message_id is not null
  and e.provider_message_id = l.provider_message_id and e.provider_id = l.provider_id
returning e.id, e.log_id, e.event, e.reason, e.occurred_at`;

const ANY_EARLY = `/*p*/select 1 from svc_notify_delivery_events e join svc_notify_logs l
  on e.provider_message_id = l.provider_message_id and e.provider_id = l.provider_id
where l.id = any($1::int[]) and e.log_id is null and l.provider_message_id is not null limit 1`;

interface AttachedRow { id: number; log_id: number; event: DeliveryEventKind; reason: string | null; occurred_at: Date | string | null }

/** Links delivery events that arrived before their log had its provider_message_id (log_id null, same provider and
 * message id) to the given logs, and applies them to the status in the order they arrived. Returns how many. */
export async function attachEarlyEvents(db: Executor, logIds: readonly number[]): Promise<number> {
  if (logIds.length === 0) return 0;
  // Almost always there is nothing to link: one indexed probe instead of a transaction per worker batch.
  if ((await run(db, ANY_EARLY, [logIds])).length === 0) return 0;
  return inTransaction(db, async (trx) => {
    const rows = await run<AttachedRow>(trx, ATTACH, [logIds]);
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    for (const r of rows) {
      const occurredAt = r.occurred_at === null ? null : new Date(r.occurred_at).toISOString();
      await advance(trx, Number(r.log_id), { event: r.event, reason: r.reason, occurredAt });
    }
    return rows.length;
  });
}
