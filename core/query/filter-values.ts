/** Filter values: dynamic variables ($CURRENT_USER, $NOW(-1 day)...) resolved, then coerced to the
 * field's type. Malformed values are INVALID_QUERY errors naming the field. */
import type { Accountability } from '../access/accountability.ts';
import { InvalidQueryError } from '../errors.ts';
import type { FieldOverview } from '../schema/types.ts';
import { operatorSpec, type FilterOperator } from './operators.ts';
import { isUuid } from '../uuid.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const UNITS: Record<string, number> = {
  second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000,
};

export { isUuid };

function now(expr: string): string {
  if (expr === '$NOW') return new Date().toISOString();
  const m = /^\$NOW\(\s*([+-]?\d+)\s*(second|minute|hour|day|week|month|year)s?\s*\)$/i.exec(expr);
  if (!m) throw new InvalidQueryError(`Invalid dynamic variable "${expr}".`);
  const amount = Number(m[1]);
  const unit = m[2].toLowerCase();
  const d = new Date();
  if (unit === 'month') d.setUTCMonth(d.getUTCMonth() + amount);
  else if (unit === 'year') d.setUTCFullYear(d.getUTCFullYear() + amount);
  else d.setTime(d.getTime() + amount * UNITS[unit]);
  return d.toISOString();
}

/** Replaces a dynamic variable by its value; other values pass through. */
export function resolveVariable(value: unknown, acc: Accountability): unknown {
  if (typeof value !== 'string' || !value.startsWith('$')) return value;
  switch (value) {
    case '$CURRENT_USER': return acc.user;
    case '$CURRENT_ROLE': return acc.role;
    case '$CURRENT_ROLES': return acc.roles;
    case '$CURRENT_POLICIES': return acc.policies;
    default:
      if (value.startsWith('$NOW')) return now(value);
      return value;
  }
}

function bad(field: FieldOverview, value: unknown, expected: string): never {
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  throw new InvalidQueryError(`Invalid value ${JSON.stringify(shown)?.slice(0, 100)} for field "${field.field}": ${expected} expected.`);
}

function toBoolean(field: FieldOverview, value: unknown): boolean {
  if (value === true || value === 'true' || value === 1 || value === '1') return true;
  if (value === false || value === 'false' || value === 0 || value === '0') return false;
  return bad(field, value, 'boolean');
}

/** Coerces one scalar to what the column's type accepts (numbers, strings, booleans, null). */
export function coerceScalar(field: FieldOverview, value: unknown): unknown {
  if (value === null) return null;
  switch (field.type) {
    case 'integer': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
      if (!Number.isSafeInteger(n) || n > 2147483647 || n < -2147483648) return bad(field, value, 'integer');
      return n;
    }
    case 'bigInteger': {
      const s = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value.trim() : '';
      if (!/^-?\d{1,19}$/.test(s)) return bad(field, value, 'integer');
      return s;
    }
    case 'float': case 'decimal': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (!Number.isFinite(n)) return bad(field, value, 'number');
      return field.type === 'decimal' ? String(value).trim() : n;
    }
    case 'boolean': return toBoolean(field, value);
    case 'uuid':
      if (!isUuid(value)) return bad(field, value, 'uuid');
      return value;
    case 'date':
      if (typeof value !== 'string' || !(DATE.test(value) || ISO.test(value)) || Number.isNaN(Date.parse(value))) return bad(field, value, 'date');
      return value.slice(0, 10);
    case 'time':
      if (typeof value !== 'string' || !TIME.test(value)) return bad(field, value, 'time');
      return value;
    case 'timestamp': case 'dateTime':
      if (typeof value !== 'string' || !ISO.test(value) || Number.isNaN(Date.parse(value))) return bad(field, value, 'ISO 8601 date');
      return value;
    case 'json':
      return JSON.stringify(value);
    default:
      if (typeof value === 'object') return bad(field, value, 'string');
      return String(value);
  }
}

function isComposite(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/** The operand of a list operator: an array, or a comma list in a string, or one scalar. An object (e.g.
 * `filter[f][_in][a]=1`) is refused rather than read as one value that matches nothing. */
function listOf(field: FieldOverview, op: FilterOperator, value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return value === '' ? [] : value.split(',');
  if (isComposite(value)) throw new InvalidQueryError(`"${op}" on field "${field.field}" needs a list of values.`);
  return [value];
}

function scalarItem(field: FieldOverview, op: FilterOperator, value: unknown): unknown {
  if (isComposite(value)) throw new InvalidQueryError(`"${op}" on field "${field.field}" needs a list of single values.`);
  return coerceScalar(field, value);
}

/** The value an operator compares against, resolved and coerced as its record's operand kind says (operators.ts).
 * An operator that takes one value refuses an object or array on every field type, json included, with
 * INVALID_QUERY. */
export function coerceFilterValue(field: FieldOverview, op: FilterOperator, raw: unknown, acc: Accountability): unknown {
  const value = resolveVariable(raw, acc);
  const spec = operatorSpec(op);
  switch (spec.operand) {
    case 'flag':
      return toBoolean(field, value);
    case 'list': {
      const items = listOf(field, op, value).flatMap((v) => {
        const r = resolveVariable(v, acc);
        // A list-valued variable ($CURRENT_ROLES) contributes its members.
        return Array.isArray(r) && typeof v === 'string' && v.startsWith('$') ? r : [r];
      });
      return items.map((v) => scalarItem(field, op, v));
    }
    case 'pair': {
      const items = listOf(field, op, value);
      if (items.length !== 2) throw new InvalidQueryError(`"${op}" on field "${field.field}" needs exactly two values.`);
      return items.map((v) => scalarItem(field, op, resolveVariable(v, acc)));
    }
    case 'text': {
      if (value === null || isComposite(value)) throw new InvalidQueryError(`"${op}" on field "${field.field}" needs a string.`);
      const text = String(value);
      const refusal = spec.refuse?.(text);
      if (refusal) throw new InvalidQueryError(`"${op}" on field "${field.field}" ${refusal}.`);
      return text;
    }
    case 'scalar':
      if (isComposite(value)) throw new InvalidQueryError(`"${op}" on field "${field.field}" needs a single value.`);
      return coerceScalar(field, value);
  }
}
