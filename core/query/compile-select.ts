/** Stage 3 (compile): a read plan -> ONE SQL statement whose single text column is the JSON of the
 * response data. Relations are correlated subqueries with json_agg/row_to_json, so a nested read is one
 * round trip, and rows never pass through JavaScript objects. */
import { PREPARE_MARK } from '../db/pg-driver.ts';
import { ident } from '../db/database.ts';
import type { FieldOverview } from '../schema/types.ts';
import { compileFilter, whereClause } from './compile-filter.ts';
import { functionExpr } from './compile-function.ts';
import type { AggregatePlan, FieldPlan, MetaPlan, SearchPlan, SelectPlan, SortPlan } from './plan-types.ts';
import { castOf, col, SqlBuilder, table } from './sql-builder.ts';

export interface CompiledRead {
  sql: string;
  params: unknown[];
}

/** A column as it goes on the wire (SPEC.md types): timestamps in UTC ISO, big numbers as strings... */
export function wireValue(alias: string, field: FieldOverview): string {
  const c = col(alias, field);
  if (field.special.includes('conceal')) return `case when ${c} is null then null else '**********' end`;
  switch (field.type) {
    case 'timestamp': return `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    case 'decimal': case 'bigInteger': return `${c}::text`;
    case 'csv': return `case when ${c} is null then null when ${c} = '' then '[]'::json else to_json(string_to_array(${c}, ',')) end`;
    case 'hash': return `case when ${c} is null then null else '**********' end`;
    default: return c;
  }
}

function orderBy(b: SqlBuilder, alias: string, sort: SortPlan[]): string {
  if (sort.length === 0) return '';
  const parts = sort.map(({ target, desc }) => {
    let expr: string;
    if (target.chain.length === 0) {
      expr = target.fn ? functionExpr(b, alias, target.fn) : col(alias, target.field);
    } else {
      // M2O hops become a scalar subquery: (select a2.name from authors a2 where a2.id = t0.author)
      let from = alias;
      const joins: string[] = [];
      let first = '';
      for (const hop of target.chain) {
        const a = b.alias();
        const on = `${col(a, hop.related.primary!)} = ${col(from, hop.fk)}${hop.filter ? ` and ${compileFilter(b, a, hop.filter)}` : ''}`;
        if (!first) {
          first = `${table(hop.related.collection)} as ${a}`;
          joins.push(on);
        } else {
          first += ` join ${table(hop.related.collection)} as ${a} on ${on}`;
        }
        from = a;
      }
      expr = `(select ${target.fn ? functionExpr(b, from, target.fn) : col(from, target.field)} from ${first} where ${joins.join(' and ')})`;
    }
    return `${expr} ${desc ? 'desc' : 'asc'}`;
  });
  return ` order by ${parts.join(', ')}`;
}

/** LIMIT and OFFSET are written into the text, not bound: with a bound limit Postgres' generic plan of a prepared
 * statement assumes a tenth of the rows, always looks dearer than a plan for the actual limit, and so every
 * execution was planned again; with the number in the text Postgres may settle on one plan (the compiled-statement
 * cache is keyed by the whole query, limit included, so a text still serves only its own values). */
function page(limit: number | null, offset: number): string {
  let out = '';
  if (limit !== null) out += ` limit ${integerLiteral(limit)}`;
  if (offset > 0) out += ` offset ${integerLiteral(offset)}`;
  return out;
}

function integerLiteral(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a row count: ${n}`);
  return String(n);
}

function fieldExpr(b: SqlBuilder, alias: string, f: FieldPlan): string {
  switch (f.kind) {
    case 'column': return wireValue(alias, f.field);
    case 'fn': return functionExpr(b, alias, f.fn);
    case 'm2o': {
      const a = b.alias();
      const child = f.child;
      const where = whereClause(b, a, child.filter, child.search, [`${col(a, child.collection.primary!)} = ${col(alias, f.fk)}`]);
      return `(select row_to_json(r) from (select ${selectList(b, a, child)} from ${table(child.collection.collection)} as ${a}${where}) as r)`;
    }
    case 'o2m': {
      const a = b.alias();
      const child = f.child;
      const where = whereClause(b, a, child.filter, child.search, [`${col(a, f.fkOnChild)} = ${col(alias, f.parentKey)}`]);
      const tail = `${where}${orderBy(b, a, child.sort)}${page(child.limit, child.offset)}`;
      if (f.keysOnly) {
        return `(select coalesce(json_agg(r.k), '[]'::json) from (select ${wireValue(a, child.collection.fields[child.collection.primary!])} as k from ${table(child.collection.collection)} as ${a}${tail}) as r)`;
      }
      return `(select coalesce(json_agg(r), '[]'::json) from (select ${selectList(b, a, child)} from ${table(child.collection.collection)} as ${a}${tail}) as r)`;
    }
    case 'a2o': {
      const branches = f.branches.map(({ collection, child }) => {
        const a = b.alias();
        const where = whereClause(b, a, child.filter, child.search, [`${col(a, child.collection.primary!)}::text = ${col(alias, f.keyField)}`]);
        return ` when ${b.param(collection, 'text')} then (select row_to_json(r) from (select ${selectList(b, a, child)} from ${table(collection)} as ${a}${where}) as r)`;
      });
      return `case ${col(alias, f.collectionField)}${branches.join('')} else to_json(${col(alias, f.keyField)}) end`;
    }
  }
}

function selectList(b: SqlBuilder, alias: string, plan: SelectPlan): string {
  if (plan.fields.length === 0) return 'null as "__none"';
  return plan.fields.map((f) => `${fieldExpr(b, alias, f)} as ${ident(f.name)}`).join(', ');
}

function metaColumns(b: SqlBuilder, collection: string, meta: MetaPlan): string {
  let out = '';
  if (meta.totalCount) {
    const a = b.alias();
    out += `, (select count(*) from ${table(collection)} as ${a}${whereClause(b, a, meta.totalCount.filter, null)})::int8 as total_count`;
  }
  if (meta.filterCount) {
    const a = b.alias();
    out += `, (select count(*) from ${table(collection)} as ${a}${whereClause(b, a, meta.filterCount.filter, meta.filterCount.search)})::int8 as filter_count`;
  }
  return out;
}

/** The columns of the planned row that the select list reads (null: one it cannot name, take them all). */
function columnsRead(plan: SelectPlan): Set<string> | null {
  const out = new Set<string>([plan.collection.primary!]);
  for (const f of plan.fields) {
    switch (f.kind) {
      case 'column': out.add(f.field.field); break;
      case 'fn': out.add(f.fn.kind === 'date' ? f.fn.field.field : f.fn.parentKey.field); break;
      case 'm2o': out.add(f.fk.field); break;
      case 'o2m': out.add(f.parentKey.field); break;
      case 'a2o': out.add(f.keyField.field).add(f.collectionField.field); break;
      default: return null;
    }
  }
  return out;
}

/** A search is planned for its pattern on every request (an unnamed statement): a named one would switch to a
 * generic plan, which can't tell a rare word (trigram index) from a common one (scan in key order) and picks the
 * key-order scan for both, seconds on a large table for a rare word. */
function searchFree(search: SearchPlan | null): string {
  return search ? '' : PREPARE_MARK;
}

/** List read: `data` is the JSON array text; total_count / filter_count columns when requested.
 * With a sort and a limit, the rows are picked from plain columns first and only the picked rows are turned
 * into wire values: Postgres computes a select list below the sort, so `to_char`, casts and relation
 * sub-selects would otherwise run for every row that matches the filter, not just the page. */
export function compileList(plan: SelectPlan, meta: MetaPlan): CompiledRead {
  const b = new SqlBuilder();
  const a = b.alias();
  const where = whereClause(b, a, plan.filter, plan.search);
  const source = `${table(plan.collection.collection)} as ${a}${where}${orderBy(b, a, plan.sort)}${page(plan.limit, plan.offset)}`;
  const columns = plan.sort.length > 0 && plan.limit !== null ? columnsRead(plan) : null;
  const inner = columns
    ? `select ${selectList(b, a, plan)} from (select ${[...columns].map((c) => col(a, c)).join(', ')} from ${source}) as ${a}`
    : `select ${selectList(b, a, plan)} from ${source}`;
  // The aggregate itself is the outer query (one row, also over no rows): a scalar sub-select around it would cost
  // Postgres another planning level on every request (~10us; list statements are planned per execution).
  const sql = `${searchFree(plan.search)}select coalesce(json_agg(r), '[]'::json)::text as data${metaColumns(b, plan.collection.collection, meta)} from (${inner}) as r`;
  return { sql, params: b.params };
}

/** One item by primary key: `data` is the JSON object text, or null when no visible row matches.
 * The key is always bound as $1. */
export function compileOne(plan: SelectPlan, key: unknown): CompiledRead {
  const b = new SqlBuilder();
  const a = b.alias();
  const pk = plan.collection.fields[plan.collection.primary!];
  const keyParam = b.param(key, castOf(pk));
  const where = whereClause(b, a, plan.filter, plan.search, [`${col(a, pk)} = ${keyParam}`]);
  const sql = `${PREPARE_MARK}select (select row_to_json(r) from (select ${selectList(b, a, plan)} from ${table(plan.collection.collection)} as ${a}${where}) as r)::text as data`;
  return { sql, params: b.params };
}

/** Primary keys of the rows a plan's filter/search/sort/limit select. */
export function compileKeys(plan: SelectPlan): CompiledRead {
  const b = new SqlBuilder();
  const a = b.alias();
  const pk = plan.collection.fields[plan.collection.primary!];
  const sql = `select ${col(a, pk)} as key from ${table(plan.collection.collection)} as ${a}${whereClause(b, a, plan.filter, plan.search)}${orderBy(b, a, plan.sort)}${page(plan.limit, plan.offset)}`;
  return { sql, params: b.params };
}

function aggregateExpr(a: string, fn: AggregatePlan['functions'][number]): string {
  if (!fn.field) return 'count(*)';
  const c = col(a, fn.field);
  switch (fn.fn) {
    case 'count': return `count(${c})`;
    case 'countDistinct': return `count(distinct ${c})`;
    case 'min': case 'max': return fn.field.type === 'decimal' || fn.field.type === 'bigInteger' ? `${fn.fn}(${c})::text` : `${fn.fn}(${c})`;
    default: return `${fn.fn}(${c})`;
  }
}

/** Aggregate read: Directus' shape, `[{group fields..., count: n, sum: {field: n}}]`. */
export function compileAggregate(plan: AggregatePlan, meta: MetaPlan): CompiledRead {
  const b = new SqlBuilder();
  const a = b.alias();
  const groupExpr = plan.groupBy.map((g) => (g.fn ? functionExpr(b, a, g.fn) : null));
  const pairs: string[] = plan.groupBy.map((g, i) => `${b.param(g.name, 'text')}, ${groupExpr[i] ?? wireValue(a, g.field)}`);
  const byFn = new Map<string, AggregatePlan['functions']>();
  for (const fn of plan.functions) byFn.set(fn.fn, [...(byFn.get(fn.fn) ?? []), fn]);
  for (const [fn, list] of byFn) {
    const star = list.find((f) => f.field === null);
    if (star) pairs.push(`${b.param(fn, 'text')}, count(*)`);
    const named = list.filter((f) => f.field !== null);
    if (named.length) {
      pairs.push(`${b.param(fn, 'text')}, json_build_object(${named.map((f) => `${b.param(f.field!.field, 'text')}, ${aggregateExpr(a, f)}`).join(', ')})`);
    }
  }
  const where = whereClause(b, a, plan.filter, plan.search);
  // A function group is grouped and sorted by the very SQL text it is selected with (parameters bound once).
  const group = plan.groupBy.length ? ` group by ${plan.groupBy.map((g, i) => groupExpr[i] ?? col(a, g.field)).join(', ')}` : '';
  const order = plan.sort.length
    ? ` order by ${plan.sort.map((s) => `${'group' in s.expr ? groupExpr[plan.groupBy.indexOf(s.expr.group)] ?? col(a, s.expr.group.field) : aggregateExpr(a, s.expr.fn)} ${s.desc ? 'desc' : 'asc'}`).join(', ')}`
    : '';
  const inner = `select json_build_object(${pairs.join(', ')}) as j from ${table(plan.collection.collection)} as ${a}${where}${group}${order}${page(plan.limit, plan.offset)}`;
  const sql = `${searchFree(plan.search)}select coalesce(json_agg(r.j), '[]'::json)::text as data${metaColumns(b, plan.collection.collection, meta)} from (${inner}) as r`;
  return { sql, params: b.params };
}
