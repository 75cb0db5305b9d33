/** Secrets at rest (storage credentials and other sensitive settings), encrypted with a key derived from the
 * server SECRET: AES-256-GCM, a random 12-byte IV per value, stored as `enc:v1:<base64 iv|tag|ciphertext>`.
 * Changing SECRET makes stored values unreadable (decrypt then fails loudly rather than returning garbage). */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';
const keys = new Map<string, Buffer>();

function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = createHash('sha256').update(`svc-secret-box:${secret}`).digest();
    keys.set(secret, key);
  }
  return key;
}

export function isEncrypted(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

export function encryptSecret(plain: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function decryptSecret(stored: string, secret: string): string {
  if (!isEncrypted(stored)) throw new Error('Value is not encrypted.');
  const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
