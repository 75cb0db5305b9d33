/** POST / PATCH / DELETE /items: shapes, payload validation, activity and revisions. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { verifyPassword } from '../../core/auth/passwords.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

let t: TestApp;
let adminId: string;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const count = async (sql: string, params: unknown[] = []) => Number((await q<{ n: number }>(`select count(*)::int as n from ${sql}`, params))[0].n);
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  [{ id: adminId }] = await q<{ id: string }>('select id from svc_users where token = $1', [ADMIN_TOKEN]);
});
afterAll(async () => { await t.close(); });

describe('POST /items/{collection}', () => {
  it('creates one item and answers its primary key', async () => {
    const res = await t.req('POST', '/items/authors', { name: 'Dana', email: 'dana@example.com', age: 41 },
      { headers: { 'user-agent': 'vitest-agent', origin: 'https://app.example' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: expect.any(Number) });
    const [row] = await q('select name, email, age, active from authors where id = $1', [res.body.data]);
    expect(row).toEqual({ name: 'Dana', email: 'dana@example.com', age: 41, active: true });

    const activity = await q('select * from svc_activity where collection = $1 and item = $2', ['authors', String(res.body.data)]);
    expect(activity).toHaveLength(1);
    expect(activity[0]).toMatchObject({ action: 'create', user: adminId, user_agent: 'vitest-agent', origin: 'https://app.example' });
    const revisions = await q('select * from svc_revisions where activity = $1', [activity[0].id]);
    expect(revisions).toHaveLength(1);
    expect(revisions[0]).toMatchObject({ collection: 'authors', item: String(res.body.data), parent: null, version: null });
    expect(revisions[0].data).toMatchObject({ id: res.body.data, name: 'Dana', email: 'dana@example.com', age: 41, active: true, bio: null });
    expect(revisions[0].delta).toEqual({ name: 'Dana', email: 'dana@example.com', age: 41 });
  });

  it('creates a batch and answers the keys in order', async () => {
    const res = await t.req('POST', '/items/tags', [{ id: 'b1', label: 'One' }, { id: 'b2', label: 'Two' }, { id: 'b3' }]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: ['b1', 'b2', 'b3'] });
    expect(await count("tags where id in ('b1', 'b2', 'b3')")).toBe(3);
    expect(await count("svc_activity where collection = 'tags' and item in ('b1', 'b2', 'b3') and action = 'create'")).toBe(3);
  });

  it('answers an empty array for an empty batch', async () => {
    const res = await t.req('POST', '/items/tags', []);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it('generates a uuid primary key when none is given, and keeps a given one', async () => {
    const res = await t.req('POST', '/items/comments', { text: 'generated' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatch(/^[0-9a-f-]{36}$/);
    const given = '11111111-2222-4333-8444-555555555555';
    const res2 = await t.req('POST', '/items/comments', { id: given, text: 'given' });
    expect(res2.body).toEqual({ data: given });
  });

  it('accepts an explicit value for an auto-increment key', async () => {
    const res = await t.req('POST', '/items/pages', { id: 500, title: 'Explicit' });
    expect(res.body).toEqual({ data: 500 });
    const res2 = await t.req('POST', '/items/pages', { id: null, title: 'Null id' });
    expect(res2.status).toBe(200);
    expect(res2.body.data).toEqual(expect.any(Number));
  });

  it('creates a row of defaults from an empty object', async () => {
    const res = await t.req('POST', '/items/pages', {});
    expect(res.status).toBe(200);
    expect((await q('select title from pages where id = $1', [res.body.data]))[0].title).toBeNull();
  });

  it('stores values of every field type', async () => {
    const res = await t.req('POST', '/items/posts', {
      title: 'Typed', views: 3, rating: '4.25', published_on: '2024-05-01T12:30:00Z', publish_date: '2024-05-01',
      publish_time: '12:30', local_dt: '2024-05-01T12:30:00', uid: '6f1c4a64-3b0e-4f53-9a51-0f0a0e4f7b02',
      labels: ['x', 'y', 'z'], meta: { nested: [1, 'two', null], ok: true }, big: '9007199254740993',
    });
    expect(res.status).toBe(200);
    const [row] = await q(`select rating::text, published_on = '2024-05-01T12:30:00Z'::timestamptz as ts_ok, publish_date::text,
      publish_time::text, local_dt::text, uid::text, labels, meta::text, big::text from posts where id = $1`, [res.body.data]);
    expect(row).toEqual({
      rating: '4.25', ts_ok: true, publish_date: '2024-05-01', publish_time: '12:30:00', local_dt: '2024-05-01 12:30:00',
      uid: '6f1c4a64-3b0e-4f53-9a51-0f0a0e4f7b02', labels: 'x,y,z', meta: '{"nested":[1,"two",null],"ok":true}', big: '9007199254740993',
    });
    // The revision snapshot keeps the exact big integer text.
    const [rev] = await q<{ data: string }>("select data::text as data from svc_revisions where collection = 'posts' and item = $1", [String(res.body.data)]);
    expect(rev.data).toContain('"big":9007199254740993');
  });

  it('accepts the loose forms Directus accepts', async () => {
    const res = await t.req('POST', '/items/authors', { name: 'Loose', active: 'false', score: '7.5' });
    expect(res.status).toBe(200);
    expect((await q('select active, score from authors where id = $1', [res.body.data]))[0]).toEqual({ active: false, score: 7.5 });
    const csv = await t.req('POST', '/items/posts', { title: 'csv as text', labels: 'a,b' });
    expect((await q('select labels from posts where id = $1', [csv.body.data]))[0].labels).toBe('a,b');
    const json = await t.req('POST', '/items/posts', { title: 'json scalar', meta: 'just a string' });
    expect((await q('select meta::text from posts where id = $1', [json.body.data]))[0].meta).toBe('"just a string"');
  });

  it('stores hash fields as argon2 hashes', async () => {
    const res = await t.req('POST', '/items/authors', { name: 'Hashed', secret: 'hunter2' });
    const [row] = await q<{ secret: string }>('select secret from authors where id = $1', [res.body.data]);
    expect(row.secret).toMatch(/^\$argon2/);
    expect(await verifyPassword(row.secret, 'hunter2')).toBe(true);
  });

  it.each([
    ['posts', { views: 'abc' }, 'views'],
    ['posts', { views: 1.5 }, 'views'],
    ['posts', { views: 2 ** 31 }, 'views'],
    ['posts', { views: true }, 'views'],
    ['posts', { big: 'nine' }, 'big'],
    ['posts', { big: 1.5 }, 'big'],
    ['posts', { rating: 'high' }, 'rating'],
    ['authors', { name: 'x', score: 'NaN' }, 'score'],
    ['authors', { name: 'x', active: 'yes' }, 'active'],
    ['posts', { uid: 'not-a-uuid' }, 'uid'],
    ['posts', { publish_date: '2024-13-01' }, 'publish_date'],
    ['posts', { publish_date: '2023-02-29' }, 'publish_date'],
    ['posts', { publish_time: '25:00' }, 'publish_time'],
    ['posts', { published_on: 'yesterday' }, 'published_on'],
    ['posts', { local_dt: 12345 }, 'local_dt'],
    ['posts', { labels: [1, 2] }, 'labels'],
    ['posts', { labels: { a: 1 } }, 'labels'],
    ['posts', { title: { $gt: '' } }, 'title'],
    ['posts', { title: ['a'] }, 'title'],
    ['posts', { title: 42 }, 'title'],
    ['posts', { title: 'x'.repeat(256) }, 'title'],
    ['authors', { name: null }, 'name'],
    ['authors', { name: 'x', secret: 5 }, 'secret'],
    ['posts', { author: 'one' }, 'author'],
    ['posts', { author: [1] }, 'author'],
  ])('rejects %s %j naming the field', async (collection, payload, field) => {
    const before = await count(collection);
    const res = await t.req('POST', `/items/${collection}`, payload);
    expect(res.status).toBe(400);
    expect(code(res)).toBe('INVALID_PAYLOAD');
    expect(res.body.errors[0].message).toContain(`"${field}"`);
    expect(res.body.errors[0].extensions).toMatchObject({ collection, field });
    expect(await count(collection)).toBe(before);
  });

  it('counts string length in characters, as Postgres does', async () => {
    const res = await t.req('POST', '/items/posts', { title: '😀'.repeat(255) });
    expect(res.status).toBe(200);
  });

  it('reports every invalid field at once', async () => {
    const res = await t.req('POST', '/items/posts', { views: 'a', uid: 'b', nope: 1 });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => e.extensions.field).sort()).toEqual(['nope', 'uid', 'views']);
    expect(res.body.errors.every((e: any) => e.extensions.code === 'INVALID_PAYLOAD')).toBe(true);
  });

  it('rejects unknown fields, SQL in field names, and prototype keys', async () => {
    for (const field of ['nope', 'title" = 1; drop table posts; --', '__proto__', 'constructor', 'toString']) {
      const res = await t.req('POST', '/items/posts', `{"title": "x", ${JSON.stringify(field)}: "v"}`);
      expect(res.status).toBe(400);
      expect(code(res)).toBe('INVALID_PAYLOAD');
      expect(res.body.errors[0].extensions.field).toBe(field);
    }
    expect(await count('posts')).toBeGreaterThan(0);
  });

  it('binds SQL in values as data', async () => {
    const evil = "x'); drop table authors; --";
    const res = await t.req('POST', '/items/authors', { name: evil, bio: '$1 $2 \\ \'"' });
    expect(res.status).toBe(200);
    expect((await q('select name, bio from authors where id = $1', [res.body.data]))[0]).toEqual({ name: evil, bio: '$1 $2 \\ \'"' });
  });

  it.each([
    ['a string body', '"hello"'],
    ['a number body', '42'],
    ['null', 'null'],
    ['malformed JSON', '{"title": '],
    ['an array with a non-object', '[{"title": "ok"}, 5]'],
    ['an array with null', '[null]'],
    ['an array of arrays', '[[]]'],
  ])('answers 400 for %s and writes nothing', async (_label, body) => {
    const before = await count('posts');
    const res = await t.req('POST', '/items/posts', body);
    expect(res.status).toBe(400);
    expect(code(res)).toBe('INVALID_PAYLOAD');
    expect(await count('posts')).toBe(before);
  });

  it('answers 400 for an empty body and for a non-JSON content type', async () => {
    const empty = await t.req('POST', '/items/posts', '');
    expect(empty.status).toBe(400);
    const xml = await t.req('POST', '/items/posts', '<a/>', { headers: { 'content-type': 'application/xml' } });
    expect(xml.status).toBe(400);
    expect(code(xml)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('maps database errors: unique, not-null, foreign key', async () => {
    const dup = await t.req('POST', '/items/authors', { name: 'Dup', email: 'ada@example.com' });
    expect(dup.status).toBe(409);
    expect(code(dup)).toBe('RECORD_NOT_UNIQUE');
    const missing = await t.req('POST', '/items/authors', { bio: 'no name' });
    expect(missing.status).toBe(400);
    expect(code(missing)).toBe('INVALID_PAYLOAD');
    const fk = await t.req('POST', '/items/posts', { title: 'bad fk', author: 999999 });
    expect(fk.status).toBe(400);
    expect(code(fk)).toBe('INVALID_PAYLOAD');
  });

  it('rolls a failed batch back completely: no rows, no activity', async () => {
    const rows = await count('authors');
    const activity = await count('svc_activity');
    const revisions = await count('svc_revisions');
    const res = await t.req('POST', '/items/authors', [
      { name: 'R1', email: 'r1@example.com' }, { name: 'R2', email: 'r2@example.com' }, { name: 'R3', email: 'ada@example.com' },
    ]);
    expect(res.status).toBe(409);
    expect(code(res)).toBe('RECORD_NOT_UNIQUE');
    expect(await count('authors')).toBe(rows);
    expect(await count("authors where email in ('r1@example.com', 'r2@example.com')")).toBe(0);
    expect(await count('svc_activity')).toBe(activity);
    expect(await count('svc_revisions')).toBe(revisions);
  });

  it('answers 404 for unknown collections and folders', async () => {
    const res = await t.req('POST', '/items/nope', { a: 1 });
    expect(res.status).toBe(404);
    expect(code(res)).toBe('COLLECTION_NOT_FOUND');
    await q("insert into svc_collections (collection) values ('a_folder')");
    await t.services.schema.invalidate();
    for (const [method, path] of [['POST', '/items/a_folder'], ['PATCH', '/items/a_folder/1'], ['DELETE', '/items/a_folder/1'], ['PATCH', '/items/constructor'], ['POST', '/items/__proto__']]) {
      const r = await t.req(method, path, { a: 1 });
      expect(r.status).toBe(404);
      expect(code(r)).toBe('COLLECTION_NOT_FOUND');
    }
  });

  it('lets admins write svc_ collections, recording activity and a revision as for any collection', async () => {
    const res = await t.req('POST', '/items/svc_folders', { name: 'Admin folder' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatch(/^[0-9a-f-]{36}$/);
    expect(await count('svc_folders where id = $1', [res.body.data])).toBe(1);
    expect(await count("svc_activity where collection = 'svc_folders' and item = $1 and action = 'create'", [res.body.data])).toBe(1);
    expect(await count("svc_revisions where collection = 'svc_folders' and item = $1", [res.body.data])).toBe(1);
  });
});

describe('PATCH /items/{collection}/{pk}', () => {
  it('updates one item, answers its key, and records the delta and snapshot', async () => {
    const res = await t.req('PATCH', '/items/posts/2', { title: 'Second, edited', views: 26 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: 2 });
    expect((await q('select title, views, status from posts where id = 2'))[0]).toEqual({ title: 'Second, edited', views: 26, status: 'published' });
    const [rev] = await q("select r.*, a.action from svc_revisions r join svc_activity a on a.id = r.activity where r.collection = 'posts' and r.item = '2' order by r.id desc limit 1");
    expect(rev.action).toBe('update');
    expect(rev.delta).toEqual({ title: 'Second, edited', views: 26 });
    expect(rev.data).toMatchObject({ id: 2, title: 'Second, edited', views: 26, status: 'published', author: 1 });
  });

  it('works with string and uuid keys', async () => {
    expect((await t.req('PATCH', '/items/tags/misc', { label: 'Misc' })).body).toEqual({ data: 'misc' });
    const id = '00000000-0000-4000-8000-000000000003';
    expect((await t.req('PATCH', `/items/comments/${id}`, { text: 'Nice!' })).body).toEqual({ data: id });
    expect((await q('select text from comments where id = $1', [id]))[0].text).toBe('Nice!');
  });

  it('answers FORBIDDEN for a missing item or a key of the wrong type', async () => {
    for (const [path, body] of [
      ['/items/posts/99999', { title: 'x' }], ['/items/posts/abc', { title: 'x' }], ['/items/posts/1.5', { title: 'x' }],
      ['/items/posts/99999999999', { title: 'x' }], ['/items/comments/not-a-uuid', { text: 'x' }], ['/items/tags/nope', { label: 'x' }],
    ] as const) {
      const res = await t.req('PATCH', path, body);
      expect(res.status, path).toBe(403);
      expect(code(res)).toBe('FORBIDDEN');
    }
  });

  it('accepts the item\'s own key in the payload and rejects another', async () => {
    expect((await t.req('PATCH', '/items/posts/1', { id: 1, views: 11 })).status).toBe(200);
    const res = await t.req('PATCH', '/items/posts/1', { id: 2, views: 12 });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.field).toBe('id');
    expect((await q('select views from posts where id = 1'))[0].views).toBe(11);
  });

  it('validates the payload like create', async () => {
    const res = await t.req('PATCH', '/items/posts/1', { views: 'many' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.field).toBe('views');
    const arr = await t.req('PATCH', '/items/posts/1', [{ views: 1 }]);
    expect(arr.status).toBe(400);
  });

  it('leaves a hash unchanged when given an empty string', async () => {
    const created = await t.req('POST', '/items/authors', { name: 'Keep', secret: 'first' });
    await t.req('PATCH', `/items/authors/${created.body.data}`, { secret: '' });
    const [row] = await q<{ secret: string }>('select secret from authors where id = $1', [created.body.data]);
    expect(await verifyPassword(row.secret, 'first')).toBe(true);
  });
});

describe('PATCH /items/{collection} (batch)', () => {
  it('updates by keys', async () => {
    const res = await t.req('PATCH', '/items/posts', { keys: [3, '4'], data: { status: 'review' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [3, 4] });
    expect(await count("posts where id in (3, 4) and status = 'review'")).toBe(2);
    expect(await count("svc_activity where collection = 'posts' and item in ('3', '4') and action = 'update'")).toBeGreaterThanOrEqual(2);
  });

  it('updates by query', async () => {
    const res = await t.req('PATCH', '/items/posts', { query: { filter: { status: { _eq: 'review' } } }, data: { status: 'draft' } });
    expect(res.status).toBe(200);
    expect([...res.body.data].sort()).toEqual([3, 4]);
    expect(await count("posts where status = 'review'")).toBe(0);
    const none = await t.req('PATCH', '/items/posts', { query: { filter: { status: { _eq: 'nothing' } } }, data: { status: 'x' } });
    expect(none.body).toEqual({ data: [] });
  });

  it('updates an array of items carrying their keys', async () => {
    const res = await t.req('PATCH', '/items/tags', [{ id: 'news', label: 'News!' }, { id: 'tech', label: 'Tech!' }]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: ['news', 'tech'] });
    expect((await q("select label from tags where id in ('news', 'tech') order by id")).map((r) => r.label)).toEqual(['News!', 'Tech!']);
  });

  it('answers FORBIDDEN and changes nothing when one key is missing', async () => {
    const res = await t.req('PATCH', '/items/posts', { keys: [1, 99999], data: { views: 777 } });
    expect(res.status).toBe(403);
    expect(await count('posts where views = 777')).toBe(0);
    const batch = await t.req('PATCH', '/items/tags', [{ id: 'news', label: 'changed' }, { id: 'ghost', label: 'x' }]);
    expect(batch.status).toBe(403);
    expect((await q("select label from tags where id = 'news'"))[0].label).toBe('News!');
  });

  it.each([
    ['a bare object', { title: 'x' }],
    ['keys and query', { keys: [1], query: {}, data: { title: 'x' } }],
    ['no data', { keys: [1] }],
    ['data not an object', { keys: [1], data: 'x' }],
    ['keys not an array', { keys: 1, data: { title: 'x' } }],
    ['keys of objects', { keys: [{ id: 1 }], data: { title: 'x' } }],
    ['query not an object', { query: 'x', data: { title: 'x' } }],
    ['an unknown member', { keys: [1], data: { title: 'x' }, extra: 1 }],
    ['an item without key', [{ title: 'x' }]],
    ['an array of scalars', [1, 2]],
  ])('answers 400 for %s', async (_label, body) => {
    const res = await t.req('PATCH', '/items/posts', body);
    expect(res.status).toBe(400);
    expect(code(res)).toBe('INVALID_PAYLOAD');
  });

  it('answers INVALID_QUERY for a malformed query', async () => {
    const res = await t.req('PATCH', '/items/posts', { query: { filter: 'nope', limit: 'x' }, data: { title: 'x' } });
    expect(res.status).toBe(400);
    expect(code(res)).toBe('INVALID_QUERY');
  });
});

describe('singletons', () => {
  it('creates the row on the first PATCH and updates it afterwards', async () => {
    const first = await t.req('PATCH', '/items/home', { headline: 'Welcome home' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: expect.any(Number) });
    const second = await t.req('PATCH', '/items/home', { headline: 'Updated' });
    expect(second.body).toEqual({ data: first.body.data });
    expect(await q('select id, headline from home')).toEqual([{ id: first.body.data, headline: 'Updated' }]);
    expect((await q("select action from svc_activity where collection = 'home' order by id")).map((r) => r.action)).toEqual(['create', 'update']);
  });

  it('creates only one row under concurrent first writes', async () => {
    await q('delete from home');
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => t.req('PATCH', '/items/home', { headline: `h${i}` })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(await count('home')).toBe(1);
  });

  it('validates the singleton payload', async () => {
    expect((await t.req('PATCH', '/items/home', { nope: 1 })).status).toBe(400);
    expect((await t.req('PATCH', '/items/home', [{ headline: 'x' }])).status).toBe(400);
  });
});

describe('DELETE /items', () => {
  it('deletes one item: 204, activity without revision', async () => {
    const created = await t.req('POST', '/items/tags', { id: 'gone', label: 'Gone' });
    const res = await t.req('DELETE', `/items/tags/${created.body.data}`);
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(await count("tags where id = 'gone'")).toBe(0);
    const [activity] = await q("select * from svc_activity where collection = 'tags' and item = 'gone' and action = 'delete'");
    expect(activity).toMatchObject({ user: adminId });
    expect(await count('svc_revisions where activity = $1', [activity.id])).toBe(0);
  });

  it('deletes by keys, by a bare array and by query', async () => {
    await t.req('POST', '/items/tags', [{ id: 'd1' }, { id: 'd2' }, { id: 'd3' }, { id: 'd4' }, { id: 'q1', label: 'zap' }, { id: 'q2', label: 'zap' }]);
    expect((await t.req('DELETE', '/items/tags', { keys: ['d1', 'd2'] })).status).toBe(204);
    expect((await t.req('DELETE', '/items/tags', ['d3', 'd4'])).status).toBe(204);
    expect((await t.req('DELETE', '/items/tags', { query: { filter: { label: { _eq: 'zap' } } } })).status).toBe(204);
    expect(await count("tags where id in ('d1', 'd2', 'd3', 'd4', 'q1', 'q2')")).toBe(0);
    expect(await count("svc_activity where collection = 'tags' and action = 'delete' and item in ('d1', 'd2', 'd3', 'd4', 'q1', 'q2')")).toBe(6);
  });

  it('answers FORBIDDEN for a missing key and deletes nothing', async () => {
    expect((await t.req('DELETE', '/items/posts/99999')).status).toBe(403);
    expect((await t.req('DELETE', '/items/posts/abc')).status).toBe(403);
    const res = await t.req('DELETE', '/items/posts', { keys: [5, 99999] });
    expect(res.status).toBe(403);
    expect(await count('posts where id = 5')).toBe(1);
  });

  it.each([
    ['no body', undefined],
    ['an empty object', {}],
    ['keys and query', { keys: [1], query: {} }],
    ['keys of objects', { keys: [{}] }],
    ['a string', 'x'],
  ])('answers 400 for %s', async (_label, body) => {
    const res = await t.req('DELETE', '/items/posts', body);
    expect(res.status).toBe(400);
    expect(await count('posts where id = 5')).toBe(1);
  });

  it('follows foreign-key rules: deleting a post cascades to its comments', async () => {
    const post = await t.req('POST', '/items/posts', { title: 'With comments', comments: [{ text: 'a' }, { text: 'b' }] });
    expect((await t.req('DELETE', `/items/posts/${post.body.data}`)).status).toBe(204);
    expect(await count('comments where post = $1', [post.body.data])).toBe(0);
  });
});
