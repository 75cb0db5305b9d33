/** The channel senders against real HTTP receivers, through trigger and the worker: gateway_mail (POST {base_url}/send
 * with a bearer key; the message id from the answer; a 5xx retried), chat (JSON to the provider url with its token;
 * the settings' chat_url when no chat provider is enabled), cloud_mail (the real SES v2 client against a receiver
 * answering like SES: {MessageId}). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { addContent, addProvider, addTemplate, startReceiver, waitFor, type Receiver } from './outbox-helpers.ts';

let t: TestApp;
let gateway: Receiver;
let chat: Receiver;
let settingsChat: Receiver;
let ses: Receiver;
const q = (sql: string, params: unknown[] = []) => run<Record<string, any>>(t.services.database.db, sql, params);
const sentLog = (id: number) => waitFor(async () => {
  const [l] = await q('select * from svc_notify_logs where id = $1', [id]);
  return l.status === 'sent' || l.status === 'failed' ? l : null;
}, 8000, `log ${id} done`);

beforeAll(async () => {
  gateway = await startReceiver();
  chat = await startReceiver((_r, n) => ({ status: 200, body: { ok: true, ts: `171.${n}` } }));
  settingsChat = await startReceiver(() => ({ status: 200, body: { ok: true } }));
  ses = await startReceiver((_r, n) => ({ status: 200, body: { MessageId: `ses-${n}` } }));
  t = await createTestApp({ env: { NOTIFY_RETRY_DELAY: '50ms', NOTIFY_SCAN_INTERVAL: '100ms' } });
});
afterAll(async () => { await t.close(); await Promise.all([gateway, chat, settingsChat, ses].map((r) => r.close())); });

describe('gateway_mail', () => {
  it('posts {from, to, cc, bcc, subject, html} to {base_url}/send with the bearer key; a 5xx is retried', async () => {
    const pid = await addProvider(t, { name: 'gw', channel: 'email', type: 'gateway_mail', config: { base_url: `${gateway.url}/api/`, api_key: 'gw-key', from: 'gw@example.com' } });
    await addTemplate(t, { id: 'gw-tpl' });
    await addContent(t, 'gw-tpl', { provider_id: pid, subject: 'Order {{n}}', content: '<p>#{{n}}</p>' });
    gateway.answer = (_r, n) => (n === 1 ? { status: 503, body: { error: 'busy' } } : { status: 202, body: { id: `gw-${n}` } });
    const res = await t.req('POST', '/notify/trigger', { template_id: 'gw-tpl', recipients: ['a@example.com'], cc: ['c@example.com'], bcc: ['b@example.com'], variables: { n: 7 } });
    expect(res.status).toBe(200);
    const log = await sentLog(res.body.data.log_ids[0]);
    expect(log).toMatchObject({ status: 'sent', attempts: 2, provider_message_id: 'gw-2', provider_id: pid });
    expect(log.provider_response).toEqual({ status: 202, body: { id: 'gw-2' } });
    expect(gateway.requests).toHaveLength(2);
    const req = gateway.requests[1];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/api/send');
    expect(req.headers.authorization).toBe('Bearer gw-key');
    expect(req.body).toEqual({ from: 'gw@example.com', to: ['a@example.com'], cc: ['c@example.com'], bcc: ['b@example.com'], subject: 'Order 7', html: '<p>#7</p>' });
  });
});

describe('chat', () => {
  it('falls back to the settings chat_url when no chat provider is enabled, then uses the enabled primary', async () => {
    const off = await addProvider(t, { name: 'chat-off', channel: 'chat', config: { url: 'http://127.0.0.1:9/never' }, enabled: false, is_primary: false });
    await addTemplate(t, { id: 'chat-tpl', channels: ['chat'] });
    await addContent(t, 'chat-tpl', { provider_id: off, subject: 'Deploy {{v}}', content: 'Version {{v}} is <live>' });
    expect((await t.req('PATCH', '/notify/settings', { chat_url: `${settingsChat.url}/hook`, chat_token: 'settings-token' })).status).toBe(200);
    const r1 = await t.req('POST', '/notify/trigger', { template_id: 'chat-tpl', recipients: ['ops@example.com'], variables: { v: '1.2' } });
    expect(r1.status).toBe(200);
    const l1 = await sentLog(r1.body.data.log_ids[0]);
    expect(l1).toMatchObject({ status: 'sent', channel: 'chat', provider_id: null });
    expect(settingsChat.requests[0].path).toBe('/hook');
    expect(settingsChat.requests[0].headers.authorization).toBe('Bearer settings-token');
    expect(settingsChat.requests[0].body).toMatchObject({ subject: 'Deploy 1.2', content: 'Version 1.2 is <live>', text: 'Deploy 1.2\n\nVersion 1.2 is <live>' });

    const on = await addProvider(t, { name: 'chat-on', channel: 'chat', config: { url: `${chat.url}/post`, token: 'chat-token' } });
    await addContent(t, 'chat-tpl', { provider_id: on, subject: 'Deploy {{v}}', content: 'Live: {{v}}' });
    await new Promise((r) => setTimeout(r, 1100)); // the worker's provider resolution is kept for a second
    const r2 = await t.req('POST', '/notify/trigger', { template_id: 'chat-tpl', recipients: ['ops@example.com'], variables: { v: '1.3' } });
    const l2 = await sentLog(r2.body.data.log_ids[0]);
    expect(l2).toMatchObject({ status: 'sent', provider_id: on, provider_message_id: '171.1' });
    expect(chat.requests[0].headers.authorization).toBe('Bearer chat-token');
    expect(chat.requests[0].body).toMatchObject({ subject: 'Deploy 1.3', content: 'Live: 1.3' });
  });
});

describe('cloud_mail', () => {
  it('sends through the SES v2 client to the configured endpoint and keeps its MessageId', async () => {
    const pid = await addProvider(t, { name: 'ses', channel: 'email', type: 'cloud_mail', config: { region: 'eu-west-1', access_key: 'AKIDEXAMPLE', secret_key: 'secret', from: 'cloud@example.com', endpoint: ses.url } });
    await addTemplate(t, { id: 'ses-tpl' });
    await addContent(t, 'ses-tpl', { provider_id: pid, subject: 'Hi {{who}}', content: '<p>Hello {{who}}</p>' });
    const res = await t.req('POST', '/notify/trigger', { template_id: 'ses-tpl', recipients: ['ses@example.com'], variables: { who: 'Bo' } });
    const log = await sentLog(res.body.data.log_ids[0]);
    expect(log).toMatchObject({ status: 'sent', provider_message_id: 'ses-1', provider_id: pid });
    const req = ses.requests[0];
    expect(req.path).toBe('/v2/email/outbound-emails');
    expect(String(req.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d+\/eu-west-1\/ses\/aws4_request/);
    expect(req.body).toMatchObject({
      FromEmailAddress: 'cloud@example.com',
      Destination: { ToAddresses: ['ses@example.com'] },
      Content: { Simple: { Subject: { Data: 'Hi Bo' }, Body: { Html: { Data: '<p>Hello Bo</p>' }, Text: { Data: 'Hello Bo' } } } },
    });
  });

  it('test-send through a cloud_mail provider answers success with the id', async () => {
    const [{ id }] = await q("select id from svc_notify_providers where name = 'ses'");
    const res = await t.req('POST', '/notify/test-send', { provider_id: id, recipients: ['probe@example.com'], subject: 'S', content: '<p>c</p>' });
    expect(res.body.data).toEqual({ success: true, message: 'Sent (message id ses-2).' });
  });
});
