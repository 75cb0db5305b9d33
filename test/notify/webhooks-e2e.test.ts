/** End to end: POST /notify/trigger -> the worker sends through gateway_mail (a real HTTP receiver answering a
 * message id) -> the gateway reports delivery on POST /notify/webhooks/gateway_mail -> the log is delivered, as
 * GET /notify/logs/{id} and /notify/logs/stats show. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { addContent, addTemplate, startReceiver, waitFor, type Receiver } from './outbox-helpers.ts';
import { createProvider, gatewaySign } from './webhook-helpers.ts';

let t: TestApp;
let gateway: Receiver;
const SECRET = 'e2e-webhook-secret';

beforeAll(async () => {
  gateway = await startReceiver((_r, n) => ({ status: 202, body: { id: `e2e-${n}` } }));
  t = await createTestApp({ env: { NOTIFY_SCAN_INTERVAL: '100ms' } });
});
afterAll(async () => { await t?.close(); await gateway?.close(); });

describe('trigger -> send -> delivery report', () => {
  it('advances the log to delivered from the gateway report', async () => {
    const pid = await createProvider(t, {
      name: 'gw', channel: 'email', type: 'gateway_mail', is_primary: true,
      config: { base_url: `${gateway.url}/`, api_key: 'k', from: 'gw@example.com' }, webhook_enabled: true, webhook_secret: SECRET,
    });
    await addTemplate(t, { id: 'e2e-tpl' });
    await addContent(t, 'e2e-tpl', { provider_id: pid, subject: 'Hi', content: '<p>{{n}}</p>' });
    const trig = await t.req('POST', '/notify/trigger', { template_id: 'e2e-tpl', recipients: ['a@example.com'], variables: { n: 1 } });
    expect(trig.status).toBe(200);
    const id = trig.body.data.log_ids[0];
    const sent = await waitFor(async () => {
      const r = await t.req('GET', `/notify/logs/${id}?fields=status,provider_message_id,provider_id`);
      return r.body.data.status === 'sent' ? r.body.data : null;
    }, 8000, 'log sent');
    expect(sent).toEqual({ status: 'sent', provider_message_id: 'e2e-1', provider_id: pid });

    const body = JSON.stringify({ events: [{ id: 'evt-1', type: 'delivered', message_id: 'e2e-1', timestamp: new Date().toISOString() }] });
    const hook = await t.req('POST', '/notify/webhooks/gateway_mail', body, { token: null, headers: gatewaySign(SECRET, body) });
    expect(hook.status).toBe(200);

    const log = await t.req('GET', `/notify/logs/${id}?fields=status,delivered_at`);
    expect(log.body.data.status).toBe('delivered');
    expect(log.body.data.delivered_at).not.toBeNull();
    const stats = await t.req('GET', '/notify/logs/stats');
    expect(stats.body.data).toMatchObject({ total: 1, delivered: 1, sent: 0, pending: 0 });
  });

  it('a report that arrives before the worker has recorded the send is linked and applied afterwards', async () => {
    let reportStatus = 0;
    const EARLY_SECRET = 'early-webhook-secret'; // its own, so the report verifies against this provider
    const early = await startReceiver(async (_r, n) => {
      // The gateway reports delivery before it has even answered the send: the log is still `sending`, unlinked.
      const body = JSON.stringify({ events: [{ id: `early-evt-${n}`, type: 'delivered', message_id: `early-${n}`, timestamp: new Date().toISOString() }] });
      reportStatus = (await t.req('POST', '/notify/webhooks/gateway_mail', body, { token: null, headers: gatewaySign(EARLY_SECRET, body) })).status;
      return { status: 202, body: { id: `early-${n}` } };
    });
    try {
      const pid = await createProvider(t, {
        name: 'gw-early', channel: 'email', type: 'gateway_mail', is_primary: true,
        config: { base_url: `${early.url}/`, api_key: 'k', from: 'gw@example.com' }, webhook_enabled: true, webhook_secret: EARLY_SECRET,
      });
      await addTemplate(t, { id: 'early-tpl' });
      await addContent(t, 'early-tpl', { provider_id: pid, subject: 'Hi', content: '<p>{{n}}</p>' });
      const trig = await t.req('POST', '/notify/trigger', { template_id: 'early-tpl', recipients: ['b@example.com'], variables: { n: 2 } });
      expect(trig.status).toBe(200);
      const id = trig.body.data.log_ids[0];
      const log = await waitFor(async () => {
        const r = await t.req('GET', `/notify/logs/${id}?fields=status,provider_message_id,delivered_at`);
        return r.body.data.status === 'delivered' ? r.body.data : null;
      }, 8000, 'log delivered');
      expect(reportStatus).toBe(200);
      expect(log).toMatchObject({ status: 'delivered', provider_message_id: 'early-1' });
      expect(log.delivered_at).not.toBeNull();
    } finally {
      await early.close();
    }
  });
});
