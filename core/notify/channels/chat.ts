/** chat: POST JSON {text, subject, content} to the provider's url (an incoming-webhook style endpoint) with
 * `Authorization: Bearer <token>` when there is one. `text` is the subject and content together, for endpoints that
 * read one field. */
import { messageIdOf, postJson } from './http.ts';
import type { ChannelSender, OutgoingMessage, SendResult } from './types.ts';

export function chatSender(o: { url: string; token: string | null }): ChannelSender {
  return {
    async send(m: OutgoingMessage): Promise<SendResult> {
      const text = m.subject ? `${m.subject}\n\n${m.content}` : m.content;
      const res = await postJson(o.url, o.token, { text, subject: m.subject, content: m.content, recipients: m.to });
      return { messageId: messageIdOf(res.body), response: { status: res.status, body: res.body } };
    },
    close() {},
  };
}
