/** The Mailer port: nodemailer over SMTP (or the local sendmail binary), configured from EMAIL_*. One
 * transport per configuration, reused across requests (it pools nothing, so it holds no sockets idle). */
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

const transports = new WeakMap<Config, Transporter>();

/** nodemailer is imported with the first message: most processes never send one. */
async function transportFor(config: Config): Promise<Transporter> {
  let transport = transports.get(config);
  if (!transport) {
    const { default: nodemailer } = await import('nodemailer');
    transport = transports.get(config) ?? config.emailTransport === 'sendmail'
      ? nodemailer.createTransport({ sendmail: true, newline: 'unix' })
      : nodemailer.createTransport({
        host: config.emailSmtpHost,
        port: config.emailSmtpPort,
        secure: config.emailSmtpSecure,
        // Fail in seconds, not nodemailer's minutes, when the server is unreachable: requests wait on mail.
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
        ...(config.emailSmtpUser ? { auth: { user: config.emailSmtpUser, pass: config.emailSmtpPassword ?? '' } } : {}),
      });
    transports.set(config, transport);
  }
  return transport;
}

export async function sendMail(config: Config, message: MailMessage): Promise<void> {
  await (await transportFor(config)).sendMail({ from: config.emailFrom, ...message });
}

/** Whether the configured SMTP server accepts a connection and the credentials, on the transport mail is sent
 * with (`svc doctor`). */
export async function verifyMail(config: Config): Promise<void> {
  await (await transportFor(config)).verify();
}

/** A plain message with one call-to-action link, as text and as HTML. */
export function linkMessage(to: string, subject: string, intro: string, url: string): MailMessage {
  const escaped = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return {
    to,
    subject,
    text: `${intro}\n\n${url}\n`,
    html: `<p>${intro.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p><p><a href="${escaped}">${escaped}</a></p>`,
  };
}
