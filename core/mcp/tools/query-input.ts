/** The arguments the tools share: a collection, an item's key, and the query language (SPEC.md > Query parameters,
 * the shape a /search body takes) with its translation to a bounded Query (../limits.ts). The schemas describe; the
 * services' own parsers decide. */
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { boundedQuery, type BoundedQuery } from '../limits.ts';

const AGGREGATES = ['count', 'countDistinct', 'sum', 'avg', 'min', 'max'] as const;

export const COLLECTION = z.string().min(1).max(64).describe('The collection (see describe_schema).');
export const KEY = z.union([z.string().min(1).max(255), z.number().int()]).describe('The primary key of the item.');

export const FIELDS = z.array(z.string().max(500)).max(500).optional()
  .describe('Fields to return. "*" is every field you may read; dot notation follows relations ("author.name", "comments.*"); "*.*" adds one level of every relation.');

export const QUERY_SHAPE = {
  fields: FIELDS,
  filter: z.record(z.string(), z.unknown()).optional()
    .describe('Row filter: {"field": {"_eq": value}}, nested with "_and"/"_or" arrays; operators _eq _neq _lt _lte _gt _gte _in _nin _null _nnull _contains _icontains _starts_with _ends_with _between _empty _nempty; relations by dot path as nested objects ({"author": {"name": {"_eq": "Ada"}}}); $CURRENT_USER and $NOW as values.'),
  sort: z.array(z.string().max(500)).max(50).optional().describe('Fields to sort by; "-field" descending.'),
  limit: z.number().int().min(-1).optional().describe('Rows to return (at most the server\'s MCP_MAX_ROWS; more, or -1, is lowered to it).'),
  offset: z.number().int().min(0).optional(),
  page: z.number().int().min(1).optional(),
  search: z.string().max(500).optional().describe('Full-text search across the text fields.'),
  meta: z.array(z.enum(['total_count', 'filter_count'])).optional().describe('Counts to add as "meta".'),
  deep: z.record(z.string(), z.unknown()).optional()
    .describe('Per-relation query options: {"comments": {"_filter": {...}, "_sort": ["-date"], "_limit": 5}}.'),
  aggregate: z.partialRecord(z.enum(AGGREGATES), z.array(z.string().max(500)).max(50)).optional()
    .describe('Aggregates: {"count": ["*"]}, {"sum": ["price"]}; with groupBy, one row per group.'),
  groupBy: z.array(z.string().max(500)).max(20).optional(),
  alias: z.record(z.string(), z.string()).optional().describe('Read a field under another name: {"writer": "author"}.'),
};

type QueryArgs = { [K in keyof typeof QUERY_SHAPE]?: unknown };

/** The query keys of a tool's arguments, parsed and bounded. */
export function queryOfArgs(config: Config, args: QueryArgs): BoundedQuery {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(QUERY_SHAPE) as (keyof QueryArgs)[]) if (args[key] !== undefined) raw[key] = args[key];
  return boundedQuery(config, raw);
}

/** `{"data":...}` text with a `notice` first (a lowered limit), without parsing the data. */
export function withNotice(text: string, notice: string | undefined): string {
  return notice === undefined ? text : `{"notice":${JSON.stringify(notice)},${text.slice(1)}`;
}
