/** Stage 2 output: an immutable tree of what to read, every identifier resolved against the schema. */
import type { CollectionOverview, FieldOverview } from '../schema/types.ts';
import type { FilterOperator } from './types.ts';

export type FilterNode =
  | { kind: 'and' | 'or'; children: FilterNode[] }
  /** `fn` set: the comparison is on a function of the row (`year(date)`, `count(comments)`); `field` then is an
   * integer stand-in named after the call, for value coercion. */
  | { kind: 'cmp'; field: FieldOverview; op: FilterOperator; value: unknown; fn?: FunctionPlan }
  | { kind: 'm2o'; fk: FieldOverview; related: CollectionOverview; child: FilterNode }
  | { kind: 'o2m'; none: boolean; fkOnChild: FieldOverview; parentKey: FieldOverview; related: CollectionOverview; child: FilterNode }
  | { kind: 'a2o'; keyField: FieldOverview; collectionField: FieldOverview; branches: { related: CollectionOverview; child: FilterNode }[] }
  /** The row is pointed at by an A2O of `related` (its `keyField` holds our key as text, `collectionField`
   * our collection name) from a row matching `child`: the reverse of an A2O, used by share scopes. */
  | { kind: 'a2oTarget'; related: CollectionOverview; keyField: FieldOverview; collectionField: FieldOverview; target: string; ownKey: FieldOverview; child: FilterNode }
  | { kind: 'bool'; value: boolean };

export type DateFunction = 'year' | 'month' | 'week' | 'day' | 'weekday' | 'hour' | 'minute' | 'second';

/** A function of a row usable in fields, filters, sort and groupBy: a date part of a date/time column (UTC), or
 * the number of related rows of a to-many relation (only rows the caller may read are counted). */
export type FunctionPlan =
  | { kind: 'date'; fn: DateFunction; field: FieldOverview }
  | { kind: 'count'; relation: FieldOverview; related: CollectionOverview; fkOnChild: FieldOverview; parentKey: FieldOverview; filter: FilterNode | null };

/** Rows a caller may reach beyond its permissions, per collection (a share token: the shared item and what
 * is related to it). A collection without an entry is out of reach. */
export type RowScope = ReadonlyMap<string, FilterNode>;

export interface SortTarget {
  /** M2O hops from the planned collection to the sorted column's collection; `filter` is the caller's row filter
   * on the hop's collection (null: every row). */
  chain: { fk: FieldOverview; related: CollectionOverview; filter: FilterNode | null }[];
  field: FieldOverview;
  /** Sort by a function of the last collection's row instead of `field`. */
  fn?: FunctionPlan;
}

export interface SortPlan {
  target: SortTarget;
  desc: boolean;
}

export interface SearchPlan {
  text: string;
  fields: FieldOverview[];
  /** The collection has its trigram search index (`meta.search_index`): the predicate is left for the planner to
   * match against it (core/query/compile-filter.ts compileSearch). */
  indexed: boolean;
}

export type FieldPlan =
  | { kind: 'column'; name: string; field: FieldOverview }
  | { kind: 'fn'; name: string; fn: FunctionPlan }
  | { kind: 'm2o'; name: string; fk: FieldOverview; child: SelectPlan }
  | { kind: 'o2m'; name: string; fkOnChild: FieldOverview; parentKey: FieldOverview; child: SelectPlan; keysOnly: boolean }
  | { kind: 'a2o'; name: string; keyField: FieldOverview; collectionField: FieldOverview; branches: { collection: string; child: SelectPlan }[] };

export interface SelectPlan {
  collection: CollectionOverview;
  fields: FieldPlan[];
  /** User filter AND permission row filter. */
  filter: FilterNode | null;
  search: SearchPlan | null;
  sort: SortPlan[];
  /** null = no limit. */
  limit: number | null;
  offset: number;
}

export interface AggregateFunctionPlan {
  fn: 'count' | 'countDistinct' | 'sum' | 'avg' | 'min' | 'max';
  /** null = `*` (count only). */
  field: FieldOverview | null;
}

/** A groupBy entry: a column, or a function of the row (`year(date_created)`, keyed `date_created_year`). */
export interface GroupByPlan {
  name: string;
  field: FieldOverview;
  fn?: FunctionPlan;
}

export interface AggregatePlan {
  collection: CollectionOverview;
  groupBy: GroupByPlan[];
  functions: AggregateFunctionPlan[];
  filter: FilterNode | null;
  search: SearchPlan | null;
  /** Sort by a groupBy field, or by an aggregate function alias (`count`, `-sum.views`...). */
  sort: { expr: { group: GroupByPlan } | { fn: AggregateFunctionPlan }; desc: boolean }[];
  limit: number | null;
  offset: number;
}

export interface MetaPlan {
  /** Permission filter only (whole collection as the caller may see it). */
  totalCount: { filter: FilterNode | null } | null;
  /** User filter + search + permission filter. */
  filterCount: { filter: FilterNode | null; search: SearchPlan | null } | null;
}

export interface ReadPlan {
  select: SelectPlan | null;
  aggregate: AggregatePlan | null;
  meta: MetaPlan;
}
