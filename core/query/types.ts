/** The parsed, typed form of the query language (SPEC.md > Query parameters). */

export type FilterOperator =
  | '_eq' | '_neq' | '_lt' | '_lte' | '_gt' | '_gte' | '_in' | '_nin' | '_null' | '_nnull'
  | '_contains' | '_ncontains' | '_icontains' | '_starts_with' | '_ends_with' | '_between' | '_nbetween'
  | '_empty' | '_nempty'
  | '_nicontains' | '_istarts_with' | '_nistarts_with' | '_iends_with' | '_niends_with' | '_nstarts_with' | '_nends_with'
  | '_regex';

export const FILTER_OPERATORS: ReadonlySet<string> = new Set<FilterOperator>([
  '_eq', '_neq', '_lt', '_lte', '_gt', '_gte', '_in', '_nin', '_null', '_nnull', '_contains', '_ncontains',
  '_icontains', '_starts_with', '_ends_with', '_between', '_nbetween', '_empty', '_nempty',
  '_nicontains', '_istarts_with', '_nistarts_with', '_iends_with', '_niends_with', '_nstarts_with', '_nends_with', '_regex',
]);

/** Operators taking one string and matching text: LIKE family and `_regex`. */
export const TEXT_OPERATORS: ReadonlySet<string> = new Set<FilterOperator>([
  '_contains', '_ncontains', '_icontains', '_nicontains', '_starts_with', '_nstarts_with', '_istarts_with', '_nistarts_with',
  '_ends_with', '_nends_with', '_iends_with', '_niends_with', '_regex',
]);

/** Longest `_regex` pattern accepted (Postgres compiles it per statement). */
export const MAX_REGEX_LENGTH = 500;

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
  /** `alias[newName]=field`: read a field (a relation, with its own `deep`) under another name. Top level only. */
  alias?: Record<string, string>;
  /** false: `*` expansions below the top level leave out the relation leading back to the parent. */
  backlink?: boolean;
}

/** Per-relation options: keys starting with `_` are query options, other keys nest deeper. */
export interface DeepQuery {
  [relation: string]: DeepQuery | unknown;
}
