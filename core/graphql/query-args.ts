/** Root arguments -> the REST Query, checked as parseQuery checks a query string (limit bounds...). */
import type { Config } from '../config.ts';
import { InvalidQueryError } from '../errors.ts';
import type { Filter, Query } from '../query/types.ts';

/** GraphQL input values may be null-prototype objects: copied into plain JSON values. */
export function plain<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value)) as T;
}

function integer(name: string, value: unknown, min: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) throw new InvalidQueryError(`"${name}" must be an integer >= ${min}.`);
  return value;
}

export function listQuery(args: Record<string, unknown>, config: Config): Query {
  const q: Query = {};
  if (args.filter) q.filter = plain(args.filter as Filter);
  if (Array.isArray(args.sort) && args.sort.length) q.sort = (args.sort as unknown[]).filter((s): s is string => typeof s === 'string' && s !== '');
  const limit = integer('limit', args.limit, -1);
  if (limit !== undefined) {
    if (config.queryLimitMax >= 0 && (limit === -1 || limit > config.queryLimitMax)) throw new InvalidQueryError(`"limit" may not exceed ${config.queryLimitMax}.`);
    q.limit = limit;
  }
  const offset = integer('offset', args.offset, 0);
  if (offset !== undefined) q.offset = offset;
  const page = integer('page', args.page, 1);
  if (page !== undefined) q.page = page;
  if (typeof args.search === 'string' && args.search !== '') q.search = args.search;
  if (Array.isArray(args.groupBy) && args.groupBy.length) q.groupBy = (args.groupBy as unknown[]).filter((s): s is string => typeof s === 'string');
  return q;
}
