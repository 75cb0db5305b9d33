/** Filter plan -> SQL boolean expression over a table alias, values bound as parameters. */
import { NUMERIC_TYPES, TEXT_TYPES } from '../schema/field-types.ts';
import type { FieldOverview } from '../schema/types.ts';
import type { FilterNode, SearchPlan } from './plan-types.ts';
import { castOf, col, likeEscape, table, type SqlBuilder } from './sql-builder.ts';
import { functionExpr } from './compile-function.ts';
import { operatorSpec } from './operators.ts';

function columnFor(alias: string, field: FieldOverview): string {
  const c = col(alias, field);
  return field.dbType === 'json' ? `${c}::jsonb` : c;
}

/** One comparison: the operator's SQL from the registry (operators.ts). */
function compileCompare(b: SqlBuilder, alias: string, node: Extract<FilterNode, { kind: 'cmp' }>): string {
  const { field, op, value } = node;
  const expr = node.fn ? functionExpr(b, alias, node.fn) : columnFor(alias, field);
  const textType = TEXT_TYPES.has(field.type);
  const text = textType ? col(alias, field) : `${col(alias, field)}::text`;
  return operatorSpec(op).sql({ b, expr, text, cast: castOf(field), textType, value });
}

export function compileFilter(b: SqlBuilder, alias: string, node: FilterNode): string {
  switch (node.kind) {
    case 'bool': return node.value ? 'true' : 'false';
    case 'and': case 'or': {
      if (node.children.length === 0) return node.kind === 'and' ? 'true' : 'false';
      return `(${node.children.map((c) => compileFilter(b, alias, c)).join(node.kind === 'and' ? ' and ' : ' or ')})`;
    }
    case 'cmp': return compileCompare(b, alias, node);
    case 'm2o': {
      const a = b.alias();
      const pk = node.related.primary!;
      return `exists (select 1 from ${table(node.related.collection)} as ${a} where ${col(a, pk)} = ${col(alias, node.fk)} and ${compileFilter(b, a, node.child)})`;
    }
    case 'o2m': {
      const a = b.alias();
      const sub = `exists (select 1 from ${table(node.related.collection)} as ${a} where ${col(a, node.fkOnChild)} = ${col(alias, node.parentKey)} and ${compileFilter(b, a, node.child)})`;
      return node.none ? `not ${sub}` : sub;
    }
    case 'a2oTarget': {
      const a = b.alias();
      return `exists (select 1 from ${table(node.related.collection)} as ${a} where ${col(a, node.collectionField)} = ${b.param(node.target, 'text')} and ${col(a, node.keyField)} = ${col(alias, node.ownKey)}::text and ${compileFilter(b, a, node.child)})`;
    }
    case 'a2o': {
      const parts = node.branches.map(({ related, child }) => {
        const a = b.alias();
        return `(${col(alias, node.collectionField)} = ${b.param(related.collection)} and exists (select 1 from ${table(related.collection)} as ${a} where ${col(a, related.primary!)}::text = ${col(alias, node.keyField)} and ${compileFilter(b, a, child)}))`;
      });
      return `(${parts.join(' or ')})`;
    }
  }
}

/** `search`: ILIKE '%text%' on every searchable text field, equality on numeric / uuid fields, OR'ed.
 *
 * Without the collection's trigram index no plan can look the matches up, and which scan Postgres picks rests on
 * its estimate of how many rows match — for `ILIKE '%word%'` a guess from ANALYZE's sample of the column (a word
 * in 0.25 % of rows is mostly absent from the 100-entry histogram of the default statistics target, so the
 * estimate is the 0.01 % floor): with `order by <pk> limit 25` it then scans the whole table and sorts (a word in
 * 1 % of rows: ~200 ms on 100k rows) instead of walking the key and stopping at the 25th hit (~5 ms). There, the
 * OR is wrapped in `coalesce(..., false)`: the same rows (NULL and false both fail a WHERE), but an expression
 * the planner has no statistics for, so it takes its default selectivity (0.5) and walks the key (or the sort's
 * index) whatever the sample held. A word that is rare or absent then reads the whole table along the key,
 * about what the parallel scan costs in CPU (test/query/search-plan.test.ts, docs/benchmarks.md). With the
 * trigram index the bare OR is kept, so the planner can match the index (and a BitmapOr with a key equality). */
export function compileSearch(b: SqlBuilder, alias: string, search: SearchPlan): string {
  if (search.fields.length === 0) return 'false';
  const like = `%${likeEscape(search.text)}%`;
  let likeParam: string | null = null;
  const parts = search.fields.map((f) => {
    if (TEXT_TYPES.has(f.type)) {
      likeParam ??= b.param(like);
      return `${col(alias, f)} ilike ${likeParam}`;
    }
    if (NUMERIC_TYPES.has(f.type)) return `${col(alias, f)} = ${b.param(search.text, castOf(f))}`;
    return `${col(alias, f)} = ${b.param(search.text, 'uuid')}`;
  });
  return search.indexed ? `(${parts.join(' or ')})` : `coalesce(${parts.join(' or ')}, false)`;
}

/** `where ...` for a filter and search, or an empty string. */
export function whereClause(b: SqlBuilder, alias: string, filter: FilterNode | null, search: SearchPlan | null, extra: string[] = []): string {
  const parts = [...extra];
  if (filter) parts.push(compileFilter(b, alias, filter));
  if (search) parts.push(compileSearch(b, alias, search));
  return parts.length ? ` where ${parts.join(' and ')}` : '';
}
