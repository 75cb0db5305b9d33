/** Stage 1 (parse): query-string object or /search JSON body -> typed Query. Pure; every error is an
 * INVALID_QUERY naming the parameter. Identifiers are checked later, against the schema, by the planner. */
import { InvalidQueryError } from '../errors.ts';
import { AGGREGATE_FUNCTIONS, type DeepQuery, type Filter, type MetaKey, type Query } from './types.ts';

export interface ParseLimits {
  /** Maximum nesting of filter / deep objects (QUERYSTRING_MAX_PARSE_DEPTH). */
  maxDepth: number;
  /** -1 = no maximum. */
  maxLimit: number;
}

function jsonOrValue(name: string, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const text = raw.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return raw;
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidQueryError(`Invalid JSON in "${name}" query parameter.`);
  }
}

function depthOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit) return depth;
  if (typeof value !== 'object' || value === null) return depth;
  let max = depth;
  for (const v of Object.values(value)) max = Math.max(max, depthOf(v, limit, depth + 1));
  return max;
}

function list(name: string, raw: unknown): string[] {
  const parts = Array.isArray(raw) ? raw : [raw];
  const out: string[] = [];
  for (const part of parts) {
    if (typeof part !== 'string') throw new InvalidQueryError(`"${name}" must be a comma separated list or an array of strings.`);
    for (const item of part.split(',')) {
      const trimmed = item.trim();
      if (trimmed) out.push(trimmed);
    }
  }
  return out;
}

function integer(name: string, raw: unknown, min: number): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new InvalidQueryError(`"${name}" must be an integer${min >= 0 ? ` >= ${min}` : ''}.`);
  return n;
}

function object(name: string, raw: unknown, limits: ParseLimits): Record<string, unknown> {
  const value = jsonOrValue(name, raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidQueryError(`"${name}" must be an object.`);
  if (depthOf(value, limits.maxDepth) > limits.maxDepth) throw new InvalidQueryError(`"${name}" is nested deeper than ${limits.maxDepth} levels.`);
  return value as Record<string, unknown>;
}

export function parseFilter(raw: unknown, limits: ParseLimits, name = 'filter'): Filter {
  return object(name, raw, limits);
}

function parseMeta(raw: unknown): MetaKey[] {
  const keys = list('meta', raw);
  const out = new Set<MetaKey>();
  for (const k of keys) {
    if (k === '*') { out.add('total_count'); out.add('filter_count'); }
    else if (k === 'total_count' || k === 'filter_count') out.add(k);
    else throw new InvalidQueryError(`Unknown meta key "${k}".`);
  }
  return [...out];
}

function parseAggregate(raw: unknown, limits: ParseLimits): Query['aggregate'] {
  const value = object('aggregate', raw, limits);
  const out: NonNullable<Query['aggregate']> = {};
  for (const [fn, fields] of Object.entries(value)) {
    if (!AGGREGATE_FUNCTIONS.has(fn)) throw new InvalidQueryError(`Unknown aggregate function "${fn}".`);
    out[fn as keyof typeof out] = list(`aggregate[${fn}]`, fields);
  }
  return out;
}

const DEEP_OPTIONS = new Set(['_fields', '_filter', '_sort', '_limit', '_offset', '_page', '_search']);

function parseDeep(raw: unknown, limits: ParseLimits, path = 'deep'): DeepQuery {
  const value = path === 'deep' ? object('deep', raw, limits) : raw;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidQueryError(`"${path}" must be an object.`);
  const out: DeepQuery = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key.startsWith('_')) {
      if (!DEEP_OPTIONS.has(key)) throw new InvalidQueryError(`Unknown deep option "${key}" in "${path}".`);
      out[key] = v;
    } else {
      out[key] = parseDeep(v, limits, `${path}[${key}]`);
    }
  }
  return out;
}

/** Parses the nested-query options of one deep level into a Query (fields, filter, sort, limit...). */
export function parseDeepOptions(level: DeepQuery, limits: ParseLimits, path: string): Query {
  const q: Query = {};
  if (level._fields !== undefined) q.fields = list(`${path}[_fields]`, level._fields);
  if (level._filter !== undefined) q.filter = parseFilter(level._filter, limits, `${path}[_filter]`);
  if (level._sort !== undefined) q.sort = list(`${path}[_sort]`, level._sort);
  if (level._limit !== undefined) q.limit = integer(`${path}[_limit]`, level._limit, -1);
  if (level._offset !== undefined) q.offset = integer(`${path}[_offset]`, level._offset, 0);
  if (level._page !== undefined) q.page = integer(`${path}[_page]`, level._page, 1);
  if (level._search !== undefined) {
    if (typeof level._search !== 'string') throw new InvalidQueryError(`"${path}[_search]" must be a string.`);
    q.search = level._search;
  }
  return q;
}

function parseAlias(raw: unknown, limits: ParseLimits): Record<string, string> {
  const value = object('alias', raw, limits);
  const out: Record<string, string> = {};
  for (const [name, target] of Object.entries(value)) {
    if (typeof target !== 'string' || target === '') throw new InvalidQueryError(`"alias[${name}]" must name a field.`);
    out[name] = target;
  }
  return out;
}

function parseBoolean(name: string, raw: unknown): boolean {
  if (raw === true || raw === 'true' || raw === '1') return true;
  if (raw === false || raw === 'false' || raw === '0') return false;
  throw new InvalidQueryError(`"${name}" must be true or false.`);
}

/** Parses every known query parameter; unknown parameters (access_token, version, ...) are left to the caller. */
export function parseQuery(raw: Record<string, unknown>, limits: ParseLimits): Query {
  const q: Query = {};
  if (raw.fields !== undefined) q.fields = list('fields', jsonOrValue('fields', raw.fields));
  if (raw.filter !== undefined && raw.filter !== '') q.filter = parseFilter(raw.filter, limits);
  if (raw.sort !== undefined && raw.sort !== '') q.sort = list('sort', jsonOrValue('sort', raw.sort));
  if (raw.limit !== undefined && raw.limit !== '') {
    q.limit = integer('limit', raw.limit, -1);
    if (limits.maxLimit >= 0 && (q.limit === -1 || q.limit > limits.maxLimit)) {
      throw new InvalidQueryError(`"limit" may not exceed ${limits.maxLimit}.`);
    }
  }
  if (raw.offset !== undefined && raw.offset !== '') q.offset = integer('offset', raw.offset, 0);
  if (raw.page !== undefined && raw.page !== '') q.page = integer('page', raw.page, 1);
  if (raw.search !== undefined) {
    if (typeof raw.search !== 'string') throw new InvalidQueryError('"search" must be a string.');
    if (raw.search !== '') q.search = raw.search;
  }
  if (raw.meta !== undefined && raw.meta !== '') q.meta = parseMeta(raw.meta);
  if (raw.deep !== undefined && raw.deep !== '') q.deep = parseDeep(raw.deep, limits);
  if (raw.aggregate !== undefined && raw.aggregate !== '') q.aggregate = parseAggregate(raw.aggregate, limits);
  if (raw.groupBy !== undefined && raw.groupBy !== '') q.groupBy = list('groupBy', jsonOrValue('groupBy', raw.groupBy));
  if (raw.alias !== undefined && raw.alias !== '') q.alias = parseAlias(raw.alias, limits);
  if (raw.backlink !== undefined && raw.backlink !== '') q.backlink = parseBoolean('backlink', raw.backlink);
  return q;
}
