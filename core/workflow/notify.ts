/** The one place workflow code notifies people: through the notification module's in-app channel, so other
 * channels or templates can be added here without touching the engine. */
import type { Executor } from '../db/database.ts';
import { deliverInApp, type InAppNotice } from '../notify/inapp.ts';

/** What the workflow says to people: the in-app notice without the module's log columns (filled in here). */
export type WorkflowNotice = Omit<InAppNotice, 'log'>;

/** One inbox notification per distinct recipient, written in `db` (the caller's transaction) through the
 * notification module's in-app channel (core/notify/inapp.ts: the rows and a `sent` in-app log, same transaction). */
export async function notifyUsers(db: Executor, notice: WorkflowNotice): Promise<number> {
  const { count } = await deliverInApp(db, {
    recipients: notice.recipients, subject: notice.subject, message: notice.message ?? null,
    collection: notice.collection ?? null, item: notice.item ?? null, sender: notice.sender ?? null, events: notice.events,
    log: { metadata: { source: 'workflow', collection: notice.collection ?? null, item: notice.item ?? null } },
  });
  return count;
}
