/** gateway_mail: an HTTP mail API. POST `${base_url}/send` with JSON {from, to, cc, bcc, subject, html} and
 * `Authorization: Bearer <api_key>`; the message id is read from the JSON answer. */
import { messageIdOf, postJson } from './http.ts';
import type { ChannelSender, OutgoingMessage, SendResult } from './types.ts';

export function gatewayMailSender(o: { base_url: string; api_key: string; from: string }): ChannelSender {
  const url = `${o.base_url.replace(/\/+$/, '')}/send`;
  return {
    async send(m: OutgoingMessage): Promise<SendResult> {
      const res = await postJson(url, o.api_key, { from: o.from, to: m.to, cc: m.cc, bcc: m.bcc, subject: m.subject, html: m.content });
      return { messageId: messageIdOf(res.body), response: { status: res.status, body: res.body } };
    },
    close() {},
  };
}
