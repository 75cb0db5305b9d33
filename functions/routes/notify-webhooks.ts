/** POST /notify/webhooks/{key} (public, verified by the provider's webhook secret; core/notify/webhooks). The
 * key is checked before the body is read; the raw body is read once as text (MAX_PAYLOAD_SIZE bounds it) so
 * signatures are computed over the exact bytes. Rate limited per client IP in its own bucket
 * (RATE_LIMITER_WEBHOOK_*, functions/http/rate-limit.ts). */
import type { Hono } from 'hono';
import { handleDeliveryWebhook, webhookAdapter, webhookDepsFor } from '../../core/notify/webhooks/index.ts';
import { readText } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';

export function mountNotifyWebhookRoutes(app: Hono<AppEnv>): void {
  app.post('/notify/webhooks/:key', async (c) => {
    const adapter = webhookAdapter(c.req.param('key'));
    const services = c.get('services');
    const body = await readText(c);
    await handleDeliveryWebhook(services.database.db, services.config.secret, webhookDepsFor(services), adapter, {
      body,
      header: (name) => c.req.header(name),
      query: (name) => c.req.query(name),
    });
    return c.json({ ok: true });
  });
}
