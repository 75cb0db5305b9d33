/** POST /notify/webhooks/{key} (SPEC.md > Notification module, Webhook rules; Events 5): the adapter of `{key}`
 * (unknown -> 404 NOT_FOUND) verifies the raw body against the webhook secrets of the enabled providers with
 * webhook_enabled whose type or channel equals `{key}` (none verifies -> 401), then its events are stored and the
 * correlated logs advanced in one transaction (record.ts). One adapter per file. */
import type { Executor } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';
import { enabledProviders } from '../providers-store.ts';
import { cloudMail } from './cloud-mail.ts';
import { gatewayMail } from './gateway-mail.ts';
import { recordReport, type RecordResult } from './record.ts';
import { verificationFailed } from './secret.ts';
import type { WebhookAdapter, WebhookCandidate, WebhookDeps, WebhookRequest } from './types.ts';

export { useWebhookDeps, webhookDepsFor } from './deps.ts';
export { attachEarlyEvents } from './record.ts';

const ADAPTERS: ReadonlyMap<string, WebhookAdapter> = new Map([cloudMail, gatewayMail].map((a) => [a.key, a]));

export function webhookAdapter(key: string): WebhookAdapter {
  const adapter = ADAPTERS.get(key);
  if (!adapter) throw new NotFoundError(`Unknown webhook "${key.slice(0, 64)}".`);
  return adapter;
}

export async function webhookCandidates(db: Executor, secret: string, key: string): Promise<WebhookCandidate[]> {
  const out: WebhookCandidate[] = [];
  for (const p of await enabledProviders(db, secret)) {
    if (p.webhook_enabled && (p.type === key || p.channel === key) && p.webhook_secret) out.push({ id: p.id, secret: p.webhook_secret });
  }
  return out;
}

export async function handleDeliveryWebhook(db: Executor, secret: string, deps: WebhookDeps, adapter: WebhookAdapter, req: WebhookRequest): Promise<RecordResult> {
  const candidates = await webhookCandidates(db, secret, adapter.key);
  if (candidates.length === 0) throw verificationFailed();
  const report = await adapter.handle(req, candidates, deps);
  return recordReport(db, adapter.key, report);
}
