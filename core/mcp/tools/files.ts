/** Files: list_files and read_file (metadata only; the bytes are at /assets/{id}) and import_file (fetch a URL into
 * the file library), through the files services with the caller's permissions on svc_files, as GET /files,
 * GET /files/{id} and POST /files/import. Files are not versioned: an import is a live write, under create
 * permission on svc_files, whatever drafts_only says. */
import { z } from 'zod';
import { importFile } from '../../files/import.ts';
import { fileRecords, listFiles, readFile } from '../../files/read.ts';
import { loweredNotice } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { FIELDS, QUERY_SHAPE, queryOfArgs, withNotice } from './query-input.ts';

const FILE_ID = z.string().uuid().describe('The file id.');

export const listFilesTool = defineTool({
  name: 'list_files',
  title: 'List files',
  description: 'Files of the library (metadata: title, type, size, dimensions, folder, tags...) with the query language. '
    + 'A file\'s bytes are served at /assets/{id}.',
  input: {
    fields: FIELDS, filter: QUERY_SHAPE.filter, sort: QUERY_SHAPE.sort, search: QUERY_SHAPE.search,
    limit: QUERY_SHAPE.limit, offset: QUERY_SHAPE.offset, page: QUERY_SHAPE.page, meta: QUERY_SHAPE.meta,
  },
  annotations: READ_ONLY,
  async run(call, args) {
    const { query, lowered } = queryOfArgs(call.ctx.config, args);
    return withNotice(await listFiles(call.ctx, { query }), loweredNotice(call.ctx.config, lowered));
  },
});

export const readFileTool = defineTool({
  name: 'read_file',
  title: 'Read a file\'s metadata',
  description: 'The metadata of one file (not its bytes).',
  input: { id: FILE_ID, fields: FIELDS },
  annotations: READ_ONLY,
  async run(call, args) {
    const { query } = queryOfArgs(call.ctx.config, { fields: args.fields });
    return readFile(call.ctx, args.id, { query });
  },
});

export const importFileTool = defineTool({
  name: 'import_file',
  title: 'Import a file from a URL',
  description: 'Fetches a public URL into the file library (the server refuses private and local addresses) and answers '
    + 'the new file\'s metadata; use its id in a file or image field.',
  input: {
    url: z.string().url().max(2048).describe('An http(s) URL.'),
    title: z.string().max(255).optional(),
    description: z.string().max(10_000).optional(),
    folder: z.string().uuid().optional().describe('A folder id.'),
    tags: z.array(z.string().max(255)).max(100).optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(call, args) {
    const { ctx, services } = call;
    const providers = await services.storage.providers(ctx.schema.version);
    const data: Record<string, unknown> = {};
    for (const k of ['title', 'description', 'folder', 'tags'] as const) if (args[k] !== undefined) data[k] = args[k];
    const id = await importFile(ctx, providers, args.url, data);
    const text = await fileRecords(ctx, id, { query: {} });
    return text === null ? { data: { id } } : `{"data":${text}}`;
  },
});
