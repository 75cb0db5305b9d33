/** Storage provider configuration (SPEC.md > Storage providers): validation per driver, and the sensitive
 * fields, which are encrypted at rest and shown as `********` (sending `********` back keeps the stored value). */
import { isAbsolute } from 'node:path';
import { InvalidPayloadError } from '../errors.ts';
import { decryptSecret, encryptSecret, isEncrypted } from '../crypto/secret-box.ts';
import type { ObjectstoreOptions } from './objectstore.ts';

export const MASK = '********';
export const SENSITIVE_FIELDS = ['accessKey', 'secretKey', 'serviceAccount', 'accountKey', 'password'] as const;

export type ProviderConfig =
  | { driver: 'local'; root: string }
  | ({ driver: 'objectstore' } & ObjectstoreOptions);

const LOCAL_KEYS = new Set(['driver', 'root']);

// Not the items payload's helper: importing the write pipeline would load it with every storage registry.
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const OBJECTSTORE_KEYS = new Set(['driver', 'bucket', 'region', 'accessKey', 'secretKey', 'endpoint', 'acl', 'serverSideEncryption', 'forcePathStyle', 'root']);

/** A refusal naming the setting, so a form shows it on its field. */
function invalid(key: string, message: string): InvalidPayloadError {
  return new InvalidPayloadError(message, { field: `value.${key}` });
}

function requiredString(value: Record<string, unknown>, key: string): string {
  const v = value[key];
  if (typeof v !== 'string' || v.trim() === '') throw invalid(key, `"value.${key}" is required and must be a non-empty string.`);
  return v;
}

function optionalString(value: Record<string, unknown>, key: string): string | undefined {
  const v = value[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(key, `"value.${key}" must be a string.`);
  return v;
}

/** Checks a plain (decrypted) configuration; `defaultRoot` fills a local driver's missing root. */
export function validateProviderConfig(raw: unknown, defaultRoot: string): ProviderConfig {
  if (!isPlainObject(raw)) throw new InvalidPayloadError('"value" is required and must be an object.');
  const driver = raw.driver;
  if (driver === 'local') {
    for (const k of Object.keys(raw)) if (!LOCAL_KEYS.has(k)) throw invalid(k, `Unknown setting "value.${k}" for driver local.`);
    const root = raw.root === undefined || raw.root === null || raw.root === '' ? defaultRoot : raw.root;
    if (typeof root !== 'string' || !isAbsolute(root) || root.includes('\0') || /(^|[\\/])\.\.([\\/]|$)/.test(root)) {
      throw invalid('root', '"value.root" must be an absolute path without ".." segments.');
    }
    return { driver, root };
  }
  if (driver === 'objectstore') {
    for (const k of Object.keys(raw)) if (!OBJECTSTORE_KEYS.has(k)) throw invalid(k, `Unknown setting "value.${k}" for driver objectstore.`);
    const endpoint = optionalString(raw, 'endpoint');
    if (endpoint !== undefined) {
      let url: URL;
      try { url = new URL(endpoint); } catch { throw invalid('endpoint', '"value.endpoint" must be a URL.'); }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('endpoint', '"value.endpoint" must be an http(s) URL.');
    }
    if (raw.forcePathStyle !== undefined && typeof raw.forcePathStyle !== 'boolean') throw invalid('forcePathStyle', '"value.forcePathStyle" must be a boolean.');
    // Static keys, or none: then the AWS SDK's default credential chain (environment, ECS task role, Lambda
    // execution role ...) signs the requests, as infra/ deploys it.
    const accessKey = optionalString(raw, 'accessKey') || undefined;
    const secretKey = optionalString(raw, 'secretKey') || undefined;
    if ((accessKey === undefined) !== (secretKey === undefined)) {
      throw invalid(accessKey === undefined ? 'accessKey' : 'secretKey', '"value.accessKey" and "value.secretKey" go together: give both, or neither to use the AWS default credentials (environment, task or execution role).');
    }
    return {
      driver,
      bucket: requiredString(raw, 'bucket'),
      region: requiredString(raw, 'region'),
      ...(accessKey !== undefined ? { accessKey, secretKey } : {}),
      endpoint,
      acl: optionalString(raw, 'acl'),
      serverSideEncryption: optionalString(raw, 'serverSideEncryption'),
      forcePathStyle: raw.forcePathStyle as boolean | undefined,
      root: optionalString(raw, 'root'),
    };
  }
  throw invalid('driver', '"value.driver" must be "local" or "objectstore".');
}

/** The stored form: sensitive fields encrypted. `previous` (stored form) supplies values sent as the mask. */
export function sealConfig(config: Record<string, unknown>, secret: string, previous?: Record<string, unknown> | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (v === undefined) continue;
    if ((SENSITIVE_FIELDS as readonly string[]).includes(k) && typeof v === 'string') out[k] = isEncrypted(v) ? v : encryptSecret(v, secret);
    else out[k] = v;
  }
  return out;
}

/** Replaces masked values of an update by the stored ones (decrypted), so validation sees the real config. */
export function unmask(update: Record<string, unknown>, stored: Record<string, unknown>, secret: string): Record<string, unknown> {
  const out = { ...update };
  for (const k of SENSITIVE_FIELDS) {
    if (out[k] !== MASK) continue;
    const kept = stored[k];
    if (typeof kept !== 'string') throw invalid(k, `"value.${k}" has no stored value to keep.`);
    out[k] = isEncrypted(kept) ? decryptSecret(kept, secret) : kept;
  }
  return out;
}

/** The plain configuration of a stored record (for building a driver). */
export function openConfig(stored: Record<string, unknown>, secret: string): Record<string, unknown> {
  const out = { ...stored };
  for (const k of SENSITIVE_FIELDS) if (isEncrypted(out[k])) out[k] = decryptSecret(out[k] as string, secret);
  return out;
}

/** The configuration as the API shows it: sensitive fields masked. */
export function maskConfig(stored: Record<string, unknown>): Record<string, unknown> {
  const out = { ...stored };
  for (const k of SENSITIVE_FIELDS) if (out[k] !== undefined && out[k] !== null) out[k] = MASK;
  return out;
}
