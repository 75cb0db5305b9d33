/** The MCP server through the SDK's own client on a listening server: the handshake, the tools and their schemas, the
 * schema description, reads with the query language under the row and size limits, files, notifications, and
 * malformed calls answered with MCP errors (tool errors for a tool's arguments, JSON-RPC errors for the protocol,
 * HTTP statuses for the transport). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN, ARTICLE, all, call, connect, errorCode, installModel, ok, principal, q, rpc, startMcpApp, type McpApp,
} from './setup.ts';

const MAX_ROWS = 3;
let t: McpApp;
let admin: Client;
let editor: Client;
let editorId: string;
let files: Server;
let filesUrl: string;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000'
  + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

beforeAll(async () => {
  t = await startMcpApp({ env: { MCP_MAX_ROWS: String(MAX_ROWS), MCP_MAX_RESULT_SIZE: '16kb', FILES_IMPORT_IP_ALLOW_LIST: '127.0.0.1/32' } });
  await installModel(t);
  // Five more articles by Ada, so lists and nested relations have more rows than a call may read.
  for (let i = 0; i < 5; i++) {
    await q(t, "insert into articles (id, title, status, category, author) values (gen_random_uuid(), $1, 'published', 'feature', 1)", [`Feature ${i}`]);
  }
  ({ user: editorId } = await principal(t, 'editor-token', [
    ...all('articles', ['create', 'read', 'update']), ...all('authors', ['read']), ...all('notes', ['create', 'read', 'update']),
    ...all('svc_files', ['create', 'read']),
  ], ['versioning:create', 'versioning:view']));
  files = createServer((req, res) => {
    if (req.url === '/pixel.png') { res.writeHead(200, { 'content-type': 'image/png' }); res.end(PNG); return; }
    res.writeHead(404); res.end();
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  admin = await connect(t, ADMIN_TOKEN);
  editor = await connect(t, 'editor-token');
});

afterAll(async () => {
  await admin?.close();
  await editor?.close();
  await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
  await t?.close();
});

const TOOLS = [
  'system_prompt', 'describe_schema', 'read_items', 'read_item', 'search_items', 'create_item', 'update_item', 'list_versions',
  'promote_version', 'delete_item', 'list_files', 'read_file', 'import_file', 'list_my_tasks', 'comment_on_task', 'send_notification',
];

describe('handshake and tools', () => {
  it('initializes with the server\'s name and instructions, and lists every tool with a strict JSON schema', async () => {
    expect(editor.getServerVersion()).toMatchObject({ name: 'svc' });
    expect(editor.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    expect(editor.getInstructions()).toMatch(/drafts/);
    const { tools } = await editor.listTools();
    expect(tools.map((x) => x.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties, tool.name).toBe(false);
    }
    const byName = new Map(tools.map((x) => [x.name, x]));
    expect(byName.get('read_items')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('delete_item')!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('read_items')!.inputSchema.required).toEqual(['collection']);
    expect(Object.keys(byName.get('read_items')!.inputSchema.properties!)).toEqual(expect.arrayContaining(['filter', 'sort', 'deep', 'aggregate', 'groupBy', 'search']));
  });

  it('system_prompt answers the built-in instructions while none is configured', async () => {
    const { prompt } = await ok(editor, 'system_prompt');
    expect(prompt).toBe(editor.getInstructions());
    expect(prompt).toMatch(new RegExp(`at most ${MAX_ROWS} rows`));
  });
});

describe('describe_schema', () => {
  it('describes one collection: fields with types, notes, required, choices and relations', async () => {
    const { collections, relations } = await ok(editor, 'describe_schema', { collection: 'articles' });
    expect(collections).toHaveLength(1);
    const articles = collections[0];
    expect(articles).toMatchObject({ collection: 'articles', note: 'News and features' });
    const field = (name: string) => articles.fields.find((f: any) => f.field === name);
    expect(field('id')).toMatchObject({ type: 'uuid', primary_key: true });
    expect(field('title')).toMatchObject({ type: 'string', note: 'The headline, at most 80 characters', required: true, nullable: false, max_length: 255 });
    expect(field('status')).toMatchObject({ type: 'string', choices: ['draft', 'published'], default: 'draft' });
    expect(field('author')).toMatchObject({ type: 'integer', relation: { kind: 'm2o', collection: 'authors' } });
    expect(relations).toContainEqual({ collection: 'articles', field: 'author', related_collection: 'authors', one_field: 'articles' });
  });

  it('describes every collection the caller may read, and no other; system collections only when asked (admin)', async () => {
    const mine = await ok(editor, 'describe_schema');
    expect(mine.collections.map((c: any) => c.collection).sort()).toEqual(['articles', 'authors', 'notes']);
    const authors = mine.collections.find((c: any) => c.collection === 'authors');
    expect(authors.fields.find((f: any) => f.field === 'articles')).toMatchObject({ type: 'alias', relation: { kind: 'o2m', collection: 'articles', field: 'author' } });
    const everything = await ok(admin, 'describe_schema');
    expect(everything.collections.map((c: any) => c.collection)).toEqual(expect.arrayContaining(['articles', 'secrets', 'prompts', 'tags']));
    expect(everything.collections.some((c: any) => c.collection.startsWith('svc_'))).toBe(false);
    // With the system collections the description is larger than this server lets one call answer (16kb here).
    const system = await call(admin, 'describe_schema', { include_system: true });
    expect(errorCode(system)).toBe('CONTENT_TOO_LARGE');
  });

  it('answers an unknown collection as REST does', async () => {
    const res = await call(admin, 'describe_schema', { collection: 'nope' });
    expect(res.isError).toBe(true);
    expect(errorCode(res)).toBe('COLLECTION_NOT_FOUND');
  });
});

describe('reading', () => {
  it('read_items takes the query language: filter, sort, fields through relations, meta, aggregate', async () => {
    const res = await ok(editor, 'read_items', {
      collection: 'articles', filter: { author: { name: { _eq: 'Ada' } }, category: { _eq: 'news' } }, fields: ['title', 'author.name'], sort: ['-title'], meta: ['filter_count'],
    });
    expect(res).toEqual({ data: [{ title: 'Engines of the future', author: { name: 'Ada' } }], meta: { filter_count: 1 } });
    const grouped = await ok(editor, 'read_items', { collection: 'articles', aggregate: { count: ['*'] }, groupBy: ['category'], sort: ['category'] });
    expect(grouped.data).toEqual([{ category: 'feature', count: 5 }, { category: 'internal', count: 1 }, { category: 'news', count: 1 }]);
  });

  it('reads at most MCP_MAX_ROWS rows a call, and says so when it lowered the limit', async () => {
    const asked = await ok(editor, 'read_items', { collection: 'articles', fields: ['id'], limit: 50 });
    expect(asked.data).toHaveLength(MAX_ROWS);
    expect(asked.notice).toMatch(/limit 50 was lowered to 3/);
    const everything = await ok(editor, 'read_items', { collection: 'articles', fields: ['id'], limit: -1 });
    expect(everything.data).toHaveLength(MAX_ROWS);
    const fewer = await ok(editor, 'read_items', { collection: 'articles', fields: ['id'], limit: 2 });
    expect(fewer.data).toHaveLength(2);
    expect(fewer.notice).toBeUndefined();
    const paged = await ok(editor, 'read_items', { collection: 'articles', fields: ['id'], sort: ['title'], limit: 3, offset: 3 });
    expect(paged.data).toHaveLength(3);
    // Nested relations too: without deep, and with a deep _limit above the bound.
    const nested = await ok(editor, 'read_items', { collection: 'authors', fields: ['name', 'articles.id'], filter: { id: { _eq: 1 } } });
    expect(nested.data[0].articles).toHaveLength(MAX_ROWS);
    const deep = await ok(editor, 'read_items', { collection: 'authors', fields: ['name', 'articles.id'], filter: { id: { _eq: 1 } }, deep: { articles: { _limit: 100 } } });
    expect(deep.data[0].articles).toHaveLength(MAX_ROWS);
    // REST, with the same token, is not bound by it: the bound is MCP's.
    const rest = await t.req('GET', '/items/articles?fields=id&limit=-1', undefined, { token: 'editor-token' });
    expect(rest.body.data.length).toBeGreaterThan(MAX_ROWS);
  });

  it('read_item answers one item with one level of its relations; a missing key is FORBIDDEN', async () => {
    const { data } = await ok(editor, 'read_item', { collection: 'articles', key: ARTICLE });
    expect(data).toMatchObject({ id: ARTICLE, title: 'Engines of the future', author: { id: 1, name: 'Ada' } });
    // launch_codes leads to secrets, which the editor may not read: left out, not a refusal of the whole read.
    expect(data.launch_codes).toBeUndefined();
    const asAdmin = await ok(admin, 'read_item', { collection: 'articles', key: ARTICLE });
    expect(asAdmin.data.launch_codes).toEqual([expect.objectContaining({ code: 'zebra-engine-42' })]);
    const chosen = await ok(editor, 'read_item', { collection: 'articles', key: ARTICLE, fields: ['title'] });
    expect(chosen).toEqual({ data: { title: 'Engines of the future' } });
    const missing = await call(editor, 'read_item', { collection: 'articles', key: 'aaaaaaaa-0000-4000-8000-00000000ffff' });
    expect(missing.isError).toBe(true);
    expect(errorCode(missing)).toBe('FORBIDDEN');
  });

  it('search_items searches every readable collection, or the ones named', async () => {
    const found = await ok(editor, 'search_items', { search: 'engine' });
    expect(found.data).toEqual([{ collection: 'articles', data: [expect.objectContaining({ id: ARTICLE })] }]);
    const authors = await ok(editor, 'search_items', { search: 'ada', collections: ['authors'], fields: ['name'] });
    expect(authors.data).toEqual([{ collection: 'authors', data: [{ name: 'Ada' }] }]);
    const capped = await ok(editor, 'search_items', { search: 'feature', limit: 50 });
    expect(capped.data[0].data).toHaveLength(MAX_ROWS);
    expect(capped.notice).toMatch(/stopped after 3 rows .* 2 collections not searched/);
    expect(capped.searched).toBe(1);
  });

  it('answers over MCP_MAX_RESULT_SIZE with a tool error that says what to change', async () => {
    await q(t, "insert into notes (text) values (repeat('x', 20000))");
    const res = await call(editor, 'read_items', { collection: 'notes' });
    expect(res.isError).toBe(true);
    expect(errorCode(res)).toBe('CONTENT_TOO_LARGE');
    expect(res.json.errors[0].message).toMatch(/fewer rows .* or fewer fields/);
    const narrower = await ok(editor, 'read_items', { collection: 'notes', fields: ['id'] });
    expect(narrower.data.length).toBeGreaterThan(0);
  });

  it('service errors come back as tool errors in the REST envelope', async () => {
    const unknown = await call(editor, 'read_items', { collection: 'nope' });
    expect(unknown).toMatchObject({ isError: true, json: { errors: [{ extensions: { code: 'COLLECTION_NOT_FOUND' } }] } });
    const badOperator = await call(editor, 'read_items', { collection: 'articles', filter: { title: { _like: 'x' } } });
    expect(badOperator.isError).toBe(true);
    expect(errorCode(badOperator)).toBe('INVALID_QUERY');
    const badField = await call(editor, 'read_items', { collection: 'articles', fields: ['nope'] });
    expect(badField.isError).toBe(true);
    expect(badField.json.errors[0].message).toBeTruthy();
  });
});

describe('files and notifications', () => {
  it('imports a file from a URL, then lists and reads its metadata', async () => {
    const imported = await ok(editor, 'import_file', { url: `${filesUrl}/pixel.png`, title: 'A pixel', tags: ['tiny'] });
    expect(imported.data).toMatchObject({ title: 'A pixel', type: 'image/png', width: 1, height: 1, tags: ['tiny'] });
    const id = imported.data.id;
    const listed = await ok(editor, 'list_files', { filter: { title: { _eq: 'A pixel' } }, fields: ['id', 'filesize'] });
    expect(listed.data).toEqual([{ id, filesize: String(PNG.length) }]);
    const one = await ok(editor, 'read_file', { id, fields: ['filename_download'] });
    expect(one).toEqual({ data: { filename_download: 'pixel.png' } });
    const refused = await call(editor, 'import_file', { url: 'http://10.0.0.1/x.png' });
    expect(refused.isError).toBe(true);
    expect(errorCode(refused)).toBe('INVALID_PAYLOAD');
  });

  it('sends a notification template (admins, or create on svc_notify_logs)', async () => {
    const provider = await t.req('POST', '/notify/providers', { name: 'inbox', channel: 'inapp', type: null, config: {}, is_primary: true, enabled: true });
    expect(provider.status, JSON.stringify(provider.body)).toBe(200);
    const providerId = typeof provider.body.data === 'object' ? provider.body.data.id : provider.body.data;
    expect((await t.req('POST', '/notify/templates', { id: 'draft-ready', name: 'Draft ready', status: 'published', channels: ['inapp'] })).status).toBe(200);
    expect((await t.req('POST', '/notify/templates/draft-ready/contents', { provider_id: providerId, subject: 'Draft {{title}}', content: 'Please review {{title}}', active: true })).status).toBe(200);
    const sent = await ok(admin, 'send_notification', { template_id: 'draft-ready', recipients: [editorId], variables: { title: 'Engines' } });
    expect(sent.data.log_ids).toHaveLength(1);
    expect(await q(t, 'select subject, message from svc_notifications where recipient = $1', [editorId])).toEqual([{ subject: 'Draft Engines', message: 'Please review Engines' }]);
    const refused = await call(editor, 'send_notification', { template_id: 'draft-ready', recipients: [editorId] });
    expect(refused.isError).toBe(true);
    expect(errorCode(refused)).toBe('FORBIDDEN');
  });
});

describe('malformed calls', () => {
  it('arguments that fail a tool\'s schema are refused before the tool runs', async () => {
    const wrongType = await call(editor, 'read_items', { collection: 'articles', limit: 'ten' });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.text).toMatch(/Input validation error.*limit/);
    const missing = await call(editor, 'read_item', { collection: 'articles' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/Input validation error.*key/);
    const unknownArgument = await call(editor, 'read_items', { collection: 'articles', colour: 'red' });
    expect(unknownArgument.isError).toBe(true);
    expect(unknownArgument.text).toMatch(/Input validation error.*colour/);
    const notUuid = await call(editor, 'promote_version', { version: 'nope' });
    expect(notUuid.isError).toBe(true);
    expect(notUuid.text).toMatch(/Input validation error/);
    const unknownTool = await call(editor, 'drop_database', {});
    expect(unknownTool.isError).toBe(true);
    expect(unknownTool.text).toMatch(/Tool drop_database not found/);
    // Nothing was written by any of them.
    expect(await q(t, 'select count(*)::int as n from svc_versions')).toEqual([{ n: 0 }]);
  });

  it('arguments with more values than MAX_TOOL_INPUT_ELEMENTS are refused', async () => {
    const res = await call(editor, 'read_items', { collection: 'articles', fields: Array.from({ length: 10_001 }, () => 'id') });
    expect(res.isError).toBe(true);
    expect(res.text).toMatch(/more than the maximum of 10000 elements/);
  });

  it('protocol errors are JSON-RPC errors: unknown method, invalid params (-32602, alone and in a batch), invalid JSON, oversized body', async () => {
    const unknownMethod = await rpc(t, { jsonrpc: '2.0', id: 1, method: 'tools/destroy', params: {} }, { token: 'editor-token' });
    expect(unknownMethod.status).toBe(200);
    expect(unknownMethod.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32601 } });
    // A request whose params break the protocol's own schema: invalid params, naming the path.
    const noName = await rpc(t, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { arguments: {} } }, { token: 'editor-token' });
    expect(noName.status).toBe(200);
    expect(noName.body).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params: params.name: Invalid input: expected string, received undefined' } });
    const badUri = await rpc(t, { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 42 } }, { token: 'editor-token' });
    expect(badUri.body).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringMatching(/^Invalid params: params\.uri: /) } });
    // In a batch, the malformed call is refused and the good one answered.
    const mixed = await rpc(t, [
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 7 } },
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
    ], { token: 'editor-token' });
    expect(mixed.status).toBe(200);
    const byId = new Map((mixed.body as { id: number }[]).map((m) => [m.id, m]));
    expect(byId.get(6)).toMatchObject({ error: { code: -32602 } });
    expect(byId.get(7)).toMatchObject({ result: { tools: expect.any(Array) } });
    const badJson = await rpc(t, '{"jsonrpc": "2.0", "id": 3, "method": ', { token: 'editor-token' });
    expect(badJson.status).toBe(400);
    expect(badJson.body).toMatchObject({ error: { code: -32700 } });
    const notRpc = await rpc(t, { hello: 'world' }, { token: 'editor-token' });
    expect(notRpc.status).toBe(400);
    expect(notRpc.body).toMatchObject({ error: { code: -32700 } });
    const huge = await rpc(t, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'read_items', arguments: { collection: 'articles', search: 'x'.repeat(1_100_000) } } }, { token: 'editor-token' });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/Payload Too Large/) } });
    // A batch runs its calls at once: at most ten messages in one request.
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read_items', arguments: { collection: 'articles', fields: ['id'], limit: 1 } } });
    const batch = await rpc(t, Array.from({ length: 10 }, (_, i) => call(i + 10)), { token: 'editor-token' });
    expect(batch.status).toBe(200);
    expect(batch.body.map((m: any) => m.id).sort()).toEqual(Array.from({ length: 10 }, (_, i) => i + 10));
    const tooMany = await rpc(t, Array.from({ length: 11 }, (_, i) => call(i + 30)), { token: 'editor-token' });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/at most 10 messages/) } });
  });

  it('a request without the MCP Accept header is 406; GET and DELETE are 405 (stateless)', async () => {
    const plain = await rpc(t, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token: 'editor-token', headers: { accept: 'application/json' } });
    expect(plain.status).toBe(406);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${t.url}/mcp`, { method, headers: { authorization: 'Bearer editor-token', accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
  });
});
