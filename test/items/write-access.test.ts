/** Item writes under permissions (SPEC Items rules 1, 3, 5), accountability modes, and the batch/depth bounds. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const count = async (sql: string, params: unknown[] = []) => Number((await q<{ n: number }>(`select count(*)::int as n from ${sql}`, params))[0].n);
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

const EDITOR_TOKEN = 'editor-static-token';
const editorId = randomUUID();

interface Grant { collection: string; action: string; fields?: string[] | null; presets?: Record<string, unknown>; permissions?: Record<string, unknown> }

async function grantEditor(grants: Grant[]): Promise<void> {
  const role = randomUUID();
  const policy = randomUUID();
  await q('insert into svc_roles (id, name) values ($1, $2)', [role, 'Editor']);
  await q('insert into svc_policies (id, name, app_access) values ($1, $2, true)', [policy, 'Editors']);
  await q('insert into svc_access (id, role, policy) values ($1, $2, $3)', [randomUUID(), role, policy]);
  await q("insert into svc_users (id, email, role, token, status) values ($1, 'editor@example.com', $2, $3, 'active')", [editorId, role, EDITOR_TOKEN]);
  for (const g of grants) {
    await q('insert into svc_permissions (policy, collection, action, fields, presets, permissions) values ($1, $2, $3, $4, $5, $6)', [
      policy, g.collection, g.action, JSON.stringify(g.fields === undefined ? ['*'] : g.fields),
      g.presets ? JSON.stringify(g.presets) : null, g.permissions ? JSON.stringify(g.permissions) : null,
    ]);
  }
  await t.services.schema.invalidate();
}

const asEditor = (method: string, path: string, body?: unknown) => t.req(method, path, body, { token: EDITOR_TOKEN });

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  await grantEditor([
    { collection: 'posts', action: 'create', fields: ['title', 'body', 'status', 'comments', 'tags'], presets: { status: 'review', views: 7 } },
    { collection: 'posts', action: 'update', fields: ['title', 'status'], permissions: { author: { _eq: '$CURRENT_USER' } } },
    { collection: 'posts_tags', action: 'create' },
    { collection: 'tags', action: 'delete' },
    { collection: 'comments', action: 'update' },
    { collection: 'svc_folders', action: 'create' },
    { collection: 'pages', action: 'create', presets: { title: '$CURRENT_USER' } },
  ]);
});
afterAll(async () => { await t.close(); });

describe('permissions', () => {
  it('refuses anonymous writes', async () => {
    for (const [method, path, body] of [
      ['POST', '/items/posts', { title: 'x' }], ['PATCH', '/items/posts/1', { title: 'x' }], ['PATCH', '/items/posts', { keys: [1], data: { title: 'x' } }],
      ['DELETE', '/items/posts/1', undefined], ['DELETE', '/items/posts', [1]], ['PATCH', '/items/home', { headline: 'x' }],
    ] as const) {
      const res = await t.req(method, path, body, { token: null });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(code(res)).toBe('FORBIDDEN');
    }
    expect(await count('posts where id = 1')).toBe(1);
  });

  it('applies presets under the payload and records the user', async () => {
    const res = await asEditor('POST', '/items/posts', { title: 'By editor' });
    expect(res.status).toBe(200);
    expect((await q('select status, views from posts where id = $1', [res.body.data]))[0]).toEqual({ status: 'review', views: 7 });
    const own = await asEditor('POST', '/items/posts', { title: 'Own status', status: 'draft' });
    expect((await q('select status from posts where id = $1', [own.body.data]))[0].status).toBe('draft');
    const [activity] = await q("select \"user\" from svc_activity where collection = 'posts' and item = $1", [String(res.body.data)]);
    expect(activity.user).toBe(editorId);
  });

  it('resolves dynamic variables in presets', async () => {
    const res = await asEditor('POST', '/items/pages', {});
    expect(res.status).toBe(200);
    expect((await q('select title from pages where id = $1', [res.body.data]))[0].title).toBe(editorId);
  });

  it('refuses fields outside the permission, even when they exist', async () => {
    const res = await asEditor('POST', '/items/posts', { title: 'x', views: 1 });
    expect(res.status).toBe(403);
    expect(code(res)).toBe('FORBIDDEN');
    expect(res.body.errors[0].message).toContain('"views"');
    const upd = await asEditor('PATCH', '/items/posts/1', { body: 'x' });
    expect(upd.status).toBe(403);
  });

  it('checks only that a permission exists on update: its row filter is no ownership guard', async () => {
    const res = await asEditor('PATCH', '/items/posts/4', { title: 'Edited by editor' });
    expect(res.status).toBe(200);
    expect((await q('select title from posts where id = 4'))[0].title).toBe('Edited by editor');
  });

  it('refuses actions without a permission', async () => {
    expect((await asEditor('DELETE', '/items/posts/1')).status).toBe(403);
    expect((await asEditor('POST', '/items/authors', { name: 'x' })).status).toBe(403);
    expect((await asEditor('PATCH', '/items/home', { headline: 'x' })).status).toBe(403);
    await q("insert into tags (id) values ('editor-del')");
    expect((await asEditor('DELETE', '/items/tags/editor-del')).status).toBe(204);
  });

  it('checks nested writes against the related collection, rolling back the parent', async () => {
    const before = await count('posts');
    const res = await asEditor('POST', '/items/posts', { title: 'with comment', comments: [{ text: 'no create permission' }] });
    expect(res.status).toBe(403);
    expect(await count('posts')).toBe(before);
    // Junction create is granted, but the nested tag create is not.
    const m2m = await asEditor('POST', '/items/posts', { title: 'tags', tags: [{ tags_id: { id: 'editor-tag' } }] });
    expect(m2m.status).toBe(403);
    expect(await count("tags where id = 'editor-tag'")).toBe(0);
    // Linking an existing tag needs no permission on tags.
    const link = await asEditor('POST', '/items/posts', { title: 'tags ok', tags: [{ tags_id: 'news' }] });
    expect(link.status).toBe(200);
  });

  it('refuses svc_ collections to non-admins whatever their permissions', async () => {
    const res = await asEditor('POST', '/items/svc_folders', { name: 'x' });
    expect(res.status).toBe(403);
    expect(code(res)).toBe('FORBIDDEN');
  });
});

describe('accountability modes', () => {
  async function setMode(mode: string | null) {
    await q('update svc_collections set accountability = $1 where collection = $2', [mode, 'tags']);
    await t.services.schema.invalidate();
  }

  it("'activity' records activity without revisions; null records nothing", async () => {
    try {
      await setMode('activity');
      await t.req('POST', '/items/tags', { id: 'mode-activity' });
      expect(await count("svc_activity where collection = 'tags' and item = 'mode-activity'")).toBe(1);
      expect(await count("svc_revisions where collection = 'tags' and item = 'mode-activity'")).toBe(0);
      await setMode(null);
      await t.req('POST', '/items/tags', { id: 'mode-none' });
      await t.req('PATCH', '/items/tags/mode-none', { label: 'x' });
      await t.req('DELETE', '/items/tags/mode-none');
      expect(await count("svc_activity where item = 'mode-none'")).toBe(0);
    } finally {
      await setMode('all');
    }
  });
});

describe('bounds', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await createTestApp({ env: { MAX_BATCH_MUTATION: '5', MAX_RELATIONAL_DEPTH: '2' } });
    await createContentModel(small.services);
  });
  afterAll(async () => { await small.close(); });
  const smallCount = async (table: string) => Number((await run<{ n: number }>(small.services.database.db, `select count(*)::int as n from ${table}`))[0].n);

  it('refuses batches over MAX_BATCH_MUTATION, nested rows included', async () => {
    const tags = Array.from({ length: 6 }, (_, i) => ({ id: `t${i}` }));
    const over = await small.req('POST', '/items/tags', tags);
    expect(over.status).toBe(400);
    expect(over.body.errors[0].message).toContain('Exceeded max batch mutation limit of 5');
    expect(await smallCount('tags')).toBe(3);
    expect((await small.req('POST', '/items/tags', tags.slice(0, 5))).status).toBe(200);

    const nested = await small.req('POST', '/items/posts', { title: 'x', comments: Array.from({ length: 5 }, () => ({ text: 'c' })) });
    expect(nested.status).toBe(400);
    expect(await smallCount('posts')).toBe(5);

    expect((await small.req('PATCH', '/items/posts', { keys: [1, 2, 3, 4, 5, 6], data: { title: 'x' } })).status).toBe(400);
    expect((await small.req('PATCH', '/items/tags', tags.map((x) => ({ ...x, label: 'x' })))).status).toBe(400);
    expect((await small.req('DELETE', '/items/tags', tags.map((x) => x.id))).status).toBe(400);
    expect((await small.req('DELETE', '/items/tags', { query: { filter: { id: { _in: tags.map((x) => x.id) } } } })).status).toBe(204);
    expect(await smallCount('svc_activity where action = \'delete\'')).toBe(5);
  });

  it('refuses nesting deeper than MAX_RELATIONAL_DEPTH', async () => {
    const ok = await small.req('POST', '/items/posts_tags', { posts_id: { title: 'p' }, tags_id: { id: 'deep-ok' } });
    expect(ok.status).toBe(200);
    const before = await smallCount('authors');
    const deep = await small.req('POST', '/items/authors', { name: 'a', posts: [{ title: 'p', tags: [{ tags_id: { id: 'deep' } }] }] });
    expect(deep.status).toBe(400);
    expect(await smallCount('authors')).toBe(before);
  });

  it('refuses bodies over MAX_PAYLOAD_SIZE', async () => {
    const res = await small.req('POST', '/items/posts', { title: 'x', body: 'y'.repeat(1.1 * 1024 * 1024) });
    expect(res.status).toBe(413);
  });
});
