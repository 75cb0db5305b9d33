/** The collections as MCP resources (`svc://collections/{collection}`): listed are the user collections the caller may
 * read (describe.ts); a read answers the collection's description (fields, relations) and its first items as the
 * caller reads them. */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { readItems, readSingleton } from '../items/read.ts';
import type { McpCall } from './call.ts';
import { describeSchema, readableCollections } from './describe.ts';
import { boundedQuery } from './limits.ts';
import { asProtocol, jsonText } from './results.ts';

export const COLLECTION_URI = 'svc://collections/{collection}';
/** Items a collection's resource shows. */
const SAMPLE_ROWS = 10;

function uriOf(collection: string): string {
  return `svc://collections/${encodeURIComponent(collection)}`;
}

async function readCollectionResource(call: McpCall, uri: URL, name: string) {
  const { ctx } = call;
  const description = await describeSchema(call, { collection: name });
  const { query } = boundedQuery(ctx.config, { limit: Math.min(SAMPLE_ROWS, ctx.config.mcp.maxRows) });
  const text = ctx.schema.collections[name]?.singleton ? await readSingleton(ctx, name, query) : await readItems(ctx, name, query);
  const { data } = JSON.parse(text) as { data: unknown };
  const body = { ...description.collections[0], relations: description.relations, items: data };
  return { contents: [{ uri: uri.href, mimeType: 'application/json', text: jsonText(body, ctx.config.mcp.maxResultBytes) }] };
}

export function registerCollectionResources(server: McpServer, call: McpCall): void {
  const config = call.ctx.config;
  const template = new ResourceTemplate(COLLECTION_URI, {
    list: () => asProtocol(config, async () => ({
      resources: (await readableCollections(call, false)).map((c) => ({
        uri: uriOf(c.name),
        name: c.name,
        title: c.name,
        mimeType: 'application/json',
        description: typeof c.meta?.note === 'string' && c.meta.note ? c.meta.note : `The ${c.name} collection: its fields, relations and first items.`,
      })),
    })),
  });
  server.registerResource('collection', template, {
    title: 'Collection',
    description: 'A collection of content: its fields, relations and first items.',
    mimeType: 'application/json',
  }, (uri, variables) => asProtocol(config, () => readCollectionResource(call, uri, decodeURIComponent(String(variables.collection)))));
}
