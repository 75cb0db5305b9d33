/** In-app notifications of the workflow (svc_notifications rows). The one place workflow code notifies people,
 * so the notification module can take it over (templates, channels) without touching the engine. */
import { run, type Executor } from '../db/database.ts';

export interface WorkflowNotice {
  recipients: readonly string[];
  subject: string;
  message?: string | null;
  collection?: string | null;
  item?: string | null;
  /** The user whose action caused it; null for the system (timeouts, automatic steps). */
  sender?: string | null;
}

/** One inbox notification per distinct recipient, written in `db` (the caller's transaction). */
export async function notifyUsers(db: Executor, notice: WorkflowNotice): Promise<number> {
  const recipients = [...new Set(notice.recipients)];
  if (recipients.length === 0) return 0;
  const rows = await run(db, `insert into svc_notifications (recipient, sender, subject, message, collection, item)
    select u.id, $2, $3, $4, $5, $6 from svc_users u where u.id = any($1::uuid[]) returning id`,
  [recipients, notice.sender ?? null, notice.subject.slice(0, 255), notice.message ?? null, notice.collection ?? null, notice.item ?? null]);
  return rows.length;
}
