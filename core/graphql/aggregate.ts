/** `{c}_aggregated`: Directus' GraphQL aggregate shape over the REST aggregate query.
 * `countAll` is `count(*)`; selected with per-field counts it is read as the count of the primary key
 * (never null), so one statement answers both. */
import { GraphQLFloat, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, type GraphQLFieldConfigMap } from 'graphql/index.js';
import type { CollectionOverview } from '../schema/types.ts';
import type { FieldKind } from './field-kinds.ts';
import { NUMERIC } from './field-kinds.ts';
import { GraphQLJSON } from './scalars.ts';
import { functionKey, parseFunctionCall } from '../query/functions.ts';
import type { Query } from '../query/types.ts';

const FUNCTIONS = ['count', 'countDistinct', 'sum', 'avg', 'min', 'max'] as const;
type Fn = (typeof FUNCTIONS)[number];

export function aggregatedType(c: CollectionOverview, kinds: FieldKind[]): GraphQLObjectType {
  // Counted: every column, foreign keys included; summed and averaged: numeric columns that are not keys.
  const columns = kinds.filter((k) => k.kind !== 'o2m' && !k.field.alias).map((k) => k.field);
  const counted: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const f of columns) counted[f.field] = { type: GraphQLInt };
  const numeric: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const k of kinds) if (k.kind === 'column' && NUMERIC.has(k.field.type)) numeric[k.field.field] = { type: GraphQLFloat };
  const fields: GraphQLFieldConfigMap<unknown, unknown> = { group: { type: GraphQLJSON }, countAll: { type: GraphQLInt } };
  if (columns.length) {
    const countType = new GraphQLObjectType({ name: `${c.collection}_aggregated_count`, fields: counted });
    fields.count = { type: countType };
    fields.countDistinct = { type: countType };
  }
  if (Object.keys(numeric).length) {
    const numType = new GraphQLObjectType({ name: `${c.collection}_aggregated_fields`, fields: numeric });
    for (const fn of ['sum', 'avg', 'min', 'max']) fields[fn] = { type: numType };
  }
  return new GraphQLObjectType({ name: `${c.collection}_aggregated`, fields });
}

export const aggregatedList = (t: GraphQLObjectType) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t)));

export interface AggregateRequest {
  aggregate: NonNullable<Query['aggregate']>;
  /** countAll is the plain `count` value (count(*)), or the count of this field. */
  countAllFrom: 'star' | string | null;
}

/** The REST aggregate of the selected members. */
export function aggregateOf(c: CollectionOverview, members: Map<string, Set<string>>): AggregateRequest {
  const aggregate: NonNullable<Query['aggregate']> = {};
  for (const fn of FUNCTIONS) {
    const fields = members.get(fn);
    if (fields && fields.size) aggregate[fn] = [...fields];
  }
  let countAllFrom: AggregateRequest['countAllFrom'] = null;
  if (members.has('countAll')) {
    if (aggregate.count) {
      if (!aggregate.count.includes(c.primary!)) aggregate.count.push(c.primary!);
      countAllFrom = c.primary!;
    } else {
      aggregate.count = ['*'];
      countAllFrom = 'star';
    }
  }
  return { aggregate, countAllFrom };
}

/** The key a groupBy entry has in a REST row: `year(published_on)` is `published_on_year`, as REST answers it. */
function groupKey(g: string): string {
  const call = parseFunctionCall(g);
  return call ? functionKey(call) : g;
}

/** One REST aggregate row -> the GraphQL object. */
export function shapeRow(row: Record<string, unknown>, groupBy: string[] | undefined, req: AggregateRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (groupBy?.length) out.group = Object.fromEntries(groupBy.map((g) => { const k = groupKey(g); return [k, row[k] ?? null]; }));
  for (const fn of FUNCTIONS) {
    const v = row[fn];
    if (fn === 'count' && req.countAllFrom === 'star') out.count = {};
    else if (v !== undefined) out[fn as Fn] = v;
  }
  if (req.countAllFrom === 'star') out.countAll = row.count;
  else if (req.countAllFrom) out.countAll = (row.count as Record<string, unknown> | undefined)?.[req.countAllFrom] ?? 0;
  return out;
}
