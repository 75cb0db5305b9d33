/** The read-only views of one send log that the Studio's log detail uses: GET /notify/logs/{id}/events (its delivery
 * events in the order they happened, standard query within the log) and GET /notify/logs/{id}/content (its rendered
 * content as a sandboxed HTML document). Who may read them: admins; a user who may read the log (and, for events,
 * svc_notify_delivery_events); not one whose row filter hides the log, nor one without the events permission, nor
 * one without any, nor the public, nor a share token; service mail stays admins' only. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
let shareToken: string;
let emailLog: number;
let chatLog: number;
let serviceMail: number;

async function insertLog(channel: string, content: string, templateId: string | null = 'reads-fixture'): Promise<number> {
  const [row] = await run<{ id: number }>(t.services.database.db, `insert into svc_notify_logs (status, template_id, channel, recipients, provider_message_id,
      subject_rendered, content_rendered, sent_at) values ('sent', $1, $2, '["to@example.com"]', $3, 'Subject', $4, now()) returning id`,
  [templateId, channel, `msg-${randomUUID()}`, content]);
  return Number(row.id);
}

async function insertEvent(logId: number, event: string, occurredAt: string, id: string): Promise<void> {
  await run(t.services.database.db, `insert into svc_notify_delivery_events (log_id, provider_message_id, event, occurred_at, provider_event_id, raw_payload)
    values ($1, 'm', $2, $3, $4, '{"type":"x"}')`, [logId, event, occurredAt, id]);
}

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services, { seed: true });
  await run(t.services.database.db, "insert into svc_notify_templates (id, name, status) values ('reads-fixture', 'Reads fixture', 'published')");
  emailLog = await insertLog('email', '<p style="color:red">Hello</p>');
  chatLog = await insertLog('chat', '<b>not html</b>');
  serviceMail = await insertLog('email', 'Reset your password', null);
  // Recorded out of order: the answer is in the order they happened.
  await insertEvent(emailLog, 'opened', '2030-01-01T10:05:00Z', 'e-3');
  await insertEvent(emailLog, 'delivered', '2030-01-01T10:01:00Z', 'e-1');
  await insertEvent(emailLog, 'clicked', '2030-01-01T10:09:00Z', 'e-4');
  await insertEvent(chatLog, 'delivered', '2030-01-01T10:00:00Z', 'e-chat');
  await insertEvent(serviceMail, 'delivered', '2030-01-01T10:00:00Z', 'e-service');
  const events = { collection: 'svc_notify_delivery_events', action: 'read' as const };
  await createPrincipal(t.services, { token: 'reads-email-desk', permissions: [{ collection: 'svc_notify_logs', action: 'read', permissions: { channel: { _eq: 'email' } } }, events] });
  await createPrincipal(t.services, { token: 'reads-chat-desk', permissions: [{ collection: 'svc_notify_logs', action: 'read', permissions: { channel: { _eq: 'chat' } } }, events] });
  await createPrincipal(t.services, { token: 'reads-logs-only', permissions: [{ collection: 'svc_notify_logs', action: 'read' }] });
  await createPrincipal(t.services, { token: 'reads-nobody', permissions: [{ collection: 'posts', action: 'read' }] });
  const { role } = await createPrincipal(t.services, { token: 'reads-share-role', permissions: [{ collection: 'svc_notify_logs', action: 'read' }, events] });
  const share = randomUUID();
  await run(t.services.database.db, "insert into svc_shares (id, collection, item, role) values ($1, 'posts', '1', $2)", [share, role]);
  shareToken = (await t.req('POST', '/shares/auth', { share }, { token: null })).body.data.access_token;
});
afterAll(async () => { await t?.close(); });

const events = (id: number, token?: string | null, query = '') => t.req('GET', `/notify/logs/${id}/events${query}`, undefined, token === undefined ? {} : { token });
const content = (id: number, token?: string | null) => t.req('GET', `/notify/logs/${id}/content`, undefined, token === undefined ? {} : { token });

describe('GET /notify/logs/{id}/events', () => {
  it('lists the log\'s own events in the order they happened', async () => {
    const res = await events(emailLog);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((e: { event: string }) => e.event)).toEqual(['delivered', 'opened', 'clicked']);
    expect(res.body.data.every((e: { log_id: number }) => e.log_id === emailLog)).toBe(true);
  });

  it('takes the standard query, always within the log', async () => {
    const res = await events(emailLog, undefined, '?sort=-occurred_at&fields=event,occurred_at&limit=2&meta=filter_count');
    expect(res.body.data.map((e: { event: string }) => e.event)).toEqual(['clicked', 'opened']);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(['event', 'occurred_at']);
    expect(res.body.meta.filter_count).toBe(3);
    const escape = await events(emailLog, undefined, `?filter=${encodeURIComponent(JSON.stringify({ _or: [{ log_id: { _eq: chatLog } }, { event: { _eq: 'delivered' } }] }))}`);
    expect(escape.body.data.map((e: { log_id: number }) => e.log_id)).toEqual([emailLog]);
  });

  it('answers a user who may read the log and its events, within their row filter', async () => {
    const desk = await events(emailLog, 'reads-email-desk');
    expect(desk.status, JSON.stringify(desk.body)).toBe(200);
    expect(desk.body.data).toHaveLength(3);
    expect((await events(emailLog, 'reads-chat-desk')).status).toBe(403);
    expect((await events(chatLog, 'reads-chat-desk')).body.data.map((e: { event: string }) => e.event)).toEqual(['delivered']);
    // Service mail (a template-less email) is admins' only, whatever the filter.
    expect((await events(serviceMail, 'reads-email-desk')).status).toBe(403);
    expect((await events(serviceMail)).body.data).toHaveLength(1);
  });

  it('refuses the rest: no events permission, no permission, the public, a share token, a missing log', async () => {
    expect((await events(emailLog, 'reads-logs-only')).status).toBe(403);
    expect((await events(emailLog, 'reads-nobody')).status).toBe(403);
    expect((await events(emailLog, null)).status).toBe(401);
    expect((await events(emailLog, shareToken)).status).toBe(403);
    expect((await events(999_999)).status).toBe(403);
    expect((await t.req('GET', '/notify/logs/abc/events')).status).toBe(403);
  });
});

describe('GET /notify/logs by recipient (the Studio\'s recipient search)', () => {
  it('finds logs whose recipients contain the text, in any case', async () => {
    const filter = encodeURIComponent(JSON.stringify({ _and: [{ recipients: { _icontains: 'TO@EXAMPLE' } }, { channel: { _eq: 'chat' } }] }));
    const res = await t.req('GET', `/notify/logs?filter=${filter}&fields=id`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((l: { id: number }) => l.id)).toEqual([chatLog]);
    const none = await t.req('GET', `/notify/logs?filter=${encodeURIComponent(JSON.stringify({ recipients: { _icontains: 'nobody@' } }))}`);
    expect(none.body.data).toEqual([]);
  });
});

describe('GET /notify/logs/{id}/content', () => {
  it('answers the rendered email as a sandboxed document, and other channels as escaped text', async () => {
    const res = await content(emailLog);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/(^|; )sandbox(;|$)/);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    expect(res.body).toBe('<p style="color:red">Hello</p>');
    const chat = await content(chatLog);
    expect(chat.body).toContain('&#60;b&#62;not html&#60;/b&#62;');
  });

  it('answers those who may read the log only', async () => {
    expect((await content(emailLog, 'reads-email-desk')).status).toBe(200);
    expect((await content(emailLog, 'reads-logs-only')).status).toBe(200);
    expect((await content(emailLog, 'reads-chat-desk')).status).toBe(403);
    expect((await content(serviceMail, 'reads-email-desk')).status).toBe(403);
    expect((await content(emailLog, 'reads-nobody')).status).toBe(403);
    expect((await content(emailLog, null)).status).toBe(401);
    expect((await content(emailLog, shareToken)).status).toBe(403);
  });
});
