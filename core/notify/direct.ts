/** Direct mail of the service itself (invitations, password resets, verification): a pending email log with
 * template_id null and the rendered message, sent by the outbox worker. The request that asks for it answers
 * whether or not the mail server is up; delivery is retried and visible in /notify/logs. */
import { run, type Executor } from '../db/database.ts';
import type { Queue } from '../queue/queue.ts';
import { wakeAfterCommit } from './wake.ts';

export interface DirectEmail {
  to: string;
  subject: string;
  html: string;
  /** What sent it (metadata.kind), e.g. `invite`. */
  kind: string;
}

export async function queueDirectEmail(db: Executor, queue: Queue, mail: DirectEmail): Promise<number> {
  const [row] = await run<{ id: number }>(db, `insert into svc_notify_logs (status, channel, recipients, subject_rendered, content_rendered, metadata)
    values ('pending', 'email', $1::json, $2, $3, $4::json) returning id`,
  [JSON.stringify([mail.to]), mail.subject, mail.html, JSON.stringify({ kind: mail.kind })]);
  wakeAfterCommit(db, queue);
  return row.id;
}

/** Queues without delaying the response (mail whose timing must tell nothing, e.g. whether an email is known).
 * A failed insert is logged; it is lost only if the database refuses the write. */
export function queueDirectEmailInBackground(db: Executor, queue: Queue, mail: DirectEmail, log: (err: unknown) => void): void {
  void queueDirectEmail(db, queue, mail).catch(log);
}
