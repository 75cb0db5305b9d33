/** How a filter operator compares two values in memory (permission `validation`, the registration email filter),
 * as Directus does: numbers, numeric strings and dates compare by value, anything else as text. */

/** A value as something `<` can order: a number (dates as epoch milliseconds), a string, or null when it has none. */
export function comparable(value: unknown): number | string | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    if (value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
    const time = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
    return Number.isNaN(time) ? value : time;
  }
  return null;
}

export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  const x = comparable(a);
  const y = comparable(b);
  return x !== null && x === y;
}

/** -1, 0 or 1; null when the two cannot be ordered (different kinds, or no value). */
export function order(a: unknown, b: unknown): number | null {
  const x = comparable(a);
  const y = comparable(b);
  if (x === null || y === null || typeof x !== typeof y) return null;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A value as it is quoted in a rule's wording. */
export const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');
export const isEmpty = (v: unknown): boolean => v === null || v === '' || (Array.isArray(v) && v.length === 0);
export const truthy = (v: unknown): boolean => v === true || v === 'true' || v === 1 || v === '1';
