/** Who may use the MCP server and what each caller reaches through it: the same credential and permissions as REST.
 * A reader without permission on `secrets` (and with a row filter on `articles`) reaches neither through any tool,
 * resource or version; the owner of a draft, another editor, a user without access, the public (no token) and a share
 * token each get what REST would give them. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/template.ts';
import {
  ADMIN_TOKEN, ARTICLE, HIDDEN_ARTICLE, all, call, connect, errorCode, installModel, ok, principal, q, rpc, startMcpApp, type McpApp,
} from './setup.ts';

let t: McpApp;
let reader: Client;
let editor: Client;
let other: Client;
let nobody: Client;
let readerRole: string;
let secretVersion: string;
const clients: Client[] = [];

const SECRET = 'zebra-engine';
const INITIALIZE = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

beforeAll(async () => {
  t = await startMcpApp();
  await installModel(t);
  ({ role: readerRole } = await principal(t, 'reader-token', [
    { collection: 'articles', action: 'read', permissions: { category: { _neq: 'internal' } } },
    { collection: 'authors', action: 'read' },
  ], ['versioning:view']));
  const editing = [...all('articles', ['create', 'read', 'update']), ...all('authors', ['read'])];
  await principal(t, 'editor-token', editing, ['versioning:create', 'versioning:view']);
  await principal(t, 'other-token', editing, ['versioning:create', 'versioning:view']);
  await principal(t, 'nobody-token', [], [], { appAccess: false });
  // A draft of the secret, by the admin: it must not surface through versions either.
  const v = await t.req('POST', '/versions', { key: 'rotate', name: 'Rotate', collection: 'secrets', item: '1', delta: { code: `${SECRET}-43` } });
  expect(v.status, JSON.stringify(v.body)).toBe(200);
  secretVersion = v.body.data;
  for (const [name, token] of [['reader', 'reader-token'], ['editor', 'editor-token'], ['other', 'other-token'], ['nobody', 'nobody-token']] as const) {
    const c = await connect(t, token);
    clients.push(c);
    if (name === 'reader') reader = c;
    if (name === 'editor') editor = c;
    if (name === 'other') other = c;
    if (name === 'nobody') nobody = c;
  }
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await t?.close();
});

type Case = [what: string, tool: string, args: Record<string, unknown>];

describe('a collection the caller may not read is out of reach of every tool', () => {
  /** Asked for by name: refused, as REST refuses it. */
  const refused: Case[] = [
    ['describe one collection', 'describe_schema', { collection: 'secrets' }],
    ['read its items', 'read_items', { collection: 'secrets' }],
    ['aggregate it', 'read_items', { collection: 'secrets', aggregate: { count: ['*'] } }],
    ['read through a relation', 'read_items', { collection: 'articles', fields: ['id', 'launch_codes.code'] }],
    ['filter through a relation', 'read_items', { collection: 'articles', filter: { launch_codes: { code: { _starts_with: 'zebra' } } } }],
    ['read one item', 'read_item', { collection: 'secrets', key: 1 }],
    ['read one item through a relation', 'read_item', { collection: 'articles', key: ARTICLE, fields: ['launch_codes.*'] }],
    ['read a draft of it', 'read_item', { collection: 'secrets', key: 1, version: '00000000-0000-4000-8000-000000000000' }],
    ['search it by name', 'search_items', { search: 'zebra', collections: ['secrets'] }],
    ['draft a new item', 'create_item', { collection: 'secrets', data: { code: 'x' } }],
    ['draft a change', 'update_item', { collection: 'secrets', key: 1, data: { code: 'x' } }],
  ];
  it.each(refused)('%s: FORBIDDEN (%s)', async (_what, tool, args) => {
    const res = await call(reader, tool, tool === 'read_item' && args.version ? { ...args, version: secretVersion } : args);
    expect(res.isError, res.text).toBe(true);
    expect(errorCode(res)).toBe('FORBIDDEN');
    expect(res.text).not.toContain(SECRET);
  });

  /** Not asked for by name: answered without it. The last column is what the admin's answer to the same call shows
   * of it (null: too large to answer at the default MCP_MAX_RESULT_SIZE), so each check can fail. */
  const absent: [...Case, RegExp | null][] = [
    ['describe the schema', 'describe_schema', {}, /"collection":"secrets"/],
    ['describe the schema with system collections', 'describe_schema', { include_system: true }, /"collection":"secrets"/],
    ['describe the collection that points at it', 'describe_schema', { collection: 'articles' }, /"kind":"o2m","collection":"secrets"/],
    ['read the item that points at it', 'read_item', { collection: 'articles', key: ARTICLE }, /zebra-engine-42/],
    ['read every field', 'read_items', { collection: 'articles', fields: ['*'] }, /"launch_codes":\[1\]/],
    ['search everything', 'search_items', { search: 'zebra' }, /"collection":"secrets"/],
    ['list drafts', 'list_versions', {}, /zebra-engine-43/],
    ['list drafts of it', 'list_versions', { collection: 'secrets' }, /zebra-engine-43/],
  ];
  it.each(absent)('%s: answered without it (%s)', async (_what, tool, args, adminSees) => {
    const res = await call(reader, tool, args);
    expect(res.isError, res.text).toBe(false);
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toContain('secrets');
    expect(res.text).not.toContain('Launch codes');
    expect(res.text).not.toMatch(/"launch_codes":\[/);
    if (adminSees) expect((await call(await adminClient(), tool, args)).text).toMatch(adminSees);
  });

  it('resources: not listed, and its resource refused', async () => {
    const { resources } = await reader.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['svc://collections/articles', 'svc://collections/authors']);
    await expect(reader.readResource({ uri: 'svc://collections/secrets' })).rejects.toThrow(/permission/);
    const articles = await reader.readResource({ uri: 'svc://collections/articles' });
    const text = (articles.contents[0] as { text: string }).text;
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('secrets');
    const admin = await adminClient();
    expect((await admin.listResources()).resources.map((r) => r.uri)).toContain('svc://collections/secrets');
  });

  it('row filters apply as in REST: an article of another category is invisible to every read', async () => {
    const list = await ok(reader, 'read_items', { collection: 'articles', fields: ['id'] });
    expect(list.data).toEqual([{ id: ARTICLE }]);
    const one = await call(reader, 'read_item', { collection: 'articles', key: HIDDEN_ARTICLE });
    expect(errorCode(one)).toBe('FORBIDDEN');
    const search = await ok(reader, 'search_items', { search: 'memo' });
    expect(search.data).toEqual([]);
    const count = await ok(reader, 'read_items', { collection: 'articles', aggregate: { count: ['*'] } });
    expect(count.data).toEqual([{ count: 1 }]);
  });
});

let adminConnection: Client | null = null;
async function adminClient(): Promise<Client> {
  if (!adminConnection) {
    adminConnection = await connect(t, ADMIN_TOKEN);
    clients.push(adminConnection);
  }
  return adminConnection;
}

describe('who may connect', () => {
  it('the public (no credential) is 401 with a Bearer challenge; the SDK client cannot connect', async () => {
    await expect(connect(t, null)).rejects.toMatchObject({ code: 401 });
    const res = await rpc(t, INITIALIZE, { token: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect(res.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'INVALID_CREDENTIALS' } }] });
    // Whatever the Public role may read.
    await q(t, `insert into svc_permissions (policy, collection, action, fields)
      select p.id, 'articles', 'read', '["*"]' from svc_policies p join svc_access a on a.policy = p.id
      join svc_settings s on s.public_role = a.role`);
    await t.services.schema.invalidate();
    expect((await t.req('GET', '/items/articles?fields=id', undefined, { token: null })).status).toBe(200);
    expect((await rpc(t, INITIALIZE, { token: null })).status).toBe(401);
  });

  it('a token that matches nothing is 401 INVALID_TOKEN with the challenge naming it', async () => {
    const res = await rpc(t, INITIALIZE, { token: 'not-a-token' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc", error="invalid_token"');
    expect(res.body.errors[0].extensions.code).toBe('INVALID_TOKEN');
  });

  it('a static token and a login\'s access token both work', async () => {
    expect((await ok(editor, 'read_item', { collection: 'articles', key: ARTICLE, fields: ['id'] })).data.id).toBe(ARTICLE);
    const login = await t.req('POST', '/auth/login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, { token: null });
    expect(login.status).toBe(200);
    const viaLogin = await connect(t, login.body.data.access_token);
    clients.push(viaLogin);
    expect((await ok(viaLogin, 'describe_schema', { collection: 'secrets' })).collections[0].collection).toBe('secrets');
  });

  it('a share token is refused (403), though REST lets it read its item', async () => {
    const share = randomUUID();
    await q(t, 'insert into svc_shares (id, collection, item, role) values ($1, $2, $3, $4)', [share, 'articles', ARTICLE, readerRole]);
    const auth = await t.req('POST', '/shares/auth', { share }, { token: null });
    expect(auth.status, JSON.stringify(auth.body)).toBe(200);
    const token = auth.body.data.access_token;
    expect((await t.req('GET', `/items/articles/${ARTICLE}`, undefined, { token })).status).toBe(200);
    const res = await rpc(t, INITIALIZE, { token });
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ message: 'A share token cannot use the MCP server.', extensions: { code: 'FORBIDDEN' } });
  });

  it('a user without app access or permissions connects, and every tool answers FORBIDDEN', async () => {
    for (const [tool, args] of [
      ['describe_schema', {}], ['read_items', { collection: 'articles' }], ['read_item', { collection: 'articles', key: ARTICLE }],
      ['search_items', { search: 'engine', collections: ['articles'] }], ['create_item', { collection: 'articles', data: { title: 'x' } }],
      ['update_item', { collection: 'articles', key: ARTICLE, data: { title: 'x' } }], ['list_versions', {}], ['list_my_tasks', {}],
    ] as const) {
      const res = await call(nobody, tool, args);
      expect(res.isError, `${tool}: ${res.text}`).toBe(true);
      expect(errorCode(res), tool).toBe('FORBIDDEN');
    }
    const search = await ok(nobody, 'search_items', { search: 'engine' });
    expect(search).toEqual({ data: [], searched: 0 });
  });
});

describe('drafts: owner and other users', () => {
  it('the owner adds to their draft; another editor may not, and sees it only as versioning:view shows it', async () => {
    const first = await ok(editor, 'update_item', { collection: 'articles', key: ARTICLE, data: { title: 'Engines, revised' } });
    expect(first).toMatchObject({ mode: 'draft', version: { status: 'draft' }, review: null });
    const id = first.version.id;
    const more = await ok(editor, 'update_item', { collection: 'articles', key: ARTICLE, data: { body: 'New body' }, version: id });
    expect(more.version.id).toBe(id);
    const [row] = await q(t, 'select delta, user_created from svc_versions where id = $1', [id]);
    expect(typeof row.delta === 'string' ? JSON.parse(row.delta) : row.delta).toEqual({ title: 'Engines, revised', body: 'New body' });

    const foreign = await call(other, 'update_item', { collection: 'articles', key: ARTICLE, data: { title: 'Hijacked' }, version: id });
    expect(errorCode(foreign)).toBe('FORBIDDEN');
    // A version named for another item answers as a missing one.
    const elsewhere = await call(editor, 'update_item', { collection: 'articles', key: HIDDEN_ARTICLE, data: { title: 'x' }, version: id });
    expect(errorCode(elsewhere)).toBe('FORBIDDEN');
    const listed = await ok(other, 'list_versions', { collection: 'articles', item: ARTICLE });
    expect(listed.data.map((v: any) => v.id)).toContain(id);
    const mine = await ok(other, 'list_versions', { mine: true });
    expect(mine.data).toEqual([]);
    // The live item is untouched by drafts.
    expect((await q(t, 'select title from articles where id = $1', [ARTICLE]))[0].title).toBe('Engines of the future');
  });

  it('a change to an item that does not exist is FORBIDDEN (update_item makes no new content)', async () => {
    const res = await call(editor, 'update_item', { collection: 'articles', key: randomUUID(), data: { title: 'x' } });
    expect(errorCode(res)).toBe('FORBIDDEN');
  });
});
