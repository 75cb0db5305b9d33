/** cloud_mail: the cloud mail service's v2 SendEmail (@aws-sdk/client-sesv2), simple content (subject, HTML and
 * text). `endpoint` in the provider config points it at a compatible server (tests, local emulation). */
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { htmlToText } from './text.ts';
import type { ChannelSender, OutgoingMessage, SendResult } from './types.ts';

export interface CloudMailOptions { region: string; access_key: string; secret_key: string; from: string; endpoint?: string | null }

/** The SDK client is loaded and created on the first send, not at import (a Lambda cold start never sends mail). */
export function cloudMailSender(o: CloudMailOptions): ChannelSender {
  let client: SESv2Client | null = null;
  const sdk = () => import('@aws-sdk/client-sesv2');
  return {
    async send(m: OutgoingMessage): Promise<SendResult> {
      const { SESv2Client, SendEmailCommand } = await sdk();
      client ??= new SESv2Client({
        region: o.region,
        credentials: { accessKeyId: o.access_key, secretAccessKey: o.secret_key },
        ...(o.endpoint ? { endpoint: o.endpoint } : {}),
        maxAttempts: 1, // the outbox retries with its own backoff
      });
      const out = await client.send(new SendEmailCommand({
        FromEmailAddress: o.from,
        Destination: { ToAddresses: m.to, CcAddresses: m.cc.length ? m.cc : undefined, BccAddresses: m.bcc.length ? m.bcc : undefined },
        Content: {
          Simple: {
            Subject: { Data: m.subject, Charset: 'UTF-8' },
            Body: { Html: { Data: m.content, Charset: 'UTF-8' }, Text: { Data: htmlToText(m.content), Charset: 'UTF-8' } },
          },
        },
      }));
      return { messageId: out.MessageId ?? null, response: { MessageId: out.MessageId ?? null, status: out.$metadata.httpStatusCode ?? null } };
    },
    close() { client?.destroy(); },
  };
}
