/** POST /notify/webhooks/{key} with the gateway_mail adapter (HMAC over `${X-Timestamp}.${raw body}`), through
 * the real app: verification (forged, wrong secret, missing headers, stale timestamp, disabled webhooks), idempotent
 * replays, correlation with the log and the documented status order, unknown keys. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { attachEarlyEvents } from '../../core/notify/webhooks/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createProvider, gatewaySign, GATEWAY_CONFIG } from './webhook-helpers.ts';

let t: TestApp;
let gw: number;
let other: number;

const SECRET = 'gateway-webhook-secret';
const URL = '/notify/webhooks/gateway_mail';

async function insertLog(status: string, providerId: number | null, messageId: string): Promise<number> {
  const [row] = await run<{ id: number }>(t.services.database.db,
    `insert into svc_notify_logs (status, channel, provider_id, provider_message_id, recipients, sent_at)
     values ($1, 'email', $2, $3, '["to@example.com"]', now()) returning id`, [status, providerId, messageId]);
  return Number(row.id);
}

async function log(id: number): Promise<Record<string, any>> {
  const [row] = await run(t.services.database.db, 'select status, delivered_at, error_message from svc_notify_logs where id = $1', [id]);
  return row;
}

async function events(where = 'true', params: unknown[] = []): Promise<Record<string, any>[]> {
  return run(t.services.database.db, `select * from svc_notify_delivery_events where ${where} order by id`, params);
}

function post(body: unknown, headers: Record<string, string>, key = 'gateway_mail') {
  return t.req('POST', `/notify/webhooks/${key}`, typeof body === 'string' ? body : JSON.stringify(body), { token: null, headers });
}

function signed(body: unknown, secret = SECRET, ts?: number) {
  const text = JSON.stringify(body);
  return post(text, gatewaySign(secret, text, ts));
}

const ev = (id: string, type: string, messageId: string, extra: Record<string, unknown> = {}) =>
  ({ id, type, message_id: messageId, timestamp: '2026-11-23T10:00:05Z', ...extra });

beforeAll(async () => {
  t = await createTestApp();
  gw = await createProvider(t, { name: 'gateway', channel: 'email', type: 'gateway_mail', config: GATEWAY_CONFIG, webhook_enabled: true, webhook_secret: SECRET });
  other = await createProvider(t, { name: 'gateway 2', channel: 'email', type: 'gateway_mail', config: GATEWAY_CONFIG, webhook_enabled: true, webhook_secret: 'second-secret' });
});
afterAll(async () => { await t?.close(); });

describe('gateway_mail verification', () => {
  it('refuses a forged signature (401) and writes nothing', async () => {
    const id = await insertLog('sent', gw, 'forged-1');
    const body = JSON.stringify({ events: [ev('f-1', 'delivered', 'forged-1')] });
    const res = await post(body, { 'x-timestamp': String(Math.floor(Date.now() / 1000)), 'x-signature': `sha256=${'ab'.repeat(32)}` });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_TOKEN');
    expect(await events('provider_message_id = $1', ['forged-1'])).toHaveLength(0);
    expect((await log(id)).status).toBe('sent');
  });

  it('refuses a body changed after signing, a wrong secret, and missing headers', async () => {
    const body = JSON.stringify({ events: [ev('f-2', 'delivered', 'forged-2')] });
    const headers = gatewaySign(SECRET, body);
    expect((await post(body.replace('forged-2', 'forged-3'), headers)).status).toBe(401);
    expect((await signed({ events: [ev('f-2', 'delivered', 'forged-2')] }, 'not-the-secret')).status).toBe(401);
    expect((await post(body, { 'x-timestamp': headers['x-timestamp'] })).status).toBe(401);
    expect((await post(body, { 'x-signature': headers['x-signature'] })).status).toBe(401);
    expect(await events("provider_message_id like 'forged-%'")).toHaveLength(0);
  });

  it('refuses a stale or future timestamp (5 minute replay window), even when correctly signed', async () => {
    const body = { events: [ev('stale-1', 'delivered', 'stale-1')] };
    const now = Math.floor(Date.now() / 1000);
    expect((await signed(body, SECRET, now - 6 * 60)).status).toBe(401);
    expect((await signed(body, SECRET, now + 6 * 60)).status).toBe(401);
    expect(await events('provider_message_id = $1', ['stale-1'])).toHaveLength(0);
    expect((await signed(body, SECRET, now - 4 * 60)).status).toBe(200);
  });

  it('refuses when the provider has webhooks disabled or is disabled', async () => {
    expect((await t.req('PATCH', `/notify/providers/${other}`, { webhook_enabled: false })).status).toBe(200);
    expect((await signed({ events: [ev('off-1', 'delivered', 'off-1')] }, 'second-secret')).status).toBe(401);
    expect((await t.req('PATCH', `/notify/providers/${other}`, { webhook_enabled: true, enabled: false })).status).toBe(200);
    expect((await signed({ events: [ev('off-1', 'delivered', 'off-1')] }, 'second-secret')).status).toBe(401);
    expect((await t.req('PATCH', `/notify/providers/${other}`, { enabled: true })).status).toBe(200);
    expect((await signed({ events: [ev('off-1', 'delivered', 'off-1')] }, 'second-secret')).status).toBe(200);
    const [row] = await events('provider_message_id = $1', ['off-1']);
    expect(row.provider_id).toBe(other);
  });

  it('answers 400 for a verified but malformed body, and writes nothing', async () => {
    expect((await signed({ nope: true })).status).toBe(400);
    const res = await signed({ events: [ev('ok-1', 'delivered', 'bad-1'), { id: 'x', type: 'delivered' }] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect(await events('provider_message_id = $1', ['bad-1'])).toHaveLength(0);
  });
});

describe('gateway_mail events', () => {
  it('stores a delivered event and advances the correlated log sent -> delivered', async () => {
    const id = await insertLog('sent', gw, 'msg-1');
    const res = await signed({ events: [ev('e-1', 'delivered', 'msg-1')] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    const l = await log(id);
    expect(l.status).toBe('delivered');
    expect(new Date(l.delivered_at).toISOString()).toBe('2026-11-23T10:00:05.000Z');
    const rows = await events('provider_message_id = $1', ['msg-1']);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ log_id: id, provider_id: gw, event: 'delivered', provider_event_id: `gateway_mail:${gw}:e-1` });
  });

  it('a replay of the same event id answers 200 and changes nothing', async () => {
    const id = await insertLog('sent', gw, 'msg-2');
    const body = { events: [ev('e-2', 'bounced', 'msg-2', { reason: 'mailbox full' })] };
    expect((await signed(body)).status).toBe(200);
    await run(t.services.database.db, "update svc_notify_logs set status = 'sent' where id = $1", [id]);
    const again = await signed(body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ok: true });
    expect(await events('provider_message_id = $1', ['msg-2'])).toHaveLength(1);
    expect((await log(id)).status).toBe('sent'); // the replay did not apply the bounce again
  });

  it('status order: bounced after delivered wins; a late delivered after bounced is stored only', async () => {
    const id = await insertLog('sent', gw, 'msg-3');
    expect((await signed({ events: [ev('e-3a', 'delivered', 'msg-3')] })).status).toBe(200);
    expect((await signed({ events: [ev('e-3b', 'bounced', 'msg-3', { reason: '550 no such user' })] })).status).toBe(200);
    let l = await log(id);
    expect(l.status).toBe('bounced');
    expect(l.error_message).toBe('550 no such user');
    expect(l.delivered_at).not.toBeNull();
    expect((await signed({ events: [ev('e-3c', 'delivered', 'msg-3')] })).status).toBe(200);
    l = await log(id);
    expect(l.status).toBe('bounced');
    expect(await events('provider_message_id = $1', ['msg-3'])).toHaveLength(3);
  });

  it('rejected is final too, and informational events never change the status', async () => {
    const id = await insertLog('sent', gw, 'msg-4');
    const res = await signed({ events: [
      ev('e-4a', 'opened', 'msg-4'), ev('e-4b', 'clicked', 'msg-4'), ev('e-4c', 'deferred', 'msg-4'),
      ev('e-4d', 'complaint', 'msg-4'), ev('e-4e', 'unsubscribed', 'msg-4'), ev('e-4f', 'some_future_type', 'msg-4'),
    ] });
    expect(res.status).toBe(200);
    expect((await log(id)).status).toBe('sent');
    expect((await events('provider_message_id = $1', ['msg-4'])).map((r) => r.event)).toEqual(['opened', 'clicked', 'deferred', 'complaint', 'unsubscribed']);
    expect((await signed({ events: [ev('e-4g', 'rejected', 'msg-4'), ev('e-4h', 'delivered', 'msg-4')] })).status).toBe(200);
    expect((await log(id)).status).toBe('rejected');
  });

  it('never moves a pending, failed or cancelled log, nor a log of another provider', async () => {
    const failed = await insertLog('failed', gw, 'msg-5');
    const cancelled = await insertLog('cancelled', gw, 'msg-6');
    const foreign = await insertLog('sent', other, 'msg-7');
    expect((await signed({ events: [ev('e-5', 'delivered', 'msg-5'), ev('e-6', 'delivered', 'msg-6'), ev('e-7', 'delivered', 'msg-7')] })).status).toBe(200);
    expect((await log(failed)).status).toBe('failed');
    expect((await log(cancelled)).status).toBe('cancelled');
    expect((await log(foreign)).status).toBe('sent');
    const [row] = await events('provider_message_id = $1', ['msg-7']);
    expect(row.log_id).toBeNull();
  });

  it('stores an event without a matching log (log_id null)', async () => {
    expect((await signed({ events: [ev('e-8', 'delivered', 'unknown-message')] })).status).toBe(200);
    const [row] = await events('provider_message_id = $1', ['unknown-message']);
    expect(row.log_id).toBeNull();
  });
});

describe('reports that arrive before the log has its message id', () => {
  it('are stored unlinked, then attached and applied in arrival order once the log is marked sent', async () => {
    expect((await signed({ events: [ev('early-1', 'delivered', 'early-msg'), ev('early-2', 'opened', 'early-msg')] })).status).toBe(200);
    expect((await events('provider_message_id = $1', ['early-msg'])).every((r) => r.log_id === null)).toBe(true);
    const id = await insertLog('sent', gw, 'early-msg');
    const foreign = await insertLog('sent', other, 'early-msg');
    expect(await attachEarlyEvents(t.services.database.db, [id, foreign])).toBe(2);
    const l = await log(id);
    expect(l.status).toBe('delivered');
    expect(new Date(l.delivered_at).toISOString()).toBe('2026-11-23T10:00:05.000Z');
    expect((await log(foreign)).status).toBe('sent');
    expect((await events('provider_message_id = $1', ['early-msg'])).map((r) => r.log_id)).toEqual([id, id]);
    expect(await attachEarlyEvents(t.services.database.db, [id])).toBe(0);
  });
});

describe('webhook keys', () => {
  it('answers 404 in the errors envelope for an unknown key', async () => {
    const res = await post('{}', {}, 'no_such_adapter');
    expect(res.status).toBe(404);
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('answers 401 for a known key without any provider to verify against', async () => {
    const res = await post('{}', {}, 'cloud_mail');
    expect(res.status).toBe(401);
  });

  it('bounds the body by MAX_PAYLOAD_SIZE (413)', async () => {
    const big = JSON.stringify({ events: [], pad: 'x'.repeat(1_100_000) });
    const res = await post(big, gatewaySign(SECRET, big));
    expect(res.status).toBe(413);
  });

  it('is public: an anonymous call reaches the verification', async () => {
    expect(URL).toBe('/notify/webhooks/gateway_mail');
    expect((await post('{}', {})).status).toBe(401);
  });
});
