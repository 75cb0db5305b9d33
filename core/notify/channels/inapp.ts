/** inapp, as the worker sends it (a scheduled in-app send that became due): one svc_notifications row per recipient
 * that is still a user (`to` holds user ids), written when the send happens. The log's rendered subject and content
 * become the notification's subject and message. Immediate in-app sends never reach the worker (core/notify/inapp.ts). */
import type { Executor } from '../../db/database.ts';
import { insertNotifications } from '../inapp.ts';
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
