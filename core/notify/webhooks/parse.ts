/** Small readers for untrusted webhook JSON. */
import { InvalidPayloadError } from '../../errors.ts';
import { isPlainObject as isObject } from '../../plain-object.ts';

export type Json = Record<string, unknown>;

export { isObject };

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidPayloadError(`${what} is not valid JSON.`);
  }
}

/** A string of 1..max characters, or null. */
export function str(v: unknown, max = 255): string | null {
  return typeof v === 'string' && v.length > 0 && v.length <= max ? v : null;
}

/** A string cut to max characters (for free-text columns), or null. */
export function text(v: unknown, max = 2000): string | null {
  return typeof v === 'string' && v.length > 0 ? v.slice(0, max) : null;
}

/** ISO timestamp of an ISO string or of unix seconds, or null. */
export function timestamp(v: unknown): string | null {
  const ms = typeof v === 'number' && Number.isFinite(v) ? v * 1000 : typeof v === 'string' && v.length <= 64 ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function child(o: Json, key: string): Json {
  const v = o[key];
  return isObject(v) ? v : {};
}
