/** The parsed, typed form of the query language (SPEC.md > Query parameters). */

// The operators live in their registry; re-exported here as part of the typed query.
export { FILTER_OPERATORS, type FilterOperator } from './operators.ts';

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
