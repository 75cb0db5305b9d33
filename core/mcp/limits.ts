/** The bounds of one MCP call, beyond those of the transport (a request body of at most MAX_PAYLOAD_SIZE with at most
 * MAX_BATCH_MESSAGES messages, at most MAX_TOOL_INPUT_ELEMENTS values in a tool's arguments) and of every query (QUERYSTRING_MAX_PARSE_DEPTH, filter depth,
 * MAX_RELATIONAL_DEPTH): a read returns at most MCP_MAX_ROWS rows at the top level and per nested relation, and an
 * answer at most MCP_MAX_RESULT_SIZE bytes (results.ts). */
import type { Config } from '../config.ts';
import { parseLimits } from '../query/limits.ts';
import { parseQuery } from '../query/parse.ts';
import type { DeepQuery, Query } from '../query/types.ts';

/** The most array elements and object members one tool call's arguments may hold (the SDK refuses more before the
 * tool runs). A create or update carries one item; ten thousand values is far beyond any item. */
export const MAX_TOOL_INPUT_ELEMENTS = 10_000;

/** The most JSON-RPC messages one POST may carry. The protocol stopped batching in 2025-06-18 (the SDK's client sends
 * one message per request); older clients batch a few. A batch's calls run at once, inside one admitted request, so
 * the SDK's own bound (100) would let one request run a hundred reads. */
export const MAX_BATCH_MESSAGES = 10;

/** A query as the agent sent it, and whether its limit was lowered. */
export interface BoundedQuery {
  query: Query;
  /** The limit the agent asked for when it was above MCP_MAX_ROWS (or unlimited), else undefined. */
  lowered?: number;
}

function boundLimit(limit: number | undefined, max: number): number {
  return limit === undefined || limit === -1 || limit > max ? max : limit;
}

/** `_limit` of every deep level at most `max` (a missing one is the planner's default, QUERY_LIMIT_DEFAULT, also
 * lowered to `max`). Values are those of the query language: integers, or integer text. */
function boundDeep(deep: DeepQuery, max: number): DeepQuery {
  const out: DeepQuery = {};
  for (const [key, value] of Object.entries(deep)) {
    if (key === '_limit') {
      const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
      out._limit = typeof n === 'number' && Number.isSafeInteger(n) ? boundLimit(n, max) : value;
    } else if (!key.startsWith('_') && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = boundDeep(value as DeepQuery, max);
    } else out[key] = value;
  }
  return out;
}

/** The query language's parser (as REST parses a /search body), then the row bounds: the top-level limit lowered to
 * MCP_MAX_ROWS (unset: the smaller of QUERY_LIMIT_DEFAULT and it), each deep `_limit` too. */
export function boundedQuery(config: Config, raw: Record<string, unknown>): BoundedQuery {
  const query = parseQuery(raw, { ...parseLimits(config), maxLimit: -1 });
  const max = config.mcp.maxRows;
  const asked = query.limit;
  query.limit = asked === undefined ? Math.min(config.queryLimitDefault > 0 ? config.queryLimitDefault : max, max) : boundLimit(asked, max);
  if (query.deep) query.deep = boundDeep(query.deep, max);
  return asked !== undefined && query.limit !== asked ? { query, lowered: asked } : { query };
}

/** What a list answer says when its limit was lowered, so the agent knows to page. */
export function loweredNotice(config: Config, lowered: number | undefined): string | undefined {
  if (lowered === undefined) return undefined;
  return `limit ${lowered === -1 ? '-1 (all)' : lowered} was lowered to ${config.mcp.maxRows}, the most rows one MCP call reads; page with offset or page.`;
}
