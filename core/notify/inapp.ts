/** The in-app channel: delivery is a svc_notifications row per user. An immediate send writes them in the caller's
 * transaction, so its log is `sent` as soon as it exists (nothing is left for the worker). Used by POST
 * /notify/trigger and by the workflow (core/workflow/notify.ts). A scheduled send is a pending log like any other
 * channel's, delivered by the worker once due (core/notify/channels/inapp.ts). */
import type { ContextEvents } from '../context.ts';
import { run, type Executor } from '../db/database.ts';

export interface InAppNotice {
  /** User ids. */
  recipients: readonly string[];
  subject: string;
  message?: string | null;
  collection?: string | null;
  item?: string | null;
  sender?: string | null;
  /** Where `notifications.create` goes (extension hooks, realtime subscribers: core/realtime/publish.ts); callers
   * without an event bus (the notify worker's scheduled sends) leave it out. */
  events?: ContextEvents;
  /** The log row's other columns (template sends); direct sends leave template_id null. */
  log?: { template_id?: string | null; provider_id?: number | null; locale?: string | null; variables?: unknown; metadata?: unknown };
}

/** Subjects longer than svc_notifications.subject are cut. */
export const inAppSubject = (subject: string): string => subject.slice(0, 255);

/** One inbox notification per distinct recipient that is (still) a user; returns the recipients reached. */
export async function insertNotifications(db: Executor, notice: Omit<InAppNotice, 'log'>): Promise<string[]> {
  const recipients = [...new Set(notice.recipients)];
  if (recipients.length === 0) return [];
  const rows = await run<{ id: number; recipient: string }>(db, `insert into svc_notifications (recipient, sender, subject, message, collection, item)
    select u.id, $2, $3, $4, $5, $6 from svc_users u where u.id = any($1::uuid[]) returning id, recipient`,
  [recipients, notice.sender ?? null, inAppSubject(notice.subject), notice.message ?? null, notice.collection ?? null, notice.item ?? null]);
  if (rows.length) {
    notice.events?.emitAction(db, 'notifications.create', {
      collection: 'svc_notifications', keys: rows.map((r) => r.id),
      payload: { subject: inAppSubject(notice.subject), collection: notice.collection ?? null, item: notice.item ?? null },
    }, null);
  }
  return rows.map((r) => r.recipient);
}

/** Writes one inbox notification per distinct existing recipient and one `sent` log; returns both. */
export async function deliverInApp(db: Executor, notice: InAppNotice): Promise<{ count: number; logId: number | null }> {
  if (notice.recipients.length === 0) return { count: 0, logId: null };
  const subject = inAppSubject(notice.subject);
  const reached = await insertNotifications(db, notice);
  const log = notice.log ?? {};
  const metadata = log.metadata ?? (notice.collection ? { collection: notice.collection, item: notice.item ?? null } : null);
  const [row] = await run<{ id: number }>(db, `insert into svc_notify_logs (status, template_id, channel, provider_id, recipients, locale,
      variables, subject_rendered, content_rendered, sent_at, metadata, provider_response)
    values ('sent', $1, 'inapp', $2, $3::json, $4, $5::json, $6, $7, now(), $8::json, $9::json) returning id`,
  [log.template_id ?? null, log.provider_id ?? null, JSON.stringify(reached), log.locale ?? null,
    log.variables === undefined ? null : JSON.stringify(log.variables), subject, notice.message ?? null,
    metadata === null ? null : JSON.stringify(metadata), JSON.stringify({ notifications: reached.length })]);
  return { count: reached.length, logId: row.id };
}
