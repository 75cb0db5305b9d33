/** Identifier rules for collections and fields created through the API. */
import { InvalidPayloadError } from '../../errors.ts';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/i;

export function isIdentifier(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 63 && IDENTIFIER.test(value);
}

/** Throws INVALID_PAYLOAD unless value is a plain identifier; returns it typed. */
export function requireIdentifier(value: unknown, what: string): string {
  if (value === undefined || value === null || value === '') throw new InvalidPayloadError(`"${what}" is required.`);
  if (!isIdentifier(value)) {
    throw new InvalidPayloadError(`"${what}" must start with a letter or underscore and contain only letters, digits and underscores (at most 63).`);
  }
  return value;
}

/** Optional identifier: undefined/null pass through as null. */
export function optionalIdentifier(value: unknown, what: string): string | null {
  if (value === undefined || value === null) return null;
  return requireIdentifier(value, what);
}

export function isSystemCollection(name: string): boolean {
  return name.toLowerCase().startsWith('svc_');
}

/** A constraint name at most 63 characters long (Postgres would truncate silently). */
export function constraintName(table: string, column: string, suffix: string): string {
  const name = `${table}_${column}_${suffix}`;
  if (name.length <= 63) return name;
  let h = 0;
  for (const ch of name) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  const tag = (h >>> 0).toString(36);
  return `${name.slice(0, 63 - tag.length - suffix.length - 2)}_${tag}_${suffix}`;
}

export { isPlainObject } from '../../plain-object.ts';
