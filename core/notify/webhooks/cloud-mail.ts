/** `cloud_mail`: Amazon SES event notifications delivered through an SNS HTTPS subscription.
 *
 * Subscribe `https://<host>/notify/webhooks/cloud_mail?token=<webhook_secret>` to the SNS topic the SES
 * configuration set (or identity notifications) publishes to. Each request must pass both checks:
 *   - `token` equals the webhook_secret of an enabled cloud_mail provider with webhooks enabled (constant time;
 *     SNS signs with AWS' key, so the signature alone does not tell our topic from anyone else's);
 *   - the SNS signature (sns-signature.ts) is valid, with the certificate from sns.<region>.amazonaws.com.
 * Types:
 *   - SubscriptionConfirmation: the SubscribeURL is fetched (GET) to confirm the subscription, only when it is
 *     https on an SNS host; otherwise 400 (503 when the GET fails). Nothing is stored.
 *   - UnsubscribeConfirmation: acknowledged, nothing stored.
 *   - Notification: `Message` is the SES event JSON (event publishing `eventType`, or the older identity
 *     notifications `notificationType`), correlated by `mail.messageId`. Delivery -> delivered; Bounce ->
 *     bounced (Permanent, Undetermined) or deferred (Transient); Complaint -> complaint; Reject -> rejected;
 *     Open -> opened; Click -> clicked; DeliveryDelay -> deferred; Subscription -> unsubscribed. Send and
 *     Rendering Failure are acknowledged and not stored. The SNS MessageId is the event id (SNS retries reuse it).
 * SNS' Timestamp is not checked against a window (SNS retries for hours); replays are idempotent instead. */
import { InvalidPayloadError, ServiceUnavailableError } from '../../errors.ts';
import { child, isObject, parseJson, str, text, timestamp, type Json } from './parse.ts';
import { allowedSnsUrl, parseSnsMessage, verifySnsSignature } from './sns-signature.ts';
import { safeEqual, verificationFailed } from './secret.ts';
import type { DeliveryEventInput, DeliveryEventKind, WebhookAdapter, WebhookDeps } from './types.ts';

interface Mapped { event: DeliveryEventKind; detail: Json; reason: string | null; sub: string | null }

function firstRecipient(detail: Json, list: string): Json {
  const v = detail[list];
  return Array.isArray(v) && isObject(v[0]) ? v[0] : {};
}

function mapSes(kind: string, ses: Json): Mapped | null {
  switch (kind) {
    case 'Delivery': {
      const d = child(ses, 'delivery');
      return { event: 'delivered', detail: d, reason: text(d.smtpResponse), sub: null };
    }
    case 'Bounce': {
      const d = child(ses, 'bounce');
      const type = str(d.bounceType, 64);
      const reason = text(firstRecipient(d, 'bouncedRecipients').diagnosticCode) ?? text(d.bounceSubType);
      return { event: type === 'Transient' ? 'deferred' : 'bounced', detail: d, reason, sub: [type, str(d.bounceSubType, 64)].filter(Boolean).join('/') || null };
    }
    case 'Complaint': {
      const d = child(ses, 'complaint');
      return { event: 'complaint', detail: d, reason: text(d.complaintFeedbackType), sub: str(d.complaintFeedbackType, 64) };
    }
    case 'Reject': {
      const d = child(ses, 'reject');
      return { event: 'rejected', detail: d, reason: text(d.reason), sub: null };
    }
    case 'Open':
      return { event: 'opened', detail: child(ses, 'open'), reason: null, sub: null };
    case 'Click': {
      const d = child(ses, 'click');
      return { event: 'clicked', detail: d, reason: text(d.link), sub: null };
    }
    case 'DeliveryDelay': {
      const d = child(ses, 'deliveryDelay');
      return { event: 'deferred', detail: d, reason: text(d.delayType), sub: str(d.delayType, 64) };
    }
    case 'Subscription':
      return { event: 'unsubscribed', detail: child(ses, 'subscription'), reason: null, sub: null };
    default:
      return null; // Send, Rendering Failure and future types
  }
}

function sesEvents(message: string, snsMessageId: string): DeliveryEventInput[] {
  const ses = parseJson(message, 'The SNS Message');
  if (!isObject(ses)) throw new InvalidPayloadError('The SNS Message must be an SES event object.');
  const kind = str(ses.eventType, 64) ?? str(ses.notificationType, 64);
  if (!kind) throw new InvalidPayloadError('The SES event has no eventType or notificationType.');
  const mapped = mapSes(kind, ses);
  if (!mapped) return [];
  const mail = child(ses, 'mail');
  const messageId = str(mail.messageId);
  if (!messageId) throw new InvalidPayloadError('The SES event has no mail.messageId.');
  return [{
    eventId: snsMessageId,
    event: mapped.event,
    providerMessageId: messageId,
    statusRaw: [kind, mapped.sub].filter(Boolean).join('/').slice(0, 255),
    reason: mapped.reason,
    occurredAt: timestamp(mapped.detail.timestamp) ?? timestamp(mail.timestamp),
    raw: ses,
  }];
}

async function confirmSubscription(url: string | undefined, deps: WebhookDeps): Promise<void> {
  const allowed = url ? allowedSnsUrl(url, deps.snsHost) : null;
  if (!allowed) throw new InvalidPayloadError('SubscribeURL is not an Amazon SNS address.');
  try {
    await deps.fetchText(allowed.href);
  } catch {
    throw new ServiceUnavailableError('The subscription could not be confirmed.');
  }
}

export const cloudMail: WebhookAdapter = {
  key: 'cloud_mail',
  async handle(req, candidates, deps) {
    const token = req.query('token');
    if (!token) throw verificationFailed();
    let providerId: number | null = null;
    for (const c of candidates) {
      if (safeEqual(c.secret, token) && providerId === null) providerId = c.id;
    }
    if (providerId === null) throw verificationFailed();
    const message = parseSnsMessage(req.body);
    if (!message || !(await verifySnsSignature(message, deps))) throw verificationFailed();
    switch (message.Type) {
      case 'SubscriptionConfirmation':
        await confirmSubscription(message.SubscribeURL, deps);
        return { providerId, events: [] };
      case 'Notification':
        return { providerId, events: sesEvents(message.Message, message.MessageId) };
      default:
        return { providerId, events: [] };
    }
  },
};
