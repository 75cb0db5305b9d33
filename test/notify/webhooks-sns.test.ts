/** POST /notify/webhooks/cloud_mail: SES events through SNS, verified by the provider's webhook secret (`?token=`)
 * and the SNS signature (SignatureVersion 1 and 2) against a certificate from an allowed SNS host. The test signs
 * with its own self-signed certificate, served by an injected fetcher at an sns.<region>.amazonaws.com URL. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { useWebhookDeps } from '../../core/notify/webhooks/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  CERT_URL, CLOUD_CONFIG, createProvider, selfSignedCert, sesEvent, sesNotification, signSns, TOPIC, type SnsFields, type TestCert,
} from './webhook-helpers.ts';

let t: TestApp;
let provider: number;
let cert: TestCert;
const fetched: string[] = [];
const TOKEN = 'sns-webhook-token';

async function insertLog(messageId: string, status = 'sent'): Promise<number> {
  const [row] = await run<{ id: number }>(t.services.database.db,
    `insert into svc_notify_logs (status, channel, provider_id, provider_message_id, recipients, sent_at)
     values ($1, 'email', $2, $3, '["to@example.com"]', now()) returning id`, [status, provider, messageId]);
  return Number(row.id);
}

async function status(id: number): Promise<string> {
  const [row] = await run<{ status: string }>(t.services.database.db, 'select status from svc_notify_logs where id = $1', [id]);
  return row.status;
}

async function eventsOf(messageId: string): Promise<Record<string, any>[]> {
  return run(t.services.database.db, 'select * from svc_notify_delivery_events where provider_message_id = $1 order by id', [messageId]);
}

function post(message: SnsFields, token: string | null = TOKEN) {
  const path = token === null ? '/notify/webhooks/cloud_mail' : `/notify/webhooks/cloud_mail?token=${encodeURIComponent(token)}`;
  // SNS posts JSON with a text/plain content type.
  return t.req('POST', path, JSON.stringify(message), { token: null, headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': message.Type } });
}

beforeAll(async () => {
  t = await createTestApp();
  cert = selfSignedCert();
  useWebhookDeps(t.services, {
    async fetchText(url) {
      fetched.push(url);
      if (url === CERT_URL) return cert.pem;
      if (url.startsWith('https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription')) return '<ConfirmSubscriptionResponse/>';
      throw new Error(`unexpected GET ${url}`);
    },
  });
  provider = await createProvider(t, { name: 'ses', channel: 'email', type: 'cloud_mail', config: CLOUD_CONFIG, webhook_enabled: true, webhook_secret: TOKEN });
});
afterAll(async () => { await t?.close(); });

describe('cloud_mail verification', () => {
  it('accepts a SignatureVersion 1 notification and advances sent -> delivered', async () => {
    const id = await insertLog('ses-1');
    const res = await post(signSns(sesNotification('sns-1', sesEvent('Delivery', 'ses-1', { smtpResponse: '250 ok' })), cert.privateKey, '1'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await status(id)).toBe('delivered');
    const [row] = await eventsOf('ses-1');
    expect(row).toMatchObject({ log_id: id, provider_id: provider, event: 'delivered', reason: '250 ok', provider_event_id: `cloud_mail:${provider}:sns-1` });
  });

  it('accepts SignatureVersion 2 (SHA256): a permanent bounce -> bounced', async () => {
    const id = await insertLog('ses-2');
    const ses = sesEvent('Bounce', 'ses-2', { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: 'to@example.com', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] });
    expect((await post(signSns(sesNotification('sns-2', ses), cert.privateKey, '2'))).status).toBe(200);
    expect(await status(id)).toBe('bounced');
    const [row] = await eventsOf('ses-2');
    expect(row).toMatchObject({ event: 'bounced', provider_status_raw: 'Bounce/Permanent/General', reason: 'smtp; 550 5.1.1 user unknown' });
  });

  it('a transient bounce is recorded as deferred without changing the status; complaints and opens likewise', async () => {
    const id = await insertLog('ses-3');
    expect((await post(signSns(sesNotification('sns-3a', sesEvent('Bounce', 'ses-3', { bounceType: 'Transient', bounceSubType: 'MailboxFull' })), cert.privateKey))).status).toBe(200);
    expect((await post(signSns(sesNotification('sns-3b', sesEvent('Complaint', 'ses-3', { complaintFeedbackType: 'abuse' })), cert.privateKey))).status).toBe(200);
    expect((await post(signSns(sesNotification('sns-3c', sesEvent('Open', 'ses-3')), cert.privateKey))).status).toBe(200);
    // The older identity notifications say notificationType instead of eventType.
    const legacy = { notificationType: 'Delivery', mail: { messageId: 'ses-3' }, delivery: { timestamp: '2026-11-23T10:01:00.000Z' } };
    expect((await post(signSns(sesNotification('sns-3d', legacy), cert.privateKey))).status).toBe(200);
    expect((await eventsOf('ses-3')).map((r) => r.event)).toEqual(['deferred', 'complaint', 'opened', 'delivered']);
    expect(await status(id)).toBe('delivered');
  });

  it('a Send event is acknowledged and not stored', async () => {
    expect((await post(signSns(sesNotification('sns-4', sesEvent('Send', 'ses-4')), cert.privateKey))).status).toBe(200);
    expect(await eventsOf('ses-4')).toHaveLength(0);
  });

  it('a replay of the same SNS MessageId answers 200 and stores one row', async () => {
    const msg = signSns(sesNotification('sns-5', sesEvent('Reject', 'ses-5', { reason: 'Bad content' })), cert.privateKey);
    expect((await post(msg)).status).toBe(200);
    expect((await post(msg)).status).toBe(200);
    expect(await eventsOf('ses-5')).toHaveLength(1);
  });

  it('refuses a missing or wrong token (401) before any signature work', async () => {
    const msg = signSns(sesNotification('sns-6', sesEvent('Delivery', 'ses-6')), cert.privateKey);
    expect((await post(msg, null)).status).toBe(401);
    expect((await post(msg, 'wrong-token')).status).toBe(401);
    expect(await eventsOf('ses-6')).toHaveLength(0);
  });

  it('refuses a forged signature or a message changed after signing, and writes nothing', async () => {
    const id = await insertLog('ses-7');
    const signed = signSns(sesNotification('sns-7', sesEvent('Delivery', 'ses-7')), cert.privateKey);
    const changed = { ...signed, Message: JSON.stringify(sesEvent('Bounce', 'ses-7', { bounceType: 'Permanent' })) };
    expect((await post(changed)).status).toBe(401);
    const other = selfSignedCert();
    expect((await post(signSns(sesNotification('sns-7', sesEvent('Delivery', 'ses-7')), other.privateKey))).status).toBe(401);
    expect((await post({ ...signed, SignatureVersion: '3' })).status).toBe(401);
    expect((await post({ ...signed, Signature: 'not base64 at all' })).status).toBe(401);
    const res = await t.req('POST', `/notify/webhooks/cloud_mail?token=${TOKEN}`, 'not json', { token: null });
    expect(res.status).toBe(401);
    expect(await eventsOf('ses-7')).toHaveLength(0);
    expect(await status(id)).toBe('sent');
  });

  it('fetches the certificate only from https://sns.<region>.amazonaws.com/*.pem', async () => {
    const before = fetched.length;
    for (const url of [
      'https://evil.example.com/SimpleNotificationService-test.pem',
      'http://sns.eu-west-1.amazonaws.com/SimpleNotificationService-test.pem',
      'https://sns.eu-west-1.amazonaws.com.evil.example.com/x.pem',
      'https://sns.eu-west-1.amazonaws.com:8443/x.pem',
      'https://sns.eu-west-1.amazonaws.com/not-a-pem.txt',
    ]) {
      const res = await post(signSns(sesNotification('sns-8', sesEvent('Delivery', 'ses-8')), cert.privateKey, '1', url));
      expect(res.status, url).toBe(401);
    }
    expect(fetched.length).toBe(before);
    expect(await eventsOf('ses-8')).toHaveLength(0);
  });

  it('refuses a certificate outside its validity dates', async () => {
    const expired = selfSignedCert('old', new Date(Date.now() - 10 * 86_400_000), new Date(Date.now() - 86_400_000));
    const url = 'https://sns.eu-west-1.amazonaws.com/expired.pem';
    useWebhookDeps(t.services, { fetchText: async (u) => (u === url ? expired.pem : u === CERT_URL ? cert.pem : '') });
    try {
      expect((await post(signSns(sesNotification('sns-9', sesEvent('Delivery', 'ses-9')), expired.privateKey, '1', url))).status).toBe(401);
    } finally {
      useWebhookDeps(t.services, { fetchText: async (u) => { fetched.push(u); return u === CERT_URL ? cert.pem : '<ok/>'; } });
    }
  });
});

describe('cloud_mail subscription', () => {
  it('confirms a verified SubscriptionConfirmation by fetching its SubscribeURL on the SNS host', async () => {
    const subscribe = `https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(TOPIC)}&Token=abc`;
    const msg = signSns({
      Type: 'SubscriptionConfirmation', MessageId: 'sub-1', Token: 'abc', TopicArn: TOPIC,
      Message: 'You have chosen to subscribe to the topic.', SubscribeURL: subscribe, Timestamp: new Date().toISOString(),
    }, cert.privateKey);
    const res = await post(msg);
    expect(res.status).toBe(200);
    expect(fetched).toContain(subscribe);
    expect(await run(t.services.database.db, "select 1 from svc_notify_delivery_events where provider_event_id like 'cloud_mail:%:sub-1'")).toHaveLength(0);
  });

  it('does not fetch a SubscribeURL outside the SNS hosts (400)', async () => {
    const before = fetched.length;
    const msg = signSns({
      Type: 'SubscriptionConfirmation', MessageId: 'sub-2', Token: 'abc', TopicArn: TOPIC,
      Message: 'subscribe', SubscribeURL: 'https://evil.example.com/confirm', Timestamp: new Date().toISOString(),
    }, cert.privateKey);
    const res = await post(msg);
    expect(res.status).toBe(400);
    expect(fetched.length).toBe(before);
  });

  it('does not confirm an unsigned SubscriptionConfirmation (401)', async () => {
    const before = fetched.length;
    const msg = signSns({
      Type: 'SubscriptionConfirmation', MessageId: 'sub-3', Token: 'abc', TopicArn: TOPIC,
      Message: 'subscribe', SubscribeURL: 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=x', Timestamp: new Date().toISOString(),
    }, cert.privateKey);
    const res = await post({ ...msg, SubscribeURL: 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=changed' });
    expect(res.status).toBe(401);
    expect(fetched.slice(before).filter((u) => u.includes('ConfirmSubscription'))).toHaveLength(0);
  });
});
