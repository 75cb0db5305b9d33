/** Amazon SNS message signatures (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html):
 * SignatureVersion 1 is RSA-SHA1, 2 is RSA-SHA256, over the canonical string of the message's fields (`Name\n
 * value\n` in a fixed order per Type). The certificate comes from SigningCertURL, accepted only over https from a
 * host matching deps.snsHost (sns.<region>.amazonaws.com) with a `.pem` path, no port and no credentials; it must
 * be a valid X.509 certificate within its validity dates. Certificates are cached per URL (at most 16, 1 hour). */
import { X509Certificate, verify, type KeyObject } from 'node:crypto';
import { ServiceUnavailableError } from '../../errors.ts';
import type { WebhookDeps } from './types.ts';

export interface SnsMessage {
  Type: string;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: string;
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  Token?: string;
  SubscribeURL?: string;
}

const REQUIRED = ['Type', 'MessageId', 'TopicArn', 'Message', 'Timestamp', 'SignatureVersion', 'Signature', 'SigningCertURL'] as const;
const OPTIONAL = ['Subject', 'Token', 'SubscribeURL'] as const;

/** The SNS envelope, or null when the body is not one (missing or non-string fields). */
export function parseSnsMessage(body: string): SnsMessage | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const o = parsed as Record<string, unknown>;
  for (const k of REQUIRED) if (typeof o[k] !== 'string') return null;
  for (const k of OPTIONAL) if (o[k] !== undefined && o[k] !== null && typeof o[k] !== 'string') return null;
  return o as unknown as SnsMessage;
}

const NOTIFICATION_FIELDS = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] as const;
const SUBSCRIPTION_FIELDS = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'] as const;

/** The string SNS signed, or null for a Type it does not define or a missing field. */
export function canonicalString(m: SnsMessage): string | null {
  const fields = m.Type === 'Notification' ? NOTIFICATION_FIELDS
    : m.Type === 'SubscriptionConfirmation' || m.Type === 'UnsubscribeConfirmation' ? SUBSCRIPTION_FIELDS
      : null;
  if (!fields) return null;
  let out = '';
  for (const f of fields) {
    const v = m[f];
    if (v === undefined || v === null) {
      if (f === 'Subject') continue; // optional in notifications only
      return null;
    }
    out += `${f}\n${v}\n`;
  }
  return out;
}

/** The URL when it is https on an allowed SNS host (default port, no credentials), else null. */
export function allowedSnsUrl(raw: string, host: RegExp, pathSuffix?: string): URL | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.port !== '' || url.username !== '' || url.password !== '') return null;
  if (!host.test(url.hostname)) return null;
  if (pathSuffix && !url.pathname.endsWith(pathSuffix)) return null;
  return url;
}

interface CachedKey { key: KeyObject; expires: number }
const CACHE_MAX = 16;
const CACHE_TTL_MS = 60 * 60 * 1000;
const caches = new WeakMap<WebhookDeps, Map<string, CachedKey>>();

async function signingKey(url: URL, deps: WebhookDeps): Promise<KeyObject | null> {
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, cache = new Map());
  const now = deps.now();
  const hit = cache.get(url.href);
  if (hit && hit.expires > now) return hit.key;
  let pem: string;
  try {
    pem = await deps.fetchText(url.href);
  } catch {
    // AWS unreachable: a 5xx, so SNS delivers the message again later.
    throw new ServiceUnavailableError('The signing certificate could not be fetched.');
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    return null;
  }
  const validTo = Date.parse(cert.validTo);
  if (!(Date.parse(cert.validFrom) <= now && now < validTo)) return null;
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(url.href, { key: cert.publicKey, expires: Math.min(now + CACHE_TTL_MS, validTo) });
  return cert.publicKey;
}

/** True when the message carries a valid SNS signature from an allowed certificate URL. */
export async function verifySnsSignature(m: SnsMessage, deps: WebhookDeps): Promise<boolean> {
  const algorithm = m.SignatureVersion === '1' ? 'sha1' : m.SignatureVersion === '2' ? 'sha256' : null;
  const canonical = canonicalString(m);
  const url = allowedSnsUrl(m.SigningCertURL, deps.snsHost, '.pem');
  if (!algorithm || canonical === null || !url) return false;
  const key = await signingKey(url, deps);
  if (!key) return false;
  try {
    return verify(algorithm, Buffer.from(canonical, 'utf8'), key, Buffer.from(m.Signature, 'base64'));
  } catch {
    return false;
  }
}
