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
returning l.id, l.channel, l.provider_id, l.recipients, l.cc, l.bcc, l.subject_rendered, l.content_rendered, l.attempts, l.claimed_at`;

export async function claimDue(db: Executor, now: Date, limit: number, workerId: string): Promise<ClaimedLog[]> {
  return run<ClaimedLog>(db, CLAIM, [now, limit, workerId]);
}

export async function markSent(db: Executor, log: ClaimedLog, workerId: string, providerId: number | null, messageId: string | null, response: unknown): Promise<boolean> {
  const rows = await run(db, `/*p*/update svc_notify_logs set status = 'sent', sent_at = now(), provider_id = coalesce($3, provider_id),
      provider_message_id = $4, provider_response = $5::json, error_message = null, next_attempt_at = null, updated_at = now()
    where id = $1 and status = 'sending' and claimed_by = $2 and claimed_at = $6 returning id`,
  [log.id, workerId, providerId, messageId, JSON.stringify(response), log.claimed_at]);
  return rows.length > 0;
}

/** Back to pending with `nextAttemptAt`, or failed when the attempts are used up (nextAttemptAt null). */
export async function markFailed(db: Executor, log: ClaimedLog, workerId: string, error: string, nextAttemptAt: Date | null): Promise<boolean> {
  const rows = await run(db, `/*p*/update svc_notify_logs set status = $3, next_attempt_at = $4, error_message = $5, updated_at = now()
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
      next_attempt_at = null, claimed_by = null, updated_at = now()
    where status = 'sending' and claimed_at < $1 returning id`, [leaseCutoff, maxAttempts]);
  return rows.length;
}
