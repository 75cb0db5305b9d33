/** The one test for "a JSON object, not null, not an array" that payload, filter and webhook parsing share. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
