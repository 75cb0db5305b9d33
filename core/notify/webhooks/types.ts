/** What a delivery-webhook adapter receives and produces (SPEC.md > Events 5, 7). */

/** The delivery-event vocabulary of svc_notify_delivery_events.event. */
export type DeliveryEventKind = 'delivered' | 'bounced' | 'rejected' | 'deferred' | 'opened' | 'clicked' | 'complaint' | 'unsubscribed';

export const DELIVERY_EVENT_KINDS: readonly DeliveryEventKind[] = [
  'delivered', 'bounced', 'rejected', 'deferred', 'opened', 'clicked', 'complaint', 'unsubscribed',
];

/** One verified event, ready to be stored. */
export interface DeliveryEventInput {
  /** The provider's id of the event (idempotency key, stored as `{key}:{provider id}:{event id}`). */
  eventId: string;
  event: DeliveryEventKind;
  providerMessageId: string;
  /** The provider's own name for the event (e.g. `Bounce/Permanent/General`). */
  statusRaw: string | null;
  reason: string | null;
  /** ISO timestamp of the event at the provider, when it says. */
  occurredAt: string | null;
  raw: unknown;
}

/** The request as an adapter sees it: the raw body (read once, as text, for signatures). */
export interface WebhookRequest {
  body: string;
  header(name: string): string | undefined;
  query(name: string): string | undefined;
}

/** A provider whose webhook secret may verify the request: enabled, webhook_enabled, with a secret. */
export interface WebhookCandidate {
  id: number;
  secret: string;
}

export interface VerifiedReport {
  providerId: number;
  events: DeliveryEventInput[];
}

/** Injected effects, so tests can sign with their own certificate and stop the clock. */
export interface WebhookDeps {
  /** Milliseconds since the epoch. */
  now(): number;
  /** GET a URL and return its body (SNS signing certificates, subscription confirmations). */
  fetchText(url: string): Promise<string>;
  /** Host names SNS certificates and SubscribeURLs may come from (https only, see sns-signature.ts). */
  snsHost: RegExp;
}

export interface WebhookAdapter {
  /** `{key}` of POST /notify/webhooks/{key}; also the provider type (or channel) whose secrets verify it. */
  readonly key: string;
  /** Verifies the request against the candidates' secrets (401 when none verifies it) and parses its events
   * (400 when a verified body is malformed). */
  handle(req: WebhookRequest, candidates: WebhookCandidate[], deps: WebhookDeps): Promise<VerifiedReport>;
}
