/** `gateway_mail`: an HTTP mail gateway posting JSON delivery reports.
 *
 * Request: `POST /notify/webhooks/gateway_mail` with
 *   - `X-Timestamp: <unix seconds>`, within 5 minutes of the server clock (replay window);
 *   - `X-Signature: sha256=<hex HMAC-SHA256 over "<X-Timestamp>.<raw body>" keyed by the provider's webhook_secret>`;
 *   - body `{"events": [{"id", "type", "message_id", "timestamp"?, "reason"?}, ...]}` (at most 500 events), where
 *     `id` is the gateway's unique event id, `type` one of delivered, bounced, rejected, deferred, opened,
 *     clicked, complaint, unsubscribed (other types are acknowledged and not stored), `message_id` the id the
 *     gateway returned when the message was sent, `timestamp` ISO 8601 or unix seconds.
 * The signature is checked against every enabled gateway_mail provider with webhooks enabled (constant time);
 * the one that matches is the provider of the events. */
import { createHmac } from 'node:crypto';
import { InvalidPayloadError } from '../../errors.ts';
import { child, isObject, parseJson, str, text, timestamp } from './parse.ts';
import { safeEqual, verificationFailed } from './secret.ts';
import { DELIVERY_EVENT_KINDS, type DeliveryEventInput, type DeliveryEventKind, type WebhookAdapter } from './types.ts';

export const REPLAY_WINDOW_MS = 5 * 60 * 1000;
export const MAX_EVENTS = 500;

export function gatewaySignature(secret: string, timestampHeader: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestampHeader}.${body}`, 'utf8').digest('hex')}`;
}

function events(body: string): DeliveryEventInput[] {
  const parsed = parseJson(body, 'The body');
  if (!isObject(parsed) || !Array.isArray(parsed.events)) throw new InvalidPayloadError('The body must be {"events": [...]}.');
  if (parsed.events.length > MAX_EVENTS) throw new InvalidPayloadError(`At most ${MAX_EVENTS} events per request.`);
  const out: DeliveryEventInput[] = [];
  parsed.events.forEach((e: unknown, i: number) => {
    const o = isObject(e) ? e : null;
    const id = o && str(o.id, 200);
    const type = o && str(o.type, 64);
    const messageId = o && str(o.message_id);
    if (!o || !id || !type || !messageId) throw new InvalidPayloadError(`events[${i}] needs string "id", "type" and "message_id".`);
    if (!(DELIVERY_EVENT_KINDS as readonly string[]).includes(type)) return;
    out.push({
      eventId: id,
      event: type as DeliveryEventKind,
      providerMessageId: messageId,
      statusRaw: type,
      reason: text(o.reason) ?? text(child(o, 'error').message),
      occurredAt: timestamp(o.timestamp),
      raw: o,
    });
  });
  return out;
}

export const gatewayMail: WebhookAdapter = {
  key: 'gateway_mail',
  async handle(req, candidates, deps) {
    const ts = req.header('x-timestamp');
    const signature = req.header('x-signature');
    if (!ts || !/^\d{1,12}$/.test(ts) || !signature) throw verificationFailed();
    if (Math.abs(deps.now() - Number(ts) * 1000) > REPLAY_WINDOW_MS) throw verificationFailed();
    let providerId: number | null = null;
    for (const c of candidates) {
      // Every candidate is checked, so the time taken does not tell which one matched.
      if (safeEqual(gatewaySignature(c.secret, ts, req.body), signature.toLowerCase()) && providerId === null) providerId = c.id;
    }
    if (providerId === null) throw verificationFailed();
    return { providerId, events: events(req.body) };
  },
};
