/** Reading content: read_items (the full query language), read_item (one item with its relations, or a draft of it),
 * search_items (full-text search over one or every readable collection). Each goes through the items read service with
 * the caller's permissions, as GET /items does; rows are bounded by MCP_MAX_ROWS (../limits.ts). */
import { z } from 'zod';
import { loadPermissions } from '../../access/permissions.ts';
import { itemsCollection } from '../../items/collection.ts';
import { readItem, readItems, readSingleton } from '../../items/read.ts';
import { relationOf } from '../../schema/relations.ts';
import { previewItem } from '../../versions/preview.ts';
import { loweredNotice } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import type { McpCall } from '../call.ts';
import { COLLECTION, FIELDS, KEY, QUERY_SHAPE, queryOfArgs, withNotice } from './query-input.ts';


export const readItemsTool = defineTool({
  name: 'read_items',
  title: 'Read items',
  description: 'Items of a collection with the full query language: fields (with relations by dot path), filter, sort, '
    + 'search, limit/offset/page, meta counts, deep (per-relation options), aggregate and groupBy. Only what you may read '
    + 'is returned. At most MCP_MAX_ROWS rows per call (a "notice" says when your limit was lowered).',
  input: { collection: COLLECTION, ...QUERY_SHAPE },
  annotations: READ_ONLY,
  async run(call, args) {
    const { ctx } = call;
    const { query, lowered } = queryOfArgs(ctx.config, args);
    if (ctx.schema.collections[args.collection]?.singleton) return readSingleton(ctx, args.collection, query);
    return withNotice(await readItems(ctx, args.collection, query), loweredNotice(ctx.config, lowered));
  },
});

/** read_item's default fields: every field, and one level of each relation into a collection the caller may read (a
 * bare "*.*" is refused as a whole when one relation leads where the caller may not read). */
async function withRelations(call: McpCall, collection: string): Promise<string[]> {
  const { ctx } = call;
  const c = itemsCollection(ctx, collection);
  const permissions = ctx.accountability.admin ? null : await loadPermissions(ctx);
  const read = permissions?.get(collection, 'read');
  if (permissions && !read) return ['*'];
  const fields = ['*'];
  for (const f of Object.keys(c.fields)) {
    if (read?.fields && !read.fields.has(f)) continue;
    const relation = relationOf(ctx.schema, collection, f);
    if (relation && relation.kind !== 'a2o' && (!permissions || permissions.get(relation.related, 'read'))) fields.push(`${f}.*`);
  }
  return fields;
}

export const readItemTool = defineTool({
  name: 'read_item',
  title: 'Read one item',
  description: 'One item by its primary key, by default with one level of the relations you may read. With "version" (the id '
    + 'of a content version, e.g. a draft you wrote) it answers the item as that draft would make it. A missing item and '
    + 'one you may not read both answer FORBIDDEN.',
  input: {
    collection: COLLECTION,
    key: KEY,
    fields: FIELDS,
    deep: QUERY_SHAPE.deep,
    alias: QUERY_SHAPE.alias,
    version: z.string().uuid().optional().describe('A content version of this item: read the item with its changes.'),
  },
  annotations: READ_ONLY,
  async run(call, args) {
    const { ctx } = call;
    const fields = args.fields ?? await withRelations(call, args.collection);
    const { query } = queryOfArgs(ctx.config, { fields, deep: args.deep, alias: args.alias });
    if (args.version !== undefined) return previewItem(ctx, args.collection, String(args.key), args.version, { query });
    return readItem(ctx, args.collection, args.key, query);
  },
});

/** The user collections with a table the caller may read, in name order. */
async function searchableCollections(call: McpCall): Promise<string[]> {
  const { ctx } = call;
  const permissions = ctx.accountability.admin ? null : await loadPermissions(ctx);
  return Object.values(ctx.schema.collections)
    .filter((c) => !c.system && !c.folder && c.primary && !c.singleton && (!permissions || permissions.get(c.collection, 'read')))
    .map((c) => c.collection)
    .sort();
}

export const searchItemsTool = defineTool({
  name: 'search_items',
  title: 'Search content',
  description: 'Full-text search across the text fields of one or more collections (default: every collection you may '
    + 'read). Answers the matching items per collection, at most "limit" per collection and MCP_MAX_ROWS in all.',
  input: {
    search: z.string().min(1).max(500).describe('The words to look for.'),
    collections: z.array(z.string().min(1).max(64)).max(100).optional().describe('Only these collections.'),
    fields: FIELDS,
    filter: QUERY_SHAPE.filter,
    limit: z.number().int().min(1).optional().describe('Items per collection (default 10).'),
  },
  annotations: READ_ONLY,
  async run(call, args) {
    const { ctx } = call;
    const names = args.collections ?? await searchableCollections(call);
    let left = ctx.config.mcp.maxRows;
    let searched = 0;
    const results: { collection: string; data: unknown[] }[] = [];
    for (const collection of names) {
      if (left <= 0) break;
      const { query } = queryOfArgs(ctx.config, { search: args.search, fields: args.fields ?? ['*'], filter: args.filter, limit: Math.min(args.limit ?? 10, left) });
      const { data } = JSON.parse(await readItems(ctx, collection, query)) as { data: unknown[] };
      searched++;
      left -= data.length;
      if (data.length > 0) results.push({ collection, data });
    }
    if (searched === names.length) return { data: results, searched };
    const notice = `stopped after ${ctx.config.mcp.maxRows} rows (MCP_MAX_ROWS) with ${names.length - searched} collections not searched; name them in "collections" or lower "limit".`;
    return { notice, data: results, searched };
  },
});
