/** Small typed checks for notify admin payloads: each returns the value or throws INVALID_PAYLOAD naming the
 * field (prefix: "config." for nested ones). */
import { randomBytes } from 'node:crypto';
import { InvalidPayloadError } from '../errors.ts';
import { isPlainObject } from '../plain-object.ts';

export function bodyObject(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw new InvalidPayloadError('Invalid payload. Body must be a JSON object.');
  return body;
}

export function rejectUnknown(input: Record<string, unknown>, allowed: readonly string[], prefix = ''): void {
  for (const k of Object.keys(input)) {
    if (!allowed.includes(k)) throw new InvalidPayloadError(`Unknown field "${prefix}${k.slice(0, 64)}".`, { field: `${prefix}${k.slice(0, 64)}` });
  }
}

function fail(field: string, what: string): never {
  throw new InvalidPayloadError(`"${field}" ${what}.`, { field });
}

export function requiredString(field: string, v: unknown, max = 255): string {
  if (typeof v !== 'string' || v.trim() === '') fail(field, 'is required and must be a non-empty string');
  if (v.length > max) fail(field, `must be at most ${max} characters`);
  return v;
}

export function optionalString(field: string, v: unknown, max = 255): string | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') fail(field, 'must be a string');
  if (v.length > max) fail(field, `must be at most ${max} characters`);
  return v;
}

export function optionalText(field: string, v: unknown): string | null | undefined {
  return optionalString(field, v, 1_000_000);
}

export function optionalBoolean(field: string, v: unknown): boolean | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') fail(field, 'must be a boolean');
  return v;
}

export function optionalPort(field: string, v: unknown): number | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535) fail(field, 'must be an integer port between 1 and 65535');
  return v;
}

export function requiredPort(field: string, v: unknown): number {
  const p = optionalPort(field, v);
  if (p === undefined || p === null) fail(field, 'is required');
  return p;
}

/** The keys whose value is given (undefined ones left out). */
export function definedKeys(keys: Record<string, unknown>): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(keys)) if (v !== undefined) r[k] = v;
  return r;
}

export function optionalObject(field: string, v: unknown): Record<string, unknown> | null | undefined {
  if (v === undefined || v === null) return v;
  if (!isPlainObject(v)) fail(field, 'must be an object');
  return v;
}

export function httpUrl(field: string, v: unknown, required: boolean): string | null | undefined {
  if (!required && (v === undefined || v === null || v === '')) return v as null | undefined | string;
  const s = requiredString(field, v, 1024);
  let url: URL;
  try { url = new URL(s); } catch { fail(field, 'must be a URL'); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(field, 'must be an http(s) URL');
  return s;
}

/** A bare address (local@domain), no display name. */
const ADDRESS = /^[^\s@<>(),;:"\[\]]+@[^\s@<>(),;:"\[\]]+\.[^\s@<>(),;:"\[\]]+$/;

export function isEmailAddress(v: unknown): v is string {
  return typeof v === 'string' && v.length <= 254 && ADDRESS.test(v);
}

/** A sender: `address` or `Display Name <address>`. */
export function sender(field: string, v: unknown, required: boolean): string | null | undefined {
  if (!required && (v === undefined || v === null)) return v;
  const s = requiredString(field, v);
  const m = /^(.*)<([^<>]+)>\s*$/.exec(s);
  if (!isEmailAddress(m ? m[2].trim() : s.trim())) fail(field, 'must be an email address or "Name <address>"');
  return s;
}

export function emailList(field: string, v: unknown): string[] | null | undefined {
  if (v === undefined || v === null) return v;
  if (!Array.isArray(v) || v.length > 100) fail(field, 'must be an array of at most 100 email addresses');
  v.forEach((a, i) => { if (!isEmailAddress(a)) fail(`${field}[${i}]`, 'must be an email address'); });
  return v as string[];
}

export function oneOf<T extends string>(field: string, v: unknown, values: readonly T[]): T {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) fail(field, `must be one of ${values.join(', ')}`);
  return v as T;
}

/** Client-chosen string ids (layouts, templates): a slug. */
const SLUG = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export function slugId(field: string, v: unknown): string {
  if (typeof v !== 'string' || !SLUG.test(v)) fail(field, 'must be a slug: letters, digits, "_", "-", "." (at most 128, starting with a letter or digit)');
  return v;
}

/** A generated id from a name: its slug plus a random suffix. */
export function generatedId(name: string): string {
  const base = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100);
  const suffix = randomBytes(3).toString('hex');
  return base ? `${base}-${suffix}` : `id-${suffix}`;
}

/** A positive integer path id, or NOT_FOUND-like null. */
export function intId(raw: string): number | null {
  if (!/^\d{1,9}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}
