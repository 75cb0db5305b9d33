/** The parsed, typed form of the query language (SPEC.md > Query parameters). */

export type FilterOperator =
  | '_eq' | '_neq' | '_lt' | '_lte' | '_gt' | '_gte' | '_in' | '_nin' | '_null' | '_nnull'
  | '_contains' | '_ncontains' | '_icontains' | '_starts_with' | '_ends_with' | '_between' | '_nbetween'
  | '_empty' | '_nempty';

export const FILTER_OPERATORS: ReadonlySet<string> = new Set<FilterOperator>([
  '_eq', '_neq', '_lt', '_lte', '_gt', '_gte', '_in', '_nin', '_null', '_nnull', '_contains', '_ncontains',
  '_icontains', '_starts_with', '_ends_with', '_between', '_nbetween', '_empty', '_nempty',
]);

/** `{field: {_op: value}}`, `{_and: [...]}`, `{_or: [...]}`, `{relation: {field: {...}}}`, `{o2m: {_some|_none: {...}}}`. */
export type Filter = { [key: string]: unknown };

export type AggregateFunction = 'count' | 'countDistinct' | 'sum' | 'avg' | 'min' | 'max' | 'countAll';
export const AGGREGATE_FUNCTIONS: ReadonlySet<string> = new Set(['count', 'countDistinct', 'sum', 'avg', 'min', 'max']);

export type MetaKey = 'total_count' | 'filter_count';

export interface Query {
  fields?: string[];
  filter?: Filter;
  sort?: string[];
  /** -1 = all rows. */
  limit?: number;
  offset?: number;
  page?: number;
  search?: string;
  meta?: MetaKey[];
  deep?: DeepQuery;
  aggregate?: Partial<Record<Exclude<AggregateFunction, 'countAll'>, string[]>>;
  groupBy?: string[];
}

/** Per-relation options: keys starting with `_` are query options, other keys nest deeper. */
export interface DeepQuery {
  [relation: string]: DeepQuery | unknown;
}
