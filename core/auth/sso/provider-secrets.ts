/** The secrets of an auth provider record (clientSecret, bindPassword): encrypted at rest with SECRET
 * (core/crypto/secret-box.ts), answered as `********`; `********` sent back on update keeps the stored value. */
import { decryptSecret, encryptSecret, isEncrypted } from '../../crypto/secret-box.ts';
import { InvalidPayloadError } from '../../errors.ts';

export const MASK = '********';
export const SECRET_FIELDS = ['clientSecret', 'bindPassword'] as const;

export function sealProviderValue(value: Record<string, unknown>, secret: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[k] = (SECRET_FIELDS as readonly string[]).includes(k) && typeof v === 'string' && !isEncrypted(v) ? encryptSecret(v, secret) : v;
  }
  return out;
}

export function openProviderValue(stored: Record<string, unknown>, secret: string): Record<string, unknown> {
  const out = { ...stored };
  for (const k of SECRET_FIELDS) if (isEncrypted(out[k])) out[k] = decryptSecret(out[k] as string, secret);
  return out;
}

/** Masked values of an update replaced by the stored (decrypted) ones. */
export function unmaskProviderValue(update: Record<string, unknown>, stored: Record<string, unknown>, secret: string): Record<string, unknown> {
  const out = { ...update };
  for (const k of SECRET_FIELDS) {
    if (out[k] !== MASK) continue;
    const kept = stored[k];
    if (typeof kept !== 'string') throw new InvalidPayloadError(`"value.${k}" has no stored value to keep.`);
    out[k] = isEncrypted(kept) ? decryptSecret(kept, secret) : kept;
  }
  return out;
}

export function maskProviderValue(stored: Record<string, unknown>): Record<string, unknown> {
  const out = { ...stored };
  for (const k of SECRET_FIELDS) if (out[k] !== undefined && out[k] !== null) out[k] = MASK;
  return out;
}
