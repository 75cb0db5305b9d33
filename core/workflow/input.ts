/** Checks of workflow request bodies: every field is known, typed and bounded; anything else is INVALID_PAYLOAD
 * naming the field. */
import { InvalidPayloadError } from '../errors.ts';
import { isUuid } from '../uuid.ts';
import { isPlainObject as isObject } from '../plain-object.ts';

export type Body = Record<string, unknown>;

export function invalid(message: string, field?: string): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. ${message}`, field ? { field } : {});
}

export { isObject };

/** The body as an object whose keys are all in `allowed`. */
export function body(raw: unknown, allowed: readonly string[]): Body {
  if (raw === undefined) return {};
  if (!isObject(raw)) throw invalid('Body must be an object.');
  for (const key of Object.keys(raw)) if (!allowed.includes(key)) throw invalid(`Unknown field "${key}".`, key);
  return raw;
}

export function text(b: Body, field: string, opts: { required?: boolean; max?: number; pattern?: RegExp } = {}): string | undefined {
  const v = b[field];
  if (v === undefined || v === null) {
    if (opts.required) throw invalid(`"${field}" is required.`, field);
    return undefined;
  }
  if (typeof v !== 'string' || v.trim() === '') throw invalid(`"${field}" must be a non-empty string.`, field);
  if (opts.max !== undefined && v.length > opts.max) throw invalid(`"${field}" may have at most ${opts.max} characters.`, field);
  if (opts.pattern && !opts.pattern.test(v)) throw invalid(`"${field}" has an invalid format.`, field);
  return v;
}

export function oneOf<T extends string>(b: Body, field: string, values: readonly T[], required = false): T | null | undefined {
  const v = b[field];
  if (v === undefined) {
    if (required) throw invalid(`"${field}" is required.`, field);
    return undefined;
  }
  if (v === null && !required) return null;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) throw invalid(`"${field}" must be one of ${values.join(', ')}.`, field);
  return v as T;
}

export function uuid(b: Body, field: string, required = false): string | undefined {
  const v = b[field];
  if (v === undefined || v === null) {
    if (required) throw invalid(`"${field}" is required.`, field);
    return undefined;
  }
  if (typeof v !== 'string' || !isUuid(v)) throw invalid(`"${field}" must be a UUID.`, field);
  return v;
}

export function object(b: Body, field: string): Record<string, unknown> | null | undefined {
  const v = b[field];
  if (v === undefined || v === null) return v as null | undefined;
  if (!isObject(v)) throw invalid(`"${field}" must be an object.`, field);
  return v;
}

export function integer(b: Body, field: string, min: number, max: number): number | null | undefined {
  const v = b[field];
  if (v === undefined || v === null) return v as null | undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw invalid(`"${field}" must be an integer from ${min} to ${max}.`, field);
  return v;
}

/** An optional comment (at most 10,000 characters); `required` refuses a missing or blank one. */
export function comment(raw: unknown, required: boolean, extra: readonly string[] = []): { comment: string | null; body: Body } {
  const b = body(raw, ['comment', ...extra]);
  const c = b.comment;
  if (c !== undefined && c !== null && typeof c !== 'string') throw invalid('"comment" must be a string.', 'comment');
  const value = typeof c === 'string' && c.trim() !== '' ? c : null;
  if (required && value === null) throw invalid('"comment" is required.', 'comment');
  if (value !== null && value.length > 10_000) throw invalid('"comment" may have at most 10000 characters.', 'comment');
  return { comment: value, body: b };
}

/** A path id: anything but a UUID cannot name a row (answered as missing). */
export function pathId(id: string): string | null {
  return isUuid(id) ? id : null;
}
