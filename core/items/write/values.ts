/** Checks one payload value against its field type and converts it to what is bound in SQL. */
import type { FieldOverview } from '../../schema/types.ts';
import { INT_RANGES } from './keys.ts';
import { isUuid } from '../../uuid.ts';

/** Thrown with the reason a value does not fit; payload.ts turns it into INVALID_PAYLOAD naming the field. */
export class ValueError extends Error {}

const INT_RE = /^-?\d+$/;
const NUMERIC_RE = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})/;
const TIME_RE = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,6})?)?$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d|60)(?:\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?)?$/i;

function validDate(y: string, m: string, d: string): boolean {
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
}

function text(field: FieldOverview, value: unknown): string {
  if (typeof value !== 'string') throw new ValueError('must be a string');
  const max = field.maxLength;
  // String length counts UTF-16 units; only count code points (as Postgres does) when it could matter.
  if (max !== null && value.length > max && [...value].length > max) {
    throw new ValueError(`can't be longer than ${max} characters`);
  }
  return value;
}

/** The value to bind for a non-null value of a column field (hash values are hashed by the caller). */
export function coerceValue(field: FieldOverview, value: unknown): unknown {
  switch (field.type) {
    case 'string': case 'text': case 'hash':
      return text(field, value);
    case 'csv': {
      if (Array.isArray(value)) {
        if (!value.every((v) => typeof v === 'string')) throw new ValueError('must be an array of strings or a string');
        return value.join(',');
      }
      if (typeof value !== 'string') throw new ValueError('must be an array of strings or a string');
      return value;
    }
    case 'integer': {
      const range = INT_RANGES[field.dbType ?? 'int4'] ?? INT_RANGES.int4;
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new ValueError('must be an integer');
      if (value < range[0] || value > range[1]) throw new ValueError('is out of range');
      return value;
    }
    case 'bigInteger': {
      if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
      if (typeof value === 'string' && INT_RE.test(value) && value.replace('-', '').length <= 19) return value;
      throw new ValueError('must be an integer');
    }
    case 'float': {
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string' && NUMERIC_RE.test(value.trim()) && Number.isFinite(Number(value))) return Number(value);
      throw new ValueError('must be a number');
    }
    case 'decimal': {
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
      if (typeof value === 'string' && NUMERIC_RE.test(value.trim())) return value.trim();
      throw new ValueError('must be a number');
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 1 || value === '1') return true;
      if (value === 'false' || value === 0 || value === '0') return false;
      throw new ValueError('must be a boolean');
    }
    case 'uuid':
      if (!isUuid(value)) throw new ValueError('must be a valid UUID');
      return value;
    case 'date': {
      const m = typeof value === 'string' ? DATE_RE.exec(value) : null;
      if (!m || !validDate(m[1], m[2], m[3]) || (value as string).length > 10 && !DATETIME_RE.test(value as string)) {
        throw new ValueError('must be a date (YYYY-MM-DD)');
      }
      return m[0];
    }
    case 'time':
      if (typeof value !== 'string' || !TIME_RE.test(value)) throw new ValueError('must be a time (HH:MM or HH:MM:SS)');
      return value;
    case 'timestamp': case 'dateTime': {
      const m = typeof value === 'string' ? DATETIME_RE.exec(value) : null;
      if (!m || !validDate(m[1], m[2], m[3])) throw new ValueError('must be an ISO 8601 date and time');
      return value;
    }
    case 'json':
      try {
        return JSON.stringify(value);
      } catch {
        throw new ValueError('is nested too deeply'); // RangeError: JSON.parse accepted more depth than the stack allows here
      }
    case 'alias':
      throw new ValueError('is an alias and has no value');
  }
}
