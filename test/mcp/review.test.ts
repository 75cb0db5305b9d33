/** Agents write drafts, people approve them: an agent's create or update through MCP becomes a content version that is
 * submitted to the matching review workflow; the live item is unchanged until a reviewer approves it through the REST
 * workflow API. New content by key kind (uuid, string, auto-increment placeholder), drafts that stay drafts, direct
 * writes and promote only where the settings allow them, and deletes only where allowed and permitted. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN, ARTICLE, HIDDEN_ARTICLE, all, call, connect, errorCode, installModel, ok, principal, q, reviewWorkflow, startMcpApp, type McpApp,
} from './setup.ts';

let t: McpApp;
let agent: Client;
let reviewer: Client;
let noStart: Client;
let deleter: Client;
let agentId: string;
const clients: Client[] = [];

const liveTitle = async (id: string) => (await q(t, 'select title from articles where id = $1', [id]))[0]?.title;
const versionRow = async (id: string) => (await q(t, 'select status, item, delta from svc_versions where id = $1', [id]))[0];
const settings = async (change: Record<string, unknown>) => {
  const res = await t.req('PATCH', '/system/mcp-settings', change);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

beforeAll(async () => {
  t = await startMcpApp();
  await installModel(t);
  const { role: reviewerRole } = await principal(t, 'reviewer-token', all('articles', ['read']), ['workflow:participate', 'versioning:view']);
  const writing = [
    ...all('articles', ['create', 'read', 'update']), ...all('notes', ['create', 'read', 'update']),
    ...all('events', ['create', 'read', 'update']), ...all('tags', ['create', 'read', 'update']),
  ];
  ({ user: agentId } = await principal(t, 'agent-token', writing, ['versioning:create', 'versioning:view', 'workflow:start']));
  await principal(t, 'nostart-token', writing, ['versioning:create', 'versioning:view']);
  await principal(t, 'deleter-token', [...all('notes', ['read', 'delete'])]);
  // Internal articles are not reviewed by this workflow (its trigger filter).
  await reviewWorkflow(t, reviewerRole, { category: { _neq: 'internal' } });
  for (const token of ['agent-token', 'reviewer-token', 'nostart-token', 'deleter-token']) clients.push(await connect(t, token));
  [agent, reviewer, noStart, deleter] = clients;
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await t?.close();
});

/** The reviewer's task for a version, through REST. */
async function taskOf(version: string): Promise<{ id: string; instance_id: string; step_id: string }> {
  const res = await t.req('GET', '/workflow-tasks', undefined, { token: 'reviewer-token' });
  expect(res.status).toBe(200);
  const task = res.body.data.find((x: any) => x.version_id === version);
  expect(task, JSON.stringify(res.body.data)).toBeTruthy();
  return task;
}

async function approve(version: string): Promise<void> {
  const task = await taskOf(version);
  const res = await t.req('POST', `/workflow-instances/${task.instance_id}/steps/${task.step_id}/approve`, { comment: 'Reads well' }, { token: 'reviewer-token' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('an agent\'s write goes through review', () => {
  it('a change lands as a pending draft, the item stays as it was until a reviewer approves it through the workflow', async () => {
    const res = await ok(agent, 'update_item', { collection: 'articles', key: ARTICLE, data: { title: 'Engines, reconsidered' }, name: 'Sharper headline' });
    expect(res).toMatchObject({
      mode: 'draft', collection: 'articles', item: ARTICLE, version: { status: 'pending' },
      review: { status: 'pending', instance: expect.stringMatching(/^[0-9a-f-]{36}$/) }, note: expect.stringMatching(/Submitted for review/),
    });
    const version = res.version.id;
    expect(await versionRow(version)).toMatchObject({ status: 'pending', item: ARTICLE });
    const [instance] = await q(t, 'select id, status, started_by from svc_workflow_instances where version_id = $1', [version]);
    expect(instance).toEqual({ id: res.review.instance, status: 'running', started_by: agentId });

    // Live content is unchanged, through REST and through MCP; the draft reads with its version.
    expect(await liveTitle(ARTICLE)).toBe('Engines of the future');
    expect((await t.req('GET', `/items/articles/${ARTICLE}?fields=title`)).body.data.title).toBe('Engines of the future');
    expect((await ok(agent, 'read_item', { collection: 'articles', key: ARTICLE, fields: ['title'] })).data.title).toBe('Engines of the future');
    expect((await ok(agent, 'read_item', { collection: 'articles', key: ARTICLE, fields: ['title'], version })).data.title).toBe('Engines, reconsidered');
    expect((await ok(agent, 'list_versions', { mine: true })).data).toEqual([expect.objectContaining({ id: version, name: 'Sharper headline', status: 'pending' })]);

    // Under review the draft is frozen, and the agent cannot publish it itself.
    const frozen = await call(agent, 'update_item', { collection: 'articles', key: ARTICLE, data: { title: 'Again' }, version });
    expect(errorCode(frozen)).toBe('INVALID_PAYLOAD');
    const promote = await call(agent, 'promote_version', { version });
    expect(errorCode(promote)).toBe('FORBIDDEN');
    expect(promote.json.errors[0].message).toMatch(/drafts_only/);

    // The reviewer sees the task through MCP as through REST; the agent, not a reviewer, has no tasks but may comment.
    const task = await taskOf(version);
    const tasks = await ok(reviewer, 'list_my_tasks');
    expect(tasks.data).toEqual([expect.objectContaining({ id: task.id, version_id: version, collection: 'articles', item_id: ARTICLE, step_name: 'Editorial review' })]);
    expect(errorCode(await call(agent, 'list_my_tasks'))).toBe('FORBIDDEN');
    const commented = await ok(agent, 'comment_on_task', { instance_id: task.instance_id, step_id: task.step_id, comment: 'The old headline undersold it.' });
    expect(commented).toMatchObject({ instance_id: task.instance_id, status: 'active', instance_status: 'running' });
    const detail = await t.req('GET', `/workflow-instances/${task.instance_id}`);
    expect(detail.body.data.actions).toContainEqual(expect.objectContaining({ kind: 'comment', user_id: agentId, comment: 'The old headline undersold it.' }));
    expect(await liveTitle(ARTICLE)).toBe('Engines of the future');

    // A person approves: the change reaches the item, recorded with the version.
    await approve(version);
    expect(await liveTitle(ARTICLE)).toBe('Engines, reconsidered');
    expect((await ok(agent, 'read_item', { collection: 'articles', key: ARTICLE, fields: ['title'] })).data.title).toBe('Engines, reconsidered');
    expect((await versionRow(version)).status).toBe('approved');
    const [revision] = await q(t, "select r.version, a.user from svc_revisions r join svc_activity a on a.id = r.activity where r.collection = 'articles' and r.item = $1 order by r.id desc limit 1", [ARTICLE]);
    expect(revision).toEqual({ version, user: null });
  });

  it('new content with a uuid key: no row until the draft is approved, then the item with its key', async () => {
    const res = await ok(agent, 'create_item', { collection: 'articles', data: { title: 'A new engine', category: 'news', author: 2 } });
    expect(res).toMatchObject({ mode: 'draft', version: { status: 'pending' }, review: { status: 'pending' } });
    const key = res.item;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(await q(t, 'select id from articles where id = $1', [key])).toEqual([]);
    expect(errorCode(await call(agent, 'read_item', { collection: 'articles', key, fields: ['title'] }))).toBe('FORBIDDEN');
    expect((await ok(agent, 'read_item', { collection: 'articles', key, fields: ['id', 'title'], version: res.version.id })).data).toEqual({ id: key, title: 'A new engine' });
    await approve(res.version.id);
    expect(await q(t, 'select title, status, author from articles where id = $1', [key])).toEqual([{ title: 'A new engine', status: 'published', author: 2 }]);
  });

  it('new content with a key the agent chooses: a string key must be given, and must be new', async () => {
    const missing = await call(agent, 'create_item', { collection: 'tags', data: { label: 'Agents' } });
    expect(errorCode(missing)).toBe('INVALID_PAYLOAD');
    expect(missing.json.errors[0].message).toMatch(/needs its key/);
    const taken = await call(agent, 'create_item', { collection: 'tags', key: 'news', data: { label: 'Agents' } });
    expect(errorCode(taken)).toBe('INVALID_PAYLOAD');
    expect(taken.json.errors[0].message).toMatch(/already exists/);
    const made = await ok(agent, 'create_item', { collection: 'tags', key: 'agents', data: { label: 'Agents' } });
    expect(made).toMatchObject({ item: 'agents', version: { status: 'draft' }, review: null });
    expect(await q(t, "select id from tags where id = 'agents'")).toEqual([]);
    expect(await versionRow(made.version.id)).toMatchObject({ status: 'draft', item: 'agents' });
  });

  it('auto-increment keys: a placeholder row holds the number (status draft where there is one); a refused draft leaves none', async () => {
    const made = await ok(agent, 'create_item', { collection: 'events', data: { title: 'Launch party' } });
    expect(made).toMatchObject({ mode: 'draft', version: { status: 'draft' }, review: null, note: expect.stringMatching(/No review workflow/) });
    expect(await q(t, 'select title, status from events where id = $1', [Number(made.item)])).toEqual([{ title: null, status: 'draft' }]);
    const note = await ok(agent, 'create_item', { collection: 'notes', data: { text: 'Remember the engines' } });
    expect(await q(t, 'select text from notes where id = $1', [Number(note.item)])).toEqual([{ text: null }]);
    const [before] = await q(t, 'select count(*)::int as n from events');
    const refused = await call(agent, 'create_item', { collection: 'events', data: { nope: 1 } });
    expect(errorCode(refused)).toBe('INVALID_PAYLOAD');
    const keyed = await call(agent, 'create_item', { collection: 'events', key: 99, data: { title: 'x' } });
    expect(errorCode(keyed)).toBe('INVALID_PAYLOAD');
    expect(await q(t, 'select count(*)::int as n from events')).toEqual([before]);
  });

  it('a draft stays a draft when no workflow matches, when asked (submit: false), or when the agent may not start a review', async () => {
    const internal = await ok(agent, 'update_item', { collection: 'articles', key: HIDDEN_ARTICLE, data: { title: 'Memo, revised' } });
    expect(internal).toMatchObject({ version: { status: 'draft' }, review: null, note: expect.stringMatching(/No review workflow matches/) });
    const held = await ok(agent, 'update_item', { collection: 'articles', key: ARTICLE, data: { body: 'Later' }, submit: false });
    expect(held).toMatchObject({ version: { status: 'draft' }, review: null, note: expect.stringMatching(/not submitted/) });
    const unstarted = await ok(noStart, 'update_item', { collection: 'articles', key: ARTICLE, data: { body: 'Elsewhere' } });
    expect(unstarted).toMatchObject({ version: { status: 'draft' }, review: null, note: expect.stringMatching(/could not be submitted for review/) });
    for (const id of [internal.version.id, held.version.id, unstarted.version.id]) expect((await versionRow(id)).status).toBe('draft');
    expect(await q(t, 'select count(*)::int as n from svc_workflow_instances where version_id = any($1::text[])', [[held.version.id, unstarted.version.id]])).toEqual([{ n: 0 }]);
    // Submitting later: the held draft, with more changes, goes to review.
    const later = await ok(agent, 'update_item', { collection: 'articles', key: ARTICLE, data: { category: 'news' }, version: held.version.id });
    expect(later).toMatchObject({ version: { id: held.version.id, status: 'pending' }, review: { status: 'pending' } });
    expect((await versionRow(held.version.id)).delta).toMatchObject({ body: 'Later', category: 'news' });
  });
});

describe('direct writes and promote: only where the settings allow them', () => {
  it('with drafts_only (the default) direct writes are refused and nothing is written', async () => {
    const [before] = await q(t, 'select count(*)::int as n from notes');
    const create = await call(agent, 'create_item', { collection: 'notes', data: { text: 'live' }, draft: false });
    expect(errorCode(create)).toBe('FORBIDDEN');
    expect(create.json.errors[0].message).toMatch(/drafts_only/);
    const update = await call(agent, 'update_item', { collection: 'articles', key: HIDDEN_ARTICLE, data: { title: 'live' }, draft: false });
    expect(errorCode(update)).toBe('FORBIDDEN');
    expect(await q(t, 'select count(*)::int as n from notes')).toEqual([before]);
    expect(await liveTitle(HIDDEN_ARTICLE)).toBe('Internal memo');
  });

  it('with drafts_only off the agent may write live and promote its own draft, within its permissions', async () => {
    await settings({ drafts_only: false });
    try {
      const created = await ok(agent, 'create_item', { collection: 'notes', data: { text: 'live note' }, draft: false });
      expect(created).toMatchObject({ mode: 'direct', collection: 'notes' });
      expect(await q(t, 'select text from notes where id = $1', [created.key])).toEqual([{ text: 'live note' }]);
      await ok(agent, 'update_item', { collection: 'articles', key: HIDDEN_ARTICLE, data: { title: 'Memo, live' }, draft: false });
      expect(await liveTitle(HIDDEN_ARTICLE)).toBe('Memo, live');
      // Drafts are still the default, and the agent may publish its own draft that is not under review.
      const draft = await ok(agent, 'update_item', { collection: 'articles', key: HIDDEN_ARTICLE, data: { body: 'Promoted body' } });
      expect(draft.version.status).toBe('draft');
      expect(await ok(agent, 'promote_version', { version: draft.version.id })).toEqual({ promoted: draft.version.id });
      expect((await q(t, 'select body from articles where id = $1', [HIDDEN_ARTICLE]))[0].body).toBe('Promoted body');
      // Without update permission a direct write is refused as REST refuses it.
      const refused = await call(deleter, 'update_item', { collection: 'notes', key: created.key, data: { text: 'x' }, draft: false });
      expect(errorCode(refused)).toBe('FORBIDDEN');
      // System collections are never written by a tool, not even with an administrator's token.
      const admin = await connect(t, ADMIN_TOKEN);
      clients.push(admin);
      const [before] = await q(t, 'select count(*)::int as n from svc_roles');
      for (const [tool, args] of [
        ['create_item', { collection: 'svc_roles', data: { name: 'Agents rule' }, draft: false }],
        ['update_item', { collection: 'svc_settings', key: 1, data: { project_name: 'Taken' }, draft: false }],
        ['create_item', { collection: 'svc_roles', data: { name: 'Agents rule' } }],
      ] as const) {
        const res = await call(admin, tool, args);
        expect(res.isError, `${tool} ${args.collection}`).toBe(true);
      }
      expect(await q(t, 'select count(*)::int as n from svc_roles')).toEqual([before]);
      expect((await q(t, 'select project_name from svc_settings'))[0].project_name).not.toBe('Taken');
    } finally {
      await settings({ drafts_only: true });
    }
  });
});

describe('deletes', () => {
  it('are refused while allow_deletes is off; with it on, only a caller with delete permission deletes', async () => {
    const [{ id }] = await q(t, "insert into notes (text) values ('to delete') returning id");
    const off = await call(deleter, 'delete_item', { collection: 'notes', key: id });
    expect(errorCode(off)).toBe('FORBIDDEN');
    expect(off.json.errors[0].message).toMatch(/allow_deletes/);
    expect(await q(t, 'select id from notes where id = $1', [id])).toHaveLength(1);
    await settings({ allow_deletes: true });
    try {
      const unpermitted = await call(agent, 'delete_item', { collection: 'notes', key: id });
      expect(errorCode(unpermitted)).toBe('FORBIDDEN');
      expect(await q(t, 'select id from notes where id = $1', [id])).toHaveLength(1);
      expect(await ok(deleter, 'delete_item', { collection: 'notes', key: id })).toEqual({ deleted: { collection: 'notes', key: id } });
      expect(await q(t, 'select id from notes where id = $1', [id])).toEqual([]);
    } finally {
      await settings({ allow_deletes: false });
    }
  });
});
