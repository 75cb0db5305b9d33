/** In-app notifications of the workflow (svc_notifications rows). The one place workflow code notifies people,
 * so the notification module can take it over (templates, channels) without touching the engine. */
import type { Executor } from '../db/database.ts';
import { deliverInApp } from '../notify/inapp.ts';

export interface WorkflowNotice {
  recipients: readonly string[];
  subject: string;
  message?: string | null;
  collection?: string | null;
  item?: string | null;
  /** The user whose action caused it; null for the system (timeouts, automatic steps). */
  sender?: string | null;
}

/** One inbox notification per distinct recipient, written in `db` (the caller's transaction) through the
 * notification module's in-app channel (core/notify/inapp.ts: the rows and a `sent` in-app log, same transaction). */
export async function notifyUsers(db: Executor, notice: WorkflowNotice): Promise<number> {
  const { count } = await deliverInApp(db, {
    recipients: notice.recipients, subject: notice.subject, message: notice.message ?? null,
    collection: notice.collection ?? null, item: notice.item ?? null, sender: notice.sender ?? null,
    log: { metadata: { source: 'workflow', collection: notice.collection ?? null, item: notice.item ?? null } },
  });
  return count;
}
