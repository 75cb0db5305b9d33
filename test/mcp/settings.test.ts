/** The MCP server's settings: off by default (403 FORBIDDEN, as Directus answers), turned on through the admin API
 * (a record of svc_extension_settings with extension_key `system_mcp_settings`) or MCP_ENABLED; the system prompt
 * given to agents; prompts from a collection; the collections as resources. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ARTICLE, all, connect, installModel, ok, principal, q, rpc, startMcpApp, type McpApp } from './setup.ts';

let t: McpApp;
const clients: Client[] = [];
const INITIALIZE = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function client(token: string): Promise<Client> {
  const c = await connect(t, token);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  t = await startMcpApp({ env: { MCP_ENABLED: 'false' } });
  await installModel(t);
  await principal(t, 'editor-token', [...all('articles', ['read']), ...all('prompts', ['read'])], ['versioning:view']);
  await principal(t, 'plain-token', all('articles', ['read']));
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await t?.close();
});

describe('turning the server on and off', () => {
  it('is off by default: every method of /mcp answers 403 FORBIDDEN, whoever asks', async () => {
    const res = await rpc(t, INITIALIZE, { token: ADMIN_TOKEN });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ errors: [{ message: expect.stringMatching(/MCP server is turned off/), extensions: { code: 'FORBIDDEN' } }] });
    expect((await rpc(t, INITIALIZE, { token: null })).status).toBe(403);
    expect((await fetch(`${t.url}/mcp`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(403);
    await expect(connect(t, ADMIN_TOKEN)).rejects.toMatchObject({ code: 403 });
    const shown = await t.req('GET', '/system/mcp-settings');
    expect(shown.body).toEqual({ data: { enabled: false, allow_deletes: false, drafts_only: true, system_prompt: null, prompts_collection: null, enabled_by_env: false } });
  });

  it('the admin API turns it on (a record of svc_extension_settings) and off again; others may not', async () => {
    expect((await t.req('PATCH', '/system/mcp-settings', { enabled: true }, { token: 'editor-token' })).status).toBe(403);
    expect((await t.req('GET', '/system/mcp-settings', undefined, { token: 'editor-token' })).status).toBe(403);
    expect((await t.req('GET', '/system/mcp-settings', undefined, { token: null })).status).toBe(403);
    const on = await t.req('PATCH', '/system/mcp-settings', { enabled: true });
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ enabled: true, drafts_only: true, enabled_by_env: false });
    const records = await t.req('GET', '/extension-settings?extension_key=system_mcp_settings');
    expect(records.body.data).toEqual([{ id: expect.any(Number), extension_key: 'system_mcp_settings', name: 'mcp', value: expect.objectContaining({ enabled: true }) }]);
    const editor = await client('editor-token');
    expect((await ok(editor, 'read_items', { collection: 'articles', fields: ['id'], filter: { id: { _eq: ARTICLE } } })).data).toEqual([{ id: ARTICLE }]);
    // A partial change keeps the other settings; off again refuses the next request of an open client.
    await t.req('PATCH', '/system/mcp-settings', { allow_deletes: true });
    expect((await t.req('GET', '/system/mcp-settings')).body.data).toMatchObject({ enabled: true, allow_deletes: true });
    await t.req('PATCH', '/system/mcp-settings', { enabled: false, allow_deletes: false });
    await expect(editor.listTools()).rejects.toMatchObject({ code: 403 });
    expect(await q(t, "select count(*)::int as n from svc_extension_settings where extension_key = 'system_mcp_settings'")).toEqual([{ n: 1 }]);
  });

  it('refuses settings it does not know, of the wrong type, or naming no collection (nothing is changed)', async () => {
    const before = (await t.req('GET', '/system/mcp-settings')).body;
    for (const body of [
      { enabled: 'yes' }, { colour: 'red' }, { enabled_by_env: true }, { prompts_collection: 'nope' }, { prompts_collection: 'svc_users' }, { prompts_collection: 'notes' },
      { system_prompt: 42 }, { system_prompt: 'x'.repeat(20_001) }, [true], 'on',
    ]) {
      const res = await t.req('PATCH', '/system/mcp-settings', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
    expect((await t.req('GET', '/system/mcp-settings')).body).toEqual(before);
  });

  it('MCP_ENABLED turns it on whatever the record says', async () => {
    const envApp = await startMcpApp({ env: { MCP_ENABLED: 'true' }, database: t.database.url ? t.database : undefined });
    try {
      await installModelIfFresh(envApp);
      expect((await envApp.req('GET', '/system/mcp-settings')).body.data).toMatchObject({ enabled_by_env: true });
      const admin = await connect(envApp, ADMIN_TOKEN);
      expect((await admin.listTools()).tools.length).toBeGreaterThan(10);
      await admin.close();
    } finally {
      await envApp.close();
    }
    // This app (MCP_ENABLED=false, record off) still refuses.
    expect((await rpc(t, INITIALIZE, { token: ADMIN_TOKEN })).status).toBe(403);
  });
});

/** With a Postgres server the second app shares this database (its record says off); with PGlite it has its own copy. */
async function installModelIfFresh(app: McpApp): Promise<void> {
  if (!t.database.url) await installModel(app);
}

describe('what agents are told and offered', () => {
  beforeAll(async () => {
    await t.req('PATCH', '/system/mcp-settings', { enabled: true });
  });

  it('the system prompt is the initialize instructions and the system_prompt tool\'s answer', async () => {
    const res = await t.req('PATCH', '/system/mcp-settings', { system_prompt: 'You write for the Engine Gazette. Keep headlines short.' });
    expect(res.body.data.system_prompt).toBe('You write for the Engine Gazette. Keep headlines short.');
    const editor = await client('editor-token');
    expect(editor.getInstructions()).toBe('You write for the Engine Gazette. Keep headlines short.');
    expect(await ok(editor, 'system_prompt')).toEqual({ prompt: 'You write for the Engine Gazette. Keep headlines short.' });
    await t.req('PATCH', '/system/mcp-settings', { system_prompt: null });
    expect((await client('editor-token')).getInstructions()).toMatch(/drafts/);
  });

  it('prompts come from the configured collection, read with the caller\'s permissions', async () => {
    const before = await client('editor-token');
    expect(before.getServerCapabilities()?.prompts).toBeUndefined();
    await expect(before.listPrompts()).rejects.toThrow();
    await t.req('PATCH', '/system/mcp-settings', { prompts_collection: 'prompts' });
    const editor = await client('editor-token');
    const { prompts } = await editor.listPrompts();
    expect(prompts).toEqual([{
      name: 'summarise', description: 'Summarise an article',
      arguments: ['publication', 'id', 'words'].map((name) => ({ name, description: `Value for ${name}`, required: false })),
    }]);
    const prompt = await editor.getPrompt({ name: 'summarise', arguments: { publication: 'the Gazette', id: ARTICLE, words: '50' } });
    expect(prompt.messages).toEqual([
      { role: 'assistant', content: { type: 'text', text: 'You are an editor of the Gazette.' } },
      { role: 'user', content: { type: 'text', text: `Summarise the article ${ARTICLE} in 50 words.` } },
    ]);
    await expect(editor.getPrompt({ name: 'nope' })).rejects.toThrow(/no prompt "nope"/);
    // A user who may not read the prompts collection is refused its prompts, as REST refuses the items.
    const plain = await client('plain-token');
    await expect(plain.listPrompts()).rejects.toThrow(/permission/);
    await t.req('PATCH', '/system/mcp-settings', { prompts_collection: null });
  });

  it('the collections are resources: listed as the caller may read them, each with its fields and first items', async () => {
    const editor = await client('editor-token');
    const { resources } = await editor.listResources();
    expect(resources).toEqual([
      { uri: 'svc://collections/articles', name: 'articles', title: 'articles', mimeType: 'application/json', description: 'News and features' },
      { uri: 'svc://collections/prompts', name: 'prompts', title: 'prompts', mimeType: 'application/json', description: expect.stringMatching(/^The prompts collection/) },
    ]);
    const { resourceTemplates } = await editor.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'svc://collections/{collection}', name: 'collection' })]);
    const read = await editor.readResource({ uri: 'svc://collections/articles' });
    const body = JSON.parse((read.contents[0] as { text: string }).text);
    expect(body).toMatchObject({ collection: 'articles', note: 'News and features', fields: expect.arrayContaining([expect.objectContaining({ field: 'title', required: true })]) });
    expect(body.items.map((i: any) => i.id).sort()).toEqual([ARTICLE, 'aaaaaaaa-0000-4000-8000-000000000002']);
    await expect(editor.readResource({ uri: 'svc://collections/authors' })).rejects.toThrow(/permission/);
  });
});
