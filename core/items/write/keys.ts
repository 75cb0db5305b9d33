/** Primary keys from paths and bodies: checked against the key field's type the way Directus'
 * validateKeys does (a key that cannot exist is FORBIDDEN, like a missing item). */
import { ForbiddenError, InvalidPayloadError } from '../../errors.ts';
import type { CollectionOverview, FieldOverview } from '../../schema/types.ts';
import type { PrimaryKey } from './types.ts';
import { isUuid } from '../../uuid.ts';

const INT_RE = /^-?\d+$/;

export const INT_RANGES: Record<string, [number, number]> = {
  int2: [-32768, 32767],
  int4: [-2147483648, 2147483647],
};

export function primaryField(collection: CollectionOverview): FieldOverview {
  return collection.fields[collection.primary!];
}

/** A key as bound in SQL, or null when no row can have it. */
export function keyOf(field: FieldOverview, raw: unknown): PrimaryKey | null {
  if (typeof raw !== 'string' && typeof raw !== 'number') return null;
  switch (field.type) {
    case 'integer': {
      const n = typeof raw === 'number' ? raw : INT_RE.test(raw) ? Number(raw) : NaN;
      const range = INT_RANGES[field.dbType ?? 'int4'] ?? INT_RANGES.int4;
      return Number.isInteger(n) && n >= range[0] && n <= range[1] ? n : null;
    }
    case 'bigInteger': {
      const s = typeof raw === 'number' ? (Number.isSafeInteger(raw) ? String(raw) : '') : raw;
      return INT_RE.test(s) && s.replace('-', '').length <= 19 ? s : null;
    }
    case 'uuid':
      return isUuid(raw) ? raw.toLowerCase() : null;
    case 'float': case 'decimal':
      return typeof raw === 'number' ? raw : Number.isFinite(Number(raw)) && raw.trim() !== '' ? raw : null;
    default:
      return typeof raw === 'number' ? String(raw) : raw;
  }
}

/** A key from a path or a keys list: FORBIDDEN when it cannot name a row. */
export function parseKey(collection: CollectionOverview, raw: unknown): PrimaryKey {
  const key = keyOf(primaryField(collection), raw);
  if (key === null) throw new ForbiddenError();
  return key;
}

/** A `keys` body member: an array of strings or numbers (400 otherwise), each a possible key (403 otherwise). */
export function parseKeyList(collection: CollectionOverview, raw: unknown, max: number): PrimaryKey[] {
  if (!Array.isArray(raw) || raw.some((k) => typeof k !== 'string' && typeof k !== 'number')) {
    throw new InvalidPayloadError('Invalid payload. "keys" must be an array of primary keys.');
  }
  if (raw.length > max) throw new InvalidPayloadError(`Invalid payload. Exceeded max batch mutation limit of ${max}.`);
  return unique(raw.map((k) => parseKey(collection, k)));
}

export function unique(keys: PrimaryKey[]): PrimaryKey[] {
  const seen = new Set<string>();
  const out: PrimaryKey[] = [];
  for (const k of keys) {
    const s = String(k);
    if (!seen.has(s)) { seen.add(s); out.push(k); }
  }
  return out;
}

/** `::<type>` for a key column whose database type is a plain name, else nothing. */
function keyCast(field: FieldOverview): string {
  return field.dbType && /^[a-z0-9_]+$/.test(field.dbType) ? `::${field.dbType}` : '';
}

/** `= any($n::type[])`: the array cast lets both drivers serialise the keys without guessing. */
export function keyArrayCast(field: FieldOverview): string {
  const cast = keyCast(field);
  return cast ? `${cast}[]` : '';
}

/** `<ref> = $n` for one key, `<ref> = any($n::type[])` for several, and the parameter to bind. A prepared
 * statement with `= any($n)` never gets a generic plan on Postgres (its generic estimate of 10 keys always
 * costs more than the custom plan of one), so it would be planned again on every execution. */
export function keyMatch(field: FieldOverview, ref: string, n: number, keys: PrimaryKey[]): { sql: string; param: unknown } {
  if (keys.length === 1) return { sql: `${ref} = $${n}${keyCast(field)}`, param: keys[0] };
  return { sql: `${ref} = any($${n}${keyArrayCast(field)})`, param: keys };
}
