/** Extracted metadata made storable as JSON (jsonb): binary blobs dropped, dates as ISO strings, non-finite
 * numbers as null, bigints as strings, NUL characters removed (Postgres refuses \u0000 in jsonb), depth and
 * size bounded. */

const MAX_DEPTH = 8;
const MAX_KEYS = 500;
const MAX_STRING = 10_000;

export function jsonSafe(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string': {
      // eslint-disable-next-line no-control-regex
      const clean = value.replace(/\u0000/g, '');
      return clean.length > MAX_STRING ? clean.slice(0, MAX_STRING) : clean;
    }
    case 'number': return Number.isFinite(value) ? value : null;
    case 'boolean': return value;
    case 'bigint': return value.toString();
    case 'object': break;
    default: return undefined;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return undefined;
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    return value.slice(0, MAX_KEYS).map((v) => jsonSafe(v, depth + 1)).filter((v) => v !== undefined);
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (n++ >= MAX_KEYS) break;
    const safe = jsonSafe(v, depth + 1);
    if (safe !== undefined) out[k.replace(/\u0000/g, '')] = safe;
  }
  return out;
}
