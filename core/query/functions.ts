/** The function syntax of the query language (Directus'): `year(date_created)` in fields, filter keys, sort and
 * groupBy; `count(comments)` over a to-many relation. Parsing and type rules only; planning is in plan.ts. */
import { InvalidQueryError } from '../errors.ts';
import type { FieldOverview } from '../schema/types.ts';
import type { DateFunction } from './plan-types.ts';
import { operatorsWhere } from './operators.ts';

export type QueryFunction = DateFunction | 'count';

const DATE_PARTS: ReadonlySet<string> = new Set(['year', 'month', 'week', 'day', 'weekday']);
const TIME_PARTS: ReadonlySet<string> = new Set(['hour', 'minute', 'second']);
const DATE_TYPES: ReadonlySet<string> = new Set(['date', 'dateTime', 'timestamp']);
const TIME_TYPES: ReadonlySet<string> = new Set(['time', 'dateTime', 'timestamp']);

const CALL = /^(\w+)\(([\w-]+)\)$/;

/** `fn(field)` -> its parts; null for a plain name. A call to an unknown function is INVALID_QUERY. */
export function parseFunctionCall(key: string): { fn: QueryFunction; field: string } | null {
  if (!key.includes('(')) return null;
  const m = CALL.exec(key);
  if (!m) throw new InvalidQueryError(`Invalid function call "${key}".`);
  const fn = m[1];
  if (fn !== 'count' && !DATE_PARTS.has(fn) && !TIME_PARTS.has(fn)) throw new InvalidQueryError(`Unknown function "${fn}" in "${key}".`);
  return { fn: fn as QueryFunction, field: m[2] };
}

/** The response key of a function field, as Directus names it: `year(date_created)` -> `date_created_year`. */
export function functionKey(call: { fn: QueryFunction; field: string }): string {
  return `${call.field}_${call.fn}`;
}

/** A date function applies to date/time columns that carry the part it extracts. */
export function checkDateFunction(fn: DateFunction, field: FieldOverview, key: string): void {
  const ok = DATE_PARTS.has(fn) ? DATE_TYPES.has(field.type) : TIME_TYPES.has(field.type);
  if (!ok || field.alias) {
    throw new InvalidQueryError(`Function "${fn}" does not apply to field "${field.field}" of type ${field.type} in "${key}".`);
  }
}

/** Operators that compare the integer a function returns (their registry records say `functions`). */
export const FUNCTION_OPERATORS: ReadonlySet<string> = new Set(operatorsWhere((spec) => spec.functions));

/** The integer stand-in a function's comparison values are coerced with. */
export function functionValueField(field: FieldOverview, key: string): FieldOverview {
  return { ...field, field: key, type: 'integer', dbType: 'int4', alias: false, special: [], isPrimaryKey: false };
}
