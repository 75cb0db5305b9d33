/** Concurrent single-item creates and updates of one collection are written together (core/items/write/coalesce.ts):
 * fewer statements than requests, and every request still gets the outcome it would have had alone: its own key,
 * row, activity and revision, or its own error with nothing written for it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { statementsOn } from '../helpers/statements.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
let writer: { user: string };

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  writer = await createPrincipal(t.services, {
    token: 'coalesce-writer',
    permissions: [{ collection: 'posts', action: 'create' }, { collection: 'posts', action: 'update' }, { collection: 'posts', action: 'read' }],
  });
});
afterAll(async () => { await t.close(); });

const onPosts = (fn: () => Promise<unknown>) => statementsOn(['posts'], fn);

async function adminId(): Promise<string> {
  const [row] = await q<{ id: string }>('select id from svc_users where token = $1', [ADMIN_TOKEN]);
  return row.id;
}

describe('coalesced single-item writes', () => {
  it('concurrent creates: fewer statements than requests; each request its own key, row, activity and revision', async () => {
    const n = 30;
    let answers: { status: number; body: any }[] = [];
    const statements = await onPosts(async () => {
      answers = await Promise.all(Array.from({ length: n }, (_, i) => t.req('POST', '/items/posts', { title: `c${i}`, views: i })));
    });
    expect(answers.map((a) => a.status)).toEqual(Array(n).fill(200));
    const keys = answers.map((a) => a.body.data as number);
    expect(new Set(keys).size).toBe(n);
    expect(statements.length).toBeLessThan(n);
    expect(statements.some((s) => /json_populate_recordset/.test(s))).toBe(true);

    const rows = await q<{ id: number; title: string; views: number }>('select id, title, views from posts where id = any($1)', [keys]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    keys.forEach((k, i) => expect(byId.get(k)).toEqual({ id: k, title: `c${i}`, views: i }));

    const audit = await q<{ item: string; action: string; user: string; data: any; delta: any }>(
      `select a.item, a.action, a."user", r.data, r.delta from svc_activity a join svc_revisions r on r.activity = a.id
       where a.collection = 'posts' and a.item = any($1)`, [keys.map(String)]);
    expect(audit).toHaveLength(n);
    const admin = await adminId();
    const auditOf = new Map(audit.map((r) => [r.item, r]));
    keys.forEach((k, i) => {
      const r = auditOf.get(String(k))!;
      expect(r.action).toBe('create');
      expect(r.user).toBe(admin);
      expect(r.delta).toEqual({ title: `c${i}`, views: i });
      expect(r.data).toMatchObject({ id: k, title: `c${i}`, views: i, status: 'draft' });
    });
  });

  it('a failing create among concurrent ones gets the error it gets alone; the others are written, nothing of it is', async () => {
    const alone = await t.req('POST', '/items/authors', { name: 'Dup', email: 'ada@example.com' });
    expect(alone.body.errors[0].extensions.code).toBe('RECORD_NOT_UNIQUE');
    const before = await q<{ n: number }>("select count(*)::int as n from svc_activity where collection = 'authors'");
    const payloads = Array.from({ length: 12 }, (_, i) => (i === 5
      ? { name: 'Dup', email: 'ada@example.com' }
      : { name: `Writer ${i}`, email: `writer${i}@example.com` }));
    let answers: { status: number; body: any }[] = [];
    const statements = await statementsOn(['authors'], async () => {
      answers = await Promise.all(payloads.map((p) => t.req('POST', '/items/authors', p)));
    });
    // The multi-row statement was tried (and failed as a whole): the fallback ran each write on its own.
    expect(statements.some((s) => /json_populate_recordset/.test(s))).toBe(true);
    expect(answers[5]).toMatchObject({ status: alone.status, body: alone.body });
    answers.forEach((a, i) => { if (i !== 5) expect(a.status).toBe(200); });
    const rows = await q<{ email: string }>("select email from authors where email like 'writer%' order by email");
    expect(rows).toHaveLength(11);
    const after = await q<{ n: number }>("select count(*)::int as n from svc_activity where collection = 'authors'");
    expect(after[0].n - before[0].n).toBe(11);
    expect(await q("select 1 from authors where name = 'Dup'")).toEqual([]);
  });

  it('concurrent updates: each key its own values and revision; a missing key is 403 with nothing written; one key twice is applied twice', async () => {
    const created = await t.req('POST', '/items/posts', Array.from({ length: 10 }, (_, i) => ({ title: `u-before ${i}`, views: 0 })));
    const keys = created.body.data as number[];
    const twice = keys[0];
    const requests = [
      ...keys.map((k) => ({ key: k, body: { title: `u${k}`, views: k } })),
      { key: twice, body: { title: `again ${twice}`, views: -1 } },
      { key: 987654, body: { title: 'nobody', views: 1 } },
    ];
    let answers: { status: number; body: any }[] = [];
    const statements = await onPosts(async () => {
      answers = await Promise.all(requests.map((r) => t.req('PATCH', `/items/posts/${r.key}`, r.body)));
    });
    expect(answers.map((a) => a.status)).toEqual([...Array(11).fill(200), 403]);
    expect(answers[11].body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(statements.length).toBeLessThan(requests.length);

    const rows = await q<{ id: number; title: string; views: number }>('select id, title, views from posts where id = any($1) order by id', [keys]);
    for (const r of rows.slice(1)) expect(r).toEqual({ id: r.id, title: `u${r.id}`, views: r.id });
    expect([`u${twice}`, `again ${twice}`]).toContain(rows[0].title);

    const revisions = await q<{ item: string; delta: any }>(
      `select r.item, r.delta from svc_revisions r join svc_activity a on a.id = r.activity
       where a.action = 'update' and r.collection = 'posts' and r.item = any($1) order by r.id`, [[...keys, 987654].map(String)]);
    expect(revisions).toHaveLength(11);
    for (const k of keys.slice(1)) expect(revisions.filter((r) => r.item === String(k)).map((r) => r.delta)).toEqual([{ title: `u${k}`, views: k }]);
    expect(revisions.filter((r) => r.item === String(twice)).map((r) => r.delta))
      .toEqual(expect.arrayContaining([{ title: `u${twice}`, views: twice }, { title: `again ${twice}`, views: -1 }]));
  });

  it('many concurrent updates over a few keys, in shuffled order: every request applied, one revision each', async () => {
    const keys = (await t.req('POST', '/items/posts', Array.from({ length: 5 }, (_, i) => ({ title: `hot ${i}`, views: 0 })))).body.data as number[];
    const requests = Array.from({ length: 40 }, (_, i) => ({ key: keys[(i * 7) % 5], body: { title: `hot ${i}`, views: i } }));
    const answers = await Promise.all(requests.map((r) => t.req('PATCH', `/items/posts/${r.key}`, r.body)));
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    const revisions = await q<{ item: string; delta: { title: string; views: number } }>(
      `select r.item, r.delta from svc_revisions r join svc_activity a on a.id = r.activity
       where a.action = 'update' and r.collection = 'posts' and r.item = any($1)`, [keys.map(String)]);
    expect(revisions.map((r) => `${r.item}:${r.delta.views}`).sort()).toEqual(requests.map((r, i) => `${r.key}:${i}`).sort());
    const rows = await q<{ id: number; views: number }>('select id, views from posts where id = any($1)', [keys]);
    for (const row of rows) expect(requests.filter((r) => r.key === row.id).map((r) => r.body.views)).toContain(row.views);
  });

  it('concurrent writes of different callers: each activity row names its own caller', async () => {
    const callers = Array.from({ length: 16 }, (_, i) => (i % 2 ? 'coalesce-writer' : undefined));
    const answers = await Promise.all(callers.map((token, i) => t.req('POST', '/items/posts', { title: `who ${i}`, views: i }, token ? { token } : {})));
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(200));
    const admin = await adminId();
    const activity = await q<{ item: string; user: string }>(
      "select item, \"user\" from svc_activity where collection = 'posts' and action = 'create' and item = any($1)",
      [answers.map((a) => String(a.body.data))]);
    const userOf = new Map(activity.map((r) => [r.item, r.user]));
    answers.forEach((a, i) => expect(userOf.get(String(a.body.data))).toBe(callers[i] ? writer.user : admin));
  });
});
