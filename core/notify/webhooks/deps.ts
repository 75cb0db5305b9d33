/** The effects webhook adapters use, chosen per set of services: the real clock and a bounded HTTPS GET by
 * default; tests swap them with useWebhookDeps (their own certificate host, a fake fetcher, a fixed clock). */
import type { WebhookDeps } from './types.ts';
import { readBounded } from '../../streams/read-bounded.ts';

/** sns.<region>.amazonaws.com (and the China partition's amazonaws.com.cn). */
export const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

const FETCH_TIMEOUT_MS = 5_000;
const FETCH_MAX_BYTES = 64 * 1024;

/** GET without redirects, 5 s timeout, at most 64 KiB, 2xx only. */
export async function boundedFetchText(url: string): Promise<string> {
  const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok || !res.body) throw new Error(`GET ${url}: ${res.status}`);
  const bytes = await readBounded(res.body, FETCH_MAX_BYTES);
  if (bytes === null) throw new Error(`GET ${url}: body larger than ${FETCH_MAX_BYTES} bytes`);
  return bytes.toString('utf8');
}

export const defaultWebhookDeps: WebhookDeps = { now: () => Date.now(), fetchText: boundedFetchText, snsHost: SNS_HOST };

// Keyed by the services object the apps are built on (any object: no member of it is used here).
const chosen = new WeakMap<object, WebhookDeps>();

export function webhookDepsFor(services: object): WebhookDeps {
  return chosen.get(services) ?? defaultWebhookDeps;
}

/** Replaces some effects for the apps built on `services` (tests). */
export function useWebhookDeps(services: object, deps: Partial<WebhookDeps>): WebhookDeps {
  const next = { ...defaultWebhookDeps, ...deps };
  chosen.set(services, next);
  return next;
}
