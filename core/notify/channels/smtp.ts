/** Email over nodemailer: SMTP (pooled: connections reused across sends, up to the worker's concurrency) or the
 * local sendmail binary. nodemailer is imported and the transport created on the first send, not at import (the
 * notify worker is built with every process's services; a Lambda cold start never sends mail). */
import type { Transporter } from 'nodemailer';
import type * as Nodemailer from 'nodemailer';
import { htmlToText } from './text.ts';
import type { ChannelSender, OutgoingMessage, SendResult } from './types.ts';

export interface SmtpOptions {
  host: string;
  port: number;
  secure: boolean;
  user?: string | null;
  pass?: string | null;
  from: string;
  /** Pooled connections (the worker); a one-off send (test-send) uses none. */
  pool?: number;
}

export interface SendmailOptions { path?: string | null; from: string }

type TransportOptions = Parameters<typeof Nodemailer.createTransport>[0];

function mailSender(options: TransportOptions, from: string): ChannelSender {
  let transport: Promise<Transporter> | null = null;
  let created: Transporter | null = null;
  let closed = false;
  const open = () => transport ??= import('nodemailer').then((m) => {
    created = m.default.createTransport(options);
    if (closed) created.close(); // closed while the first send was loading it
    return created;
  });
  return {
    async send(m: OutgoingMessage): Promise<SendResult> {
      const info = await (await open()).sendMail({
        from,
        ...(m.reference ? { messageId: `<${m.reference}@${from.replace(/^.*@/, '').replace(/[>\s]/g, '') || 'localhost'}>` } : {}),
        to: m.to,
        ...(m.cc.length ? { cc: m.cc } : {}),
        ...(m.bcc.length ? { bcc: m.bcc } : {}),
        subject: m.subject,
        html: m.content,
        text: htmlToText(m.content),
      }) as { messageId?: string; accepted?: unknown[]; rejected?: unknown[]; response?: string };
      return {
        messageId: info.messageId ?? null,
        response: { accepted: info.accepted ?? [], rejected: info.rejected ?? [], response: info.response ?? null },
      };
    },
    close() { closed = true; created?.close(); },
  };
}

export function smtpSender(o: SmtpOptions): ChannelSender {
  const pool = o.pool && o.pool > 1 ? o.pool : 0;
  return mailSender({
    host: o.host,
    port: o.port,
    secure: o.secure,
    ...(pool ? { pool: true, maxConnections: pool, maxMessages: Infinity } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    ...(o.user ? { auth: { user: o.user, pass: o.pass ?? '' } } : {}),
  } as TransportOptions, o.from);
}

export function sendmailSender(o: SendmailOptions): ChannelSender {
  return mailSender({ sendmail: true, newline: 'unix', ...(o.path ? { path: o.path } : {}) } as TransportOptions, o.from);
}
