/** Helpers of the outbox and channel tests: HTTP receivers that record what providers would get, an SMTP server on
 * a chosen port (to bring a "down" server up), reading a mail's HTML part, waiting for a condition, and setting up
 * providers, layouts and templates through the real admin API. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseMessage, type ReceivedMail } from '../helpers/smtp.ts';
import type { TestApp } from '../helpers/app.ts';

export interface Received { method: string; path: string; headers: IncomingMessage['headers']; body: any }

export interface Receiver {
  url: string;
  requests: Received[];
  /** What the receiver answers next (default 200 {id: 'msg-<n>'}). */
  answer: (req: Received, n: number) => { status: number; body: unknown } | Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

export async function startReceiver(answer?: Receiver['answer']): Promise<Receiver> {
  const requests: Received[] = [];
  const r: Receiver = {
    url: '',
    requests,
    answer: answer ?? ((_req, n) => ({ status: 200, body: { id: `msg-${n}` } })),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try { body = text ? JSON.parse(text) : null; } catch { /* keep the text */ }
      const rec: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(rec);
      const out = await r.answer(rec, requests.length);
      res.writeHead(out.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return r;
}

export async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export interface PlainSmtp { port: number; messages: ReceivedMail[]; close(): Promise<void> }

/** A plain SMTP server on `port` (0: any) that accepts everything (recipients starting with `refused` excepted),
 * each message after `delayMs`. */
export async function startSmtpOn(port: number, delayMs = 0): Promise<PlainSmtp> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
    onRcptTo(address, _s, cb) { cb(address.address.startsWith('refused') ? new Error('550 mailbox unavailable') : undefined); },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const accept = () => {
          messages.push({ raw, from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((x) => x.address), ...parseMessage(raw) });
          cb();
        };
        if (delayMs) setTimeout(accept, delayMs); else accept();
      });
    },
  });
  // A client killed mid-session (the crash test) resets its connection: expected, not a test failure.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  port = (server.server.address() as AddressInfo).port;
  return { port, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function decodeQp(s: string): string {
  const bytes = s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The text/html part of a raw message, transfer encoding undone. */
export function htmlOf(raw: string): string {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`) : [raw];
  const part = parts.find((p) => /content-type: text\/html/i.test(p));
  if (!part) throw new Error(`no html part in: ${raw.slice(0, 500)}`);
  const sep = part.indexOf('\r\n\r\n');
  const headers = part.slice(0, sep);
  const body = part.slice(sep + 4);
  if (/content-transfer-encoding: quoted-printable/i.test(headers)) return decodeQp(body);
  if (/content-transfer-encoding: base64/i.test(headers)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

export function headerOf(raw: string, name: string): string | null {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  return new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1] ?? null;
}

export async function waitFor<T>(fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 8000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function ok(t: TestApp, method: string, path: string, body: unknown): Promise<any> {
  const res = await t.req(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body?.data;
}

/** A provider through POST /notify/providers; returns its id. */
export async function addProvider(t: TestApp, p: { name: string; channel: string; type?: string | null; config: Record<string, unknown>; is_primary?: boolean; enabled?: boolean }): Promise<number> {
  const data = await ok(t, 'POST', '/notify/providers', { type: p.channel === 'email' ? p.type : null, is_primary: true, enabled: true, ...p });
  return Number(typeof data === 'object' && data !== null ? data.id : data);
}

export async function addLayout(t: TestApp, l: { id: string; name?: string; content: string }): Promise<void> {
  await ok(t, 'POST', '/notify/layouts', { name: l.id, ...l });
}

export async function addTemplate(t: TestApp, tpl: { id: string; channels?: string[]; cc_admin?: boolean; variables_schema?: unknown; layout_id?: string | null; status?: string }): Promise<void> {
  await ok(t, 'POST', '/notify/templates', { name: tpl.id, status: 'published', channels: ['email'], ...tpl });
}

export async function addContent(t: TestApp, templateId: string, c: { provider_id: number; locale?: string; subject?: string; content: string }): Promise<number> {
  const data = await ok(t, 'POST', `/notify/templates/${templateId}/contents`, { active: true, ...c });
  return Number(typeof data === 'object' && data !== null ? data.id : data);
}
