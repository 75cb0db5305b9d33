/** A real SMTP server (smtp-server) on an ephemeral port: collects every message it receives, so tests can
 * read the token out of the link an email carries. */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The text part, transfer-decoding undone. */
  text: string;
}

export interface TestSmtp {
  port: number;
  messages: ReceivedMail[];
  /** Env for createTestApp pointing the mailer at this server. */
  env: Record<string, string>;
  /** Resolves with the first message to `to` not consumed yet, waiting up to timeoutMs. */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** The token= query value of the first link in a message. */
  tokenOf(mail: ReceivedMail): string;
  linkOf(mail: ReceivedMail): string;
  close(): Promise<void>;
}

function decodeQuotedPrintable(s: string): string {
  const bytes = s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Minimal MIME reading: enough for nodemailer's text + html alternative messages. */
export function parseMessage(raw: string): { subject: string; text: string } {
  const headerEnd = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, headerEnd).replace(/\r\n[ \t]+/g, ' ');
  const subject = /^Subject: (.*)$/im.exec(headers)?.[1] ?? '';
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`).slice(1, -1) : [raw];
  const text = parts.find((p) => /content-type: text\/plain/i.test(p)) ?? parts[0];
  const sep = text.indexOf('\r\n\r\n');
  const partHeaders = text.slice(0, sep);
  let body = text.slice(sep + 4);
  if (/content-transfer-encoding: quoted-printable/i.test(partHeaders)) body = decodeQuotedPrintable(body);
  else if (/content-transfer-encoding: base64/i.test(partHeaders)) body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return { subject, text: body };
}

export async function startSmtp(): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  const consumed = new Set<ReceivedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Refuses recipients whose address starts with `refused`, as a server refusing a mailbox does.
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('refused')) return callback(new Error('550 mailbox unavailable'));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          raw,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          ...parseMessage(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const linkOf = (mail: ReceivedMail) => {
    const m = /https?:\/\/\S+/.exec(mail.text);
    if (!m) throw new Error(`No link in mail: ${mail.text}`);
    return m[0];
  };
  return {
    port,
    messages,
    env: { EMAIL_SMTP_HOST: '127.0.0.1', EMAIL_SMTP_PORT: String(port), EMAIL_SMTP_SECURE: 'false', EMAIL_FROM: 'svc@example.com' },
    async next(to, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => !consumed.has(m) && m.to.includes(to.toLowerCase()) || !consumed.has(m) && m.to.includes(to));
        if (found) {
          consumed.add(found);
          return found;
        }
        if (Date.now() > deadline) throw new Error(`No mail to ${to} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    linkOf,
    tokenOf: (mail) => new URL(linkOf(mail)).searchParams.get('token') ?? '',
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
