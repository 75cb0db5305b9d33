/** Parses the raw query string with qs (both `filter[f][_eq]=v` and JSON-string encodings reach the
 * query parser as values), bounded by QUERYSTRING_MAX_PARSE_DEPTH. */
import qs from 'qs';
import type { Context } from 'hono';
import { InvalidQueryError } from '../../core/errors.ts';
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
