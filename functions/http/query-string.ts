/** The query of a request, under the configuration's limits (core/query/limits.ts): the raw query string parsed
 * with qs (both `filter[f][_eq]=v` and JSON-string encodings reach the query parser as values), bounded by
 * QUERYSTRING_MAX_PARSE_DEPTH, then the query language's parser. Every route reads its query through here. */
import qs from 'qs';
import type { Context } from 'hono';
import { InvalidQueryError } from '../../core/errors.ts';
import type { QueryInput } from '../../core/items/read.ts';
import { parseLimits, type ParseLimitConfig } from '../../core/query/limits.ts';
import { parseQuery, type ParseLimits } from '../../core/query/parse.ts';
import type { Query } from '../../core/query/types.ts';
import type { AppEnv } from './env.ts';

export function parseQueryString(c: Context<AppEnv>): Record<string, unknown> {
  const url = c.req.url;
  const at = url.indexOf('?');
  if (at < 0) return {};
  const depth = c.get('services').config.querystringMaxParseDepth;
  try {
    return qs.parse(url.slice(at + 1), { depth, strictDepth: true, arrayLimit: 1000, parameterLimit: 1000, allowPrototypes: false }) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof RangeError) throw new InvalidQueryError(`Query string is nested deeper than ${depth} levels.`);
    throw new InvalidQueryError('Malformed query string.');
  }
}

/** A query object (a parsed query string, or the `query` of a JSON body) under the configuration's limits;
 * `over` replaces some of them (an export has no QUERY_LIMIT_MAX). */
export function queryOf(config: ParseLimitConfig, raw: unknown, over?: Partial<ParseLimits>): Query {
  return parseQuery(raw as Record<string, unknown>, { ...parseLimits(config), ...over });
}

/** The query of the request's query string, parsed now. */
export function requestQuery(c: Context<AppEnv>): Query {
  return queryOf(c.get('services').config, parseQueryString(c));
}

/** The query of the request's query string, parsed only when its compiled statement is not cached yet.
 * `cacheKey`: the raw query string by default. */
export function cachedRequestQuery(c: Context<AppEnv>, cacheKey?: string): QueryInput {
  const url = c.req.url;
  const at = url.indexOf('?');
  return { query: () => requestQuery(c), cacheKey: cacheKey ?? (at < 0 ? '' : url.slice(at + 1)) };
}
