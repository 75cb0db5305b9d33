/** inapp, as the worker sends it (a scheduled in-app send that became due): one svc_notifications row per recipient
 * that is still a user (`to` holds user ids), written when the send happens. The log's rendered subject and content
 * become the notification's subject and message. Immediate in-app sends never reach the worker (core/notify/inapp.ts).
 * Also POST /notify/test-send through an in-app provider. */
import type { Executor } from '../../db/database.ts';
import { isUuid } from '../../uuid.ts';
import { selectUserIdsByIdOrEmail } from '../../users/table.ts';
import { insertNotifications } from '../inapp.ts';
import type { TestResult } from './record.ts';
import { ProviderError, type ChannelSender, type OutgoingMessage, type SendResult } from './types.ts';

export function inAppSender(db: Executor): ChannelSender {
  return {
    async send(m: OutgoingMessage): Promise<SendResult> {
      const reached = await insertNotifications(db, { recipients: m.to, subject: m.subject, message: m.content });
      if (reached.length === 0) throw new ProviderError('None of the recipients is a user any more.');
      return { messageId: null, response: { notifications: reached.length, recipients: reached } };
    },
    close() {},
  };
}

/** A test notice (from `sender`) for each recipient that is a user: a user id, or a user's email address. */
export async function testInApp(db: Executor, sender: string | null, recipients: string[], subject: string, content: string): Promise<TestResult> {
  const uuid = (r: string): boolean => isUuid(r); // without narrowing: recipients are strings either way
  const ids = recipients.filter(uuid);
  const emails = recipients.filter((r) => !uuid(r)).map((r) => r.toLowerCase());
  const users = await selectUserIdsByIdOrEmail(db, ids, emails);
  const reached = await insertNotifications(db, {
    recipients: users, subject: subject || 'Test notification', message: content, sender,
  });
  if (reached.length === 0) return { success: false, message: 'None of the recipients is a user: in-app notifications go to users.' };
  return { success: true, message: `Delivered to ${reached.length} of ${recipients.length} recipient(s).` };
}
