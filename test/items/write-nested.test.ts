/** Relational writes nested in item payloads (M2O, O2M, M2M, A2O), in one transaction with the parent. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const count = async (sql: string, params: unknown[] = []) => Number((await q<{ n: number }>(`select count(*)::int as n from ${sql}`, params))[0].n);
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
});
afterAll(async () => { await t.close(); });

describe('many-to-one', () => {
  it('links by key, creates from an object, updates an object with a key, unlinks with null', async () => {
    const linked = await t.req('POST', '/items/posts', { title: 'm2o key', author: 2 });
    expect((await q('select author from posts where id = $1', [linked.body.data]))[0].author).toBe(2);

    const created = await t.req('POST', '/items/posts', { title: 'm2o new', author: { name: 'Eve', email: 'eve@example.com' } });
    expect(created.status).toBe(200);
    const [{ author }] = await q('select author from posts where id = $1', [created.body.data]);
    expect((await q('select name from authors where id = $1', [author]))[0].name).toBe('Eve');

    const updated = await t.req('PATCH', `/items/posts/${created.body.data}`, { author: { id: author, bio: 'Edited' } });
    expect(updated.status).toBe(200);
    expect((await q('select bio from authors where id = $1', [author]))[0].bio).toBe('Edited');

    // An object whose key names no row creates it with that key (Directus' upsert).
    const upserted = await t.req('PATCH', `/items/posts/${created.body.data}`, { author: { id: 4242, name: 'Upserted' } });
    expect(upserted.status).toBe(200);
    expect((await q('select author from posts where id = $1', [created.body.data]))[0].author).toBe(4242);

    await t.req('PATCH', `/items/posts/${created.body.data}`, { author: null });
    expect((await q('select author from posts where id = $1', [created.body.data]))[0].author).toBeNull();
  });

  it('records nested activity with revision parents', async () => {
    const res = await t.req('POST', '/items/posts', { title: 'activity', author: { name: 'Fay' } });
    const [post] = await q("select r.id, r.activity from svc_revisions r where collection = 'posts' and item = $1", [String(res.body.data)]);
    const [authorId] = (await q('select author from posts where id = $1', [res.body.data])).map((r) => r.author);
    const [child] = await q("select r.parent, a.action from svc_revisions r join svc_activity a on a.id = r.activity where r.collection = 'authors' and r.item = $1", [String(authorId)]);
    expect(child).toEqual({ parent: post.id, action: 'create' });
  });
});

describe('one-to-many', () => {
  it('creates children with the parent', async () => {
    const res = await t.req('POST', '/items/posts', { title: 'o2m', comments: [{ text: 'one' }, { text: 'two' }] });
    expect(res.status).toBe(200);
    expect((await q('select text from comments where post = $1 order by text', [res.body.data])).map((r) => r.text)).toEqual(['one', 'two']);
  });

  it('an array of keys links those and nullifies the children not listed', async () => {
    const author = await t.req('POST', '/items/authors', { name: 'Gus', posts: [{ title: 'g1' }, { title: 'g2' }] });
    const [g1, g2] = (await q('select id from posts where author = $1 order by title', [author.body.data])).map((r) => r.id);
    const res = await t.req('PATCH', `/items/authors/${author.body.data}`, { posts: [g2, 5] });
    expect(res.status).toBe(200);
    expect((await q('select id from posts where author = $1 order by id', [author.body.data])).map((r) => r.id)).toEqual([5, g2].sort((a, b) => a - b));
    expect((await q('select author from posts where id = $1', [g1]))[0].author).toBeNull();
    // Unchanged links record no activity; the linked post 5 and the deselected g1 do.
    const actions = await q("select item, action from svc_activity where collection = 'posts' and item in ($1, $2, '5') and action = 'update'", [String(g1), String(g2)]);
    expect(actions.map((a) => a.item).sort()).toEqual(['5', String(g1)].sort());
  });

  it('an array of objects updates those with keys and creates the others', async () => {
    const post = await t.req('POST', '/items/posts', { title: 'mix', comments: [{ text: 'keep' }] });
    const [keep] = await q('select id from comments where post = $1', [post.body.data]);
    const res = await t.req('PATCH', `/items/posts/${post.body.data}`, { comments: [{ id: keep.id, text: 'kept, edited' }, { text: 'added' }] });
    expect(res.status).toBe(200);
    expect((await q('select text from comments where post = $1 order by text', [post.body.data])).map((r) => r.text)).toEqual(['added', 'kept, edited']);
  });

  it('an empty array unlinks every child', async () => {
    const post = await t.req('POST', '/items/posts', { title: 'empty', comments: [{ text: 'x' }, { text: 'y' }] });
    await t.req('PATCH', `/items/posts/${post.body.data}`, { comments: [] });
    expect(await count('comments where post = $1', [post.body.data])).toBe(0);
    expect(await count("comments where post is null and text in ('x', 'y')")).toBe(2);
  });

  it('the detailed form creates, updates and deselects', async () => {
    const post = await t.req('POST', '/items/posts', { title: 'detailed', comments: [{ text: 'a' }, { text: 'b' }] });
    const [a, b] = await q('select id from comments where post = $1 order by text', [post.body.data]);
    const res = await t.req('PATCH', `/items/posts/${post.body.data}`, {
      comments: { create: [{ text: 'c' }], update: [{ id: a.id, text: 'a2' }], delete: [b.id] },
    });
    expect(res.status).toBe(200);
    expect((await q('select text from comments where post = $1 order by text', [post.body.data])).map((r) => r.text)).toEqual(['a2', 'c']);
    expect((await q('select post from comments where id = $1', [b.id]))[0].post).toBeNull();
  });

  it('deletes deselected children when one_deselect_action is delete', async () => {
    await q("update svc_relations set one_deselect_action = 'delete' where many_collection = 'comments' and many_field = 'post'");
    await t.services.schema.invalidate();
    try {
      const post = await t.req('POST', '/items/posts', { title: 'deselect delete', comments: [{ text: 'p' }, { text: 'q' }, { text: 'r' }] });
      const [p, qq, r] = await q('select id from comments where post = $1 order by text', [post.body.data]);
      await t.req('PATCH', `/items/posts/${post.body.data}`, { comments: [p.id, qq.id] });
      expect(await count('comments where id = $1', [r.id])).toBe(0);
      await t.req('PATCH', `/items/posts/${post.body.data}`, { comments: { delete: [qq.id] } });
      expect(await count('comments where id = $1', [qq.id])).toBe(0);
      expect(await count("svc_activity where collection = 'comments' and action = 'delete' and item in ($1, $2)", [r.id, qq.id])).toBe(2);
    } finally {
      await q("update svc_relations set one_deselect_action = 'nullify' where many_collection = 'comments' and many_field = 'post'");
      await t.services.schema.invalidate();
    }
  });

  it('answers FORBIDDEN for a missing child key and rolls everything back', async () => {
    const before = await count('posts');
    const res = await t.req('POST', '/items/posts', { title: 'bad child', comments: ['00000000-0000-4000-8000-0000000000ff'] });
    expect(res.status).toBe(403);
    expect(await count('posts')).toBe(before);
    const upd = await t.req('PATCH', '/items/posts/1', { title: 'never', comments: { update: [{ id: '00000000-0000-4000-8000-0000000000ff', text: 'x' }] } });
    expect(upd.status).toBe(403);
    expect((await q('select title from posts where id = 1'))[0].title).not.toBe('never');
  });

  it.each([
    ['a string', 'nope'],
    ['a number', 5],
    ['an array with booleans', [true]],
    ['an array with nested arrays', [[1]]],
    ['an unknown alteration key', { create: [], replace: [] }],
    ['create not an array', { create: {} }],
    ['create with scalars', { create: [1] }],
    ['update without key', { update: [{ text: 'x' }] }],
    ['delete with objects', { delete: [{}] }],
  ])('answers 400 for %s and writes nothing', async (_label, comments) => {
    const before = await count('posts');
    const res = await t.req('POST', '/items/posts', { title: 'shape', comments });
    expect(res.status).toBe(400);
    expect(code(res)).toBe('INVALID_PAYLOAD');
    expect(await count('posts')).toBe(before);
  });

  it('rolls the parent back when a nested child is invalid', async () => {
    const before = { posts: await count('posts'), comments: await count('comments'), activity: await count('svc_activity') };
    const res = await t.req('POST', '/items/posts', { title: 'parent', comments: [{ text: 'fine' }, { text: 'bad', user_name: 'x'.repeat(65) }] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toMatchObject({ collection: 'comments', field: 'user_name' });
    expect({ posts: await count('posts'), comments: await count('comments'), activity: await count('svc_activity') }).toEqual(before);
  });
});

describe('many-to-many', () => {
  it('links existing tags and creates new ones through the junction', async () => {
    const res = await t.req('POST', '/items/posts', { title: 'm2m', tags: [{ tags_id: 'news' }, { tags_id: { id: 'fresh', label: 'Fresh' } }] });
    expect(res.status).toBe(200);
    expect((await q('select tags_id from posts_tags where posts_id = $1 order by tags_id', [res.body.data])).map((r) => r.tags_id)).toEqual(['fresh', 'news']);
    expect((await q("select label from tags where id = 'fresh'"))[0].label).toBe('Fresh');
    // Updating the other side through the junction.
    const [junction] = await q("select id from posts_tags where posts_id = $1 and tags_id = 'fresh'", [res.body.data]);
    const upd = await t.req('PATCH', `/items/posts/${res.body.data}`, { tags: [junction.id, { tags_id: { id: 'fresh', label: 'Fresher' } }] });
    expect(upd.status).toBe(200);
    expect((await q("select label from tags where id = 'fresh'"))[0].label).toBe('Fresher');
    // The junction row for 'news' was not listed: it is deselected (posts_id set null, Directus' nullify default).
    expect(await count("posts_tags where posts_id = $1 and tags_id = 'news'", [res.body.data])).toBe(0);
  });
});

describe('any-to-one (M2A)', () => {
  it('creates blocks in the named collections and stores their keys as text', async () => {
    const res = await t.req('POST', '/items/pages', {
      title: 'Blocks',
      blocks: [{ collection: 'block_hero', item: { headline: 'Big' } }, { collection: 'block_text', item: { body: 'Words' } }, { collection: 'block_hero', item: '1' }],
    });
    expect(res.status).toBe(200);
    const rows = await q('select collection, item from pages_blocks where pages_id = $1 order by id', [res.body.data]);
    expect(rows).toHaveLength(3);
    expect(rows[2]).toEqual({ collection: 'block_hero', item: '1' });
    expect((await q('select headline from block_hero where id = $1', [Number(rows[0].item)]))[0].headline).toBe('Big');
    expect((await q('select body from block_text where id = $1', [Number(rows[1].item)]))[0].body).toBe('Words');
  });

  it('updates an existing block through its key', async () => {
    const res = await t.req('POST', '/items/pages', { title: 'Edit', blocks: [{ collection: 'block_hero', item: { id: 2, headline: 'Hi again' } }] });
    expect(res.status).toBe(200);
    expect((await q('select headline from block_hero where id = 2'))[0].headline).toBe('Hi again');
  });

  it('refuses collections outside the allowed list and a missing discriminator', async () => {
    const before = await count('pages');
    for (const block of [
      { collection: 'authors', item: { name: 'x' } },
      { collection: 'svc_users', item: 1 },
      { item: { headline: 'x' } },
    ]) {
      const res = await t.req('POST', '/items/pages', { title: 'bad', blocks: [block] });
      expect(res.status).toBe(400);
      expect(code(res)).toBe('INVALID_PAYLOAD');
    }
    expect(await count('pages')).toBe(before);
  });
});
