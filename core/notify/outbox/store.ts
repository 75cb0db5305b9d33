/** The outbox statements (DESIGN.md > Durable jobs): a log row is the job. A worker claims due logs in one
 * statement (FOR UPDATE SKIP LOCKED inside an UPDATE ... RETURNING, so claiming commits by itself and concurrent
 * workers never take the same row), sends, then records the outcome only if the claim is still its own. */
import { run, type Executor } from '../../db/database.ts';

export interface ClaimedLog {
  id: number;
  channel: string;
  provider_id: number | null;
  recipients: unknown;
  cc: unknown;
  bcc: unknown;
  subject_rendered: string | null;
  content_rendered: string | null;
  /** Direct mail: the message as sent, encrypted (core/notify/direct.ts); null otherwise. */
  content_sealed: string | null;
  attempts: number;
  claimed_at: Date;
}

const CLAIM = `/*p*/with due as (
  select id from svc_notify_logs
  where status = 'pending' and coalesce(next_attempt_at, scheduled_at, '-infinity'::timestamptz) <= $1
  order by coalesce(next_attempt_at, scheduled_at, '-infinity'::timestamptz), id
  limit $2
  for update skip locked
)
update svc_notify_logs l set status = 'sending', claimed_at = $1, claimed_by = $3, attempts = l.attempts + 1, updated_at = now()
from due where l.id = due.id
returning l.id, l.channel, l.provider_id, l.recipients, l.cc, l.bcc, l.subject_rendered, l.content_rendered, l.content_sealed, l.attempts, l.claimed_at`;

export async function claimDue(db: Executor, now: Date, limit: number, workerId: string): Promise<ClaimedLog[]> {
  return run<ClaimedLog>(db, CLAIM, [now, limit, workerId]);
}

export async function markSent(db: Executor, log: ClaimedLog, workerId: string, providerId: number | null, messageId: string | null, response: unknown): Promise<boolean> {
  const rows = await run(db, `/*p*/update svc_notify_logs set status = 'sent', sent_at = now(), provider_id = coalesce($3, provider_id),
      provider_message_id = $4, provider_response = $5::json, error_message = null, next_attempt_at = null, content_sealed = null, updated_at = now()
    where id = $1 and status = 'sending' and claimed_by = $2 and claimed_at = $6 returning id`,
  [log.id, workerId, providerId, messageId, JSON.stringify(response), log.claimed_at]);
  return rows.length > 0;
}

/** Back to pending with `nextAttemptAt`, or failed when the attempts are used up (nextAttemptAt null). A sealed
 * message is kept for the next attempt and dropped with the last. */
export async function markFailed(db: Executor, log: ClaimedLog, workerId: string, error: string, nextAttemptAt: Date | null): Promise<boolean> {
  const rows = await run(db, `/*p*/update svc_notify_logs set status = $3, next_attempt_at = $4, error_message = $5,
      content_sealed = case when $4::timestamptz is null then null else content_sealed end, updated_at = now()
    where id = $1 and status = 'sending' and claimed_by = $2 and claimed_at = $6 returning id`,
  [log.id, workerId, nextAttemptAt ? 'pending' : 'failed', nextAttemptAt, error.slice(0, 2000), log.claimed_at]);
  return rows.length > 0;
}

/** Logs left in sending past the lease (their worker died between claim and outcome) go back to pending, or to
 * failed when their attempts are used up. */
export async function reclaimExpired(db: Executor, leaseCutoff: Date, maxAttempts: number): Promise<number> {
  const rows = await run(db, `update svc_notify_logs set
      status = case when attempts >= $2 then 'failed' else 'pending' end,
      error_message = 'The worker sending it stopped before recording the outcome (lease expired).',
      content_sealed = case when attempts >= $2 then null else content_sealed end,
      next_attempt_at = null, claimed_by = null, updated_at = now()
    where status = 'sending' and claimed_at < $1 returning id`, [leaseCutoff, maxAttempts]);
  return rows.length;
}

export interface SentRecord { log: ClaimedLog; providerId: number | null; messageId: string | null; response: unknown }

/** Records several sends in one statement (the worker batches outcomes that finish while a write is under way). */
export async function markSentMany(db: Executor, records: readonly SentRecord[], workerId: string): Promise<number> {
  if (records.length === 0) return 0;
  const rows = await run(db, `/*p*/update svc_notify_logs l set status = 'sent', sent_at = now(), provider_id = coalesce(v.provider_id, l.provider_id),
      provider_message_id = v.message_id, provider_response = v.response::json, error_message = null, next_attempt_at = null,
      content_sealed = null, updated_at = now()
    from unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::timestamptz[]) as v(id, provider_id, message_id, response, claimed_at)
    where l.id = v.id and l.status = 'sending' and l.claimed_by = $6 and l.claimed_at = v.claimed_at returning l.id`,
  [records.map((r) => r.log.id), records.map((r) => r.providerId), records.map((r) => r.messageId), records.map((r) => JSON.stringify(r.response)),
    records.map((r) => new Date(r.log.claimed_at).toISOString()), workerId]);
  return rows.length;
}

/** Gives claimed logs that were never sent back (a stopping worker's prefetched logs), the claim's attempt undone. */
export async function releaseClaims(db: Executor, logs: readonly ClaimedLog[], workerId: string): Promise<void> {
  if (logs.length === 0) return;
  await run(db, `update svc_notify_logs set status = 'pending', claimed_at = null, claimed_by = null, attempts = greatest(attempts - 1, 0), updated_at = now()
    where id = any($1::int[]) and status = 'sending' and claimed_by = $2`, [logs.map((l) => l.id), workerId]);
}
