/** Functions of a row (FunctionPlan) -> SQL expressions of type int4. Date parts are taken in UTC, as Directus
 * does; a count is a correlated sub-select, so it never multiplies the rows of the outer query. */
import type { FunctionPlan } from './plan-types.ts';
import { col, table, type SqlBuilder } from './sql-builder.ts';
import { compileFilter } from './compile-filter.ts';

const PART: Record<string, string> = {
  year: 'year', month: 'month', week: 'week', day: 'day', weekday: 'dow', hour: 'hour', minute: 'minute', second: 'second',
};

export function functionExpr(b: SqlBuilder, alias: string, fn: FunctionPlan): string {
  if (fn.kind === 'date') {
    const c = col(alias, fn.field);
    // timestamptz: the part of the UTC wall clock; timestamp/date/time have no zone to convert.
    const source = fn.field.type === 'timestamp' ? `(${c} at time zone 'UTC')` : c;
    return `floor(extract(${PART[fn.fn]} from ${source}))::int4`;
  }
  const a = b.alias();
  const where = `${col(a, fn.fkOnChild)} = ${col(alias, fn.parentKey)}${fn.filter ? ` and ${compileFilter(b, a, fn.filter)}` : ''}`;
  return `(select count(*) from ${table(fn.related.collection)} as ${a} where ${where})::int4`;
}
