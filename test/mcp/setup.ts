/** Shared setup of the MCP tests: the test app on a real listening HTTP server (as `npm start` serves it), the SDK's
 * own Client over its Streamable HTTP transport, a small content model, and principals made through SQL like the other
 * suites' (test/helpers/principals.ts) with the app permissions the versions and workflow modules read. */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import type { AppPermission } from '../../core/access/app-permissions.ts';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp, type TestAppOptions, type TestDatabase } from '../helpers/app.ts';
import { createPrincipal, type PermissionSpec } from '../helpers/principals.ts';

export { ADMIN_TOKEN } from '../helpers/template.ts';

export interface McpApp extends TestApp {
  database: TestDatabase;
  /** http://127.0.0.1:<port> */
  url: string;
  server: Server;
}

/** The app on an ephemeral port; MCP on (MCP_ENABLED) unless `env` says otherwise. */
export async function startMcpApp(opts: TestAppOptions = {}): Promise<McpApp> {
  const t = await createTestApp({ ...opts, env: { MCP_ENABLED: 'true', ...opts.env } });
  const server = serve({ fetch: t.app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    ...t,
    url: `http://127.0.0.1:${port}`,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}

/** A connected SDK client (the initialize handshake done) with `token` as its bearer credential. */
export async function connect(t: McpApp, token: string | null): Promise<Client> {
  const client = new Client({ name: 'svc-tests', version: '1.0.0' });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers } }));
  return client;
}

export interface ToolAnswer { isError: boolean; text: string; json: any }

/** A tool call's answer: its text content, parsed when it is JSON. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const res = await client.callTool({ name, arguments: args });
  const content = res.content as { type: string; text: string }[];
  const text = content.map((c) => c.text).join('');
  let json: unknown = null;
  try { json = JSON.parse(text); } catch { /* not JSON: the SDK's own messages */ }
  return { isError: res.isError === true, text, json };
}

/** A successful tool answer (the test fails with the error text otherwise). */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const res = await call(client, name, args);
  expect(res.isError, `${name}: ${res.text}`).toBe(false);
  return res.json;
}

/** The error code of a tool error in the REST envelope. */
export function errorCode(res: ToolAnswer): string | undefined {
  return res.json?.errors?.[0]?.extensions?.code;
}

/** A raw JSON-RPC POST to /mcp (what a client that is not the SDK sends). */
export async function rpc(t: McpApp, body: unknown, opts: { token?: string | null; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...opts.headers,
  };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* keep the text */ }
  return { status: res.status, headers: res.headers, body: parsed };
}

export const ARTICLE = 'aaaaaaaa-0000-4000-8000-000000000001';
export const HIDDEN_ARTICLE = 'aaaaaaaa-0000-4000-8000-000000000002';

/** articles (uuid keys, a status with choices, notes, M2O author), authors, notes (auto-increment keys, no status),
 * events (auto-increment keys and a status), tags (string keys), secrets (what limited users must never see), and
 * prompts (the prompts collection). */
const MODEL = `
create table authors (id serial primary key, name varchar(255) not null);
create table articles (id uuid primary key, title varchar(255) not null, body text, status varchar(32) default 'draft',
  category varchar(32), author integer references authors(id) on delete set null);
create table notes (id serial primary key, text text);
create table tags (id varchar(64) primary key, label varchar(255));
create table secrets (id serial primary key, code varchar(255), article uuid references articles(id));
create table events (id serial primary key, title varchar(255), status varchar(32) default 'published');
create table prompts (id serial primary key, name varchar(255), description text, system_prompt text, messages json);
insert into svc_collections (collection, singleton, accountability, note) values
  ('authors', false, 'all', 'People who write articles'), ('articles', false, 'all', 'News and features'),
  ('notes', false, 'all', null), ('tags', false, 'all', null), ('secrets', false, 'all', 'Launch codes'),
  ('events', false, 'all', null), ('prompts', false, 'all', null);
insert into svc_fields (collection, field, note, required, options, special) values
  ('articles', 'title', 'The headline, at most 80 characters', true, null, null),
  ('articles', 'status', 'Publication state', false, '{"choices": [{"text": "Draft", "value": "draft"}, {"text": "Published", "value": "published"}]}', null),
  ('authors', 'articles', null, false, null, 'o2m'),
  ('articles', 'launch_codes', null, false, null, 'o2m');
insert into svc_relations (many_collection, many_field, one_collection, one_field) values
  ('articles', 'author', 'authors', 'articles'),
  ('secrets', 'article', 'articles', 'launch_codes');
insert into authors (name) values ('Ada'), ('Brian');
insert into articles (id, title, body, status, category, author) values
  ('${ARTICLE}', 'Engines of the future', 'Babbage and the analytical engine', 'published', 'news', 1),
  ('${HIDDEN_ARTICLE}', 'Internal memo', 'Not for everyone', 'draft', 'internal', 2);
insert into tags (id, label) values ('news', 'News');
insert into secrets (code, article) values ('zebra-engine-42', '${ARTICLE}');
insert into prompts (name, description, system_prompt, messages) values
  ('summarise', 'Summarise an article', 'You are an editor of {{publication}}.',
   '[{"role": "user", "text": "Summarise the article {{id}} in {{words}} words."}]');
`;

export async function installModel(t: TestApp): Promise<void> {
  await run(t.services.database.db, MODEL);
  await t.services.schema.invalidate();
}

export const q = <R = any>(t: TestApp, sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);

/** A signed-in user (static token) with item permissions and app permissions; `app` access by default. */
export async function principal(t: TestApp, token: string, permissions: PermissionSpec[], app: AppPermission[] = [], opts: { appAccess?: boolean } = {}) {
  const p = await createPrincipal(t.services, { token, permissions, appAccess: opts.appAccess ?? true });
  for (const perm of app) {
    const [module, action] = perm.split(':');
    await q(t, 'insert into svc_app_permissions (policy, module, action) values ($1, $2, $3)', [p.policy, module, action]);
  }
  await t.services.schema.invalidate();
  return p;
}

export const all = (collection: string, actions: PermissionSpec['action'][], extra: Partial<PermissionSpec> = {}): PermissionSpec[] =>
  actions.map((action) => ({ collection, action, ...extra }));

/** An active review workflow on articles: start -> one approval by `reviewerRole` (any) -> end. */
export async function reviewWorkflow(t: TestApp, reviewerRole: string, triggerFilter?: Record<string, unknown>): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const res = await t.req('POST', path, body);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };
  const wf = await post('/workflows', { name: `Review ${randomUUID().slice(0, 6)}`, collection: 'articles', ...(triggerFilter ? { trigger_filter: triggerFilter } : {}) });
  const start = await post(`/workflows/${wf.id}/steps`, { key: 'start', name: 'Start', type: 'start', sort_order: 0 });
  const review = await post(`/workflows/${wf.id}/steps`, {
    key: 'review', name: 'Editorial review', type: 'approval', assign_type: 'role', assign_value: reviewerRole, approval_mode: 'any', sort_order: 1,
  });
  const end = await post(`/workflows/${wf.id}/steps`, { key: 'end', name: 'Publish', type: 'end', sort_order: 2 });
  await post(`/workflows/${wf.id}/transitions`, { from_step_id: start.id, to_step_id: review.id, trigger: 'always' });
  await post(`/workflows/${wf.id}/transitions`, { from_step_id: review.id, to_step_id: end.id, trigger: 'approve' });
  await post(`/workflows/${wf.id}/activate`, undefined);
  return wf.id as string;
}
