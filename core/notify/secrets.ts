/** Notification credentials at rest (SPEC.md > Notification module): the same secret box and mask as storage
 * providers (core/crypto/secret-box.ts, core/storage/provider-config.ts MASK), with the notify module's list
 * of sensitive keys. Stored values are `enc:v1:...`; the API shows `********`; sending `********` back keeps
 * the stored value. */
import { decryptSecret, encryptSecret, isEncrypted } from '../crypto/secret-box.ts';
import { MASK } from '../storage/provider-config.ts';
import { InvalidPayloadError } from '../errors.ts';

export { MASK };

/** Keys of a provider's `config` that are encrypted at rest and masked on read. */
export const NOTIFY_SENSITIVE_KEYS: readonly string[] = [
  'pass', 'password', 'api_key', 'apiKey', 'secret_key', 'secretKey', 'access_key', 'accessKey', 'token', 'smtp_pass', 'webhook_secret',
];

export function sealValue(value: string, secret: string): string {
  return isEncrypted(value) ? value : encryptSecret(value, secret);
}

export function openValue(value: unknown, secret: string): unknown {
  return isEncrypted(value) ? decryptSecret(value, secret) : value;
}

/** Encrypts the sensitive string values of a (plain) object. */
export function sealObject(plain: Record<string, unknown>, secret: string, keys: readonly string[] = NOTIFY_SENSITIVE_KEYS): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(plain)) {
    if (v === undefined) continue;
    out[k] = keys.includes(k) && typeof v === 'string' && v !== '' ? sealValue(v, secret) : v;
  }
  return out;
}

/** Decrypts the sensitive values of a stored object. */
export function openObject(stored: Record<string, unknown>, secret: string, keys: readonly string[] = NOTIFY_SENSITIVE_KEYS): Record<string, unknown> {
  const out = { ...stored };
  for (const k of keys) if (k in out) out[k] = openValue(out[k], secret);
  return out;
}

/** Masks the sensitive values of a stored object (null and empty stay as they are). */
export function maskObject(stored: Record<string, unknown>, keys: readonly string[] = NOTIFY_SENSITIVE_KEYS): Record<string, unknown> {
  const out = { ...stored };
  for (const k of keys) if (out[k] !== undefined && out[k] !== null && out[k] !== '') out[k] = MASK;
  return out;
}

/** Replaces masked values of an update by the stored (decrypted) ones, so validation sees the real values. */
export function unmaskObject(update: Record<string, unknown>, stored: Record<string, unknown> | null, secret: string, label: string, keys: readonly string[] = NOTIFY_SENSITIVE_KEYS): Record<string, unknown> {
  const out = { ...update };
  for (const k of keys) {
    if (out[k] !== MASK) continue;
    const kept = stored?.[k];
    if (typeof kept !== 'string') throw new InvalidPayloadError(`"${label}${k}" has no stored value to keep.`);
    out[k] = openValue(kept, secret);
  }
  return out;
}
