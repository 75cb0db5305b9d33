/** GET /items/{c}/{pk}?version=<uuid>: every row of SPEC.md's preview table, field permissions, list reads. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { ARTICLE, code, EDITOR_PERMISSIONS, principal, q, versionsApp } from './setup.ts';

let t: TestApp;
const as = (token: string | null) => ({ token });
let postVersion: string;
let articleVersion: string;
let newArticle: string;
let newVersion: string;

beforeAll(async () => {
  t = await versionsApp();
  await principal(t, 'editor', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:create']);
  // The minimal website role: read of articles without `secret`, read of posts, versioning:view.
  await principal(t, 'site', [
    { collection: 'articles', action: 'read', fields: ['id', 'title', 'body', 'status', 'views'] },
    { collection: 'posts', action: 'read', permissions: { status: { _eq: 'published' } } },
    { collection: 'authors', action: 'read', fields: ['id', 'name'] },
  ], ['versioning:view']);
  await principal(t, 'reader', [{ collection: 'articles', action: 'read' }], []);
  const mk = async (body: Record<string, unknown>) => (await t.req('POST', '/versions', body, as('editor'))).body.data as string;
  postVersion = await mk({ key: 'pv', collection: 'posts', item: '1', delta: { title: 'Draft title', views: 99 } });
  articleVersion = await mk({ key: 'av', collection: 'articles', item: ARTICLE, delta: { title: 'Preview title', secret: 'changed secret' } });
  newArticle = randomUUID();
  newVersion = await mk({ key: 'nv', collection: 'articles', item: newArticle, delta: { title: 'Not yet published', secret: 'hidden' } });
});
afterAll(() => t.close());

describe('preview table', () => {
  it('valid version of this item -> 200, shallow merge, pk keeps its value, shape unchanged, Cache-Control: no-store', async () => {
    const plain = await t.req('GET', '/items/posts/1');
    const res = await t.req('GET', `/items/posts/1?version=${postVersion}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body.data).sort()).toEqual(Object.keys(plain.body.data).sort());
    expect(res.body.data).toEqual({ ...plain.body.data, title: 'Draft title', views: 99 });
    expect(plain.headers.get('cache-control')).toBeNull();
    // The main item is unchanged.
    expect((await q(t, 'select title from posts where id = 1'))[0].title).toBe('Hello world');
  });

  it('the overlay respects the requested fields and keeps relational reads', async () => {
    const res = await t.req('GET', `/items/posts/1?version=${postVersion}&fields=id,title,author.name`);
    expect(res.body).toEqual({ data: { id: 1, title: 'Draft title', author: { name: 'Ada' } } });
  });

  it('version belongs to another item or collection -> 403', async () => {
    expect((await t.req('GET', `/items/posts/2?version=${postVersion}`)).status).toBe(403);
    expect((await t.req('GET', `/items/articles/${ARTICLE}?version=${postVersion}`)).status).toBe(403);
    expect(code(await t.req('GET', `/items/posts/2?version=${postVersion}`))).toBe('FORBIDDEN');
  });

  it('version does not exist -> 403 (existence not leaked)', async () => {
    const res = await t.req('GET', `/items/posts/1?version=${randomUUID()}`);
    expect([res.status, code(res)]).toEqual([403, 'FORBIDDEN']);
  });

  it('version points at an item with no row -> 200, delta plus primary key', async () => {
    const res = await t.req('GET', `/items/articles/${newArticle}?version=${newVersion}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: newArticle, title: 'Not yet published', secret: 'hidden' } });
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Without the version the item does not exist.
    expect((await t.req('GET', `/items/articles/${newArticle}`)).status).toBe(403);
  });

  it('version is not a uuid -> 400 INVALID_QUERY', async () => {
    for (const v of ['abc', '', '1']) {
      const res = await t.req('GET', `/items/posts/1?version=${v}`);
      expect([res.status, code(res)], v).toEqual([400, 'INVALID_QUERY']);
    }
  });

  it('no version parameter -> unchanged behavior', async () => {
    const res = await t.req('GET', '/items/posts/1?fields=id,title');
    expect(res.body).toEqual({ data: { id: 1, title: 'Hello world' } });
  });
});

describe('who may preview', () => {
  it('a versioning:view role reads the merge; fields it may not read never leak through the delta', async () => {
    const res = await t.req('GET', `/items/articles/${ARTICLE}?version=${articleVersion}`, undefined, as('site'));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: ARTICLE, title: 'Preview title', body: 'Body one', status: 'published', views: 0 });
    const fresh = await t.req('GET', `/items/articles/${newArticle}?version=${newVersion}`, undefined, as('site'));
    expect(fresh.body).toEqual({ data: { id: newArticle, title: 'Not yet published' } });
    const asked = await t.req('GET', `/items/articles/${newArticle}?version=${newVersion}&fields=title`, undefined, as('site'));
    expect(asked.body).toEqual({ data: { title: 'Not yet published' } });
  });

  it('nested write shapes in relation fields are cut to what the caller may read in the related collections', async () => {
    const v = (await t.req('POST', '/versions', { key: 'nested', collection: 'posts', item: '2', delta: {
      author: { name: 'New author', email: 'hidden@example.com', bio: 'hidden' },
      comments: { create: [{ text: 'hidden comment' }], update: [], delete: [] },
    } }, as('editor'))).body.data;
    const site = await t.req('GET', `/items/posts/2?version=${v}&fields=id,author,comments`, undefined, as('site'));
    expect(site.status).toBe(200);
    // authors: only id and name readable; comments: not readable at all (the field is not in the read either).
    expect(site.body.data).toEqual({ id: 2, author: { name: 'New author' } });
    const admin = await t.req('GET', `/items/posts/2?version=${v}&fields=id,author,comments`);
    expect(admin.body.data.author).toEqual({ name: 'New author', email: 'hidden@example.com', bio: 'hidden' });
    expect(admin.body.data.comments).toEqual({ create: [{ text: 'hidden comment' }], update: [], delete: [] });
    const listed = await t.req('GET', `/versions/${v}?fields=delta`, undefined, as('site'));
    expect(listed.body.data.delta).toEqual({ author: { name: 'New author' }, comments: { create: [], update: [] , delete: [] } });
  });

  it('row permissions still apply: an item the caller cannot read is 403 with or without a version', async () => {
    const draftPost = await t.req('POST', '/versions', { key: 'dp', collection: 'posts', item: '3', delta: { title: 'x' } }, as('editor'));
    expect((await t.req('GET', '/items/posts/3', undefined, as('site'))).status).toBe(403);
    expect((await t.req('GET', `/items/posts/3?version=${draftPost.body.data}`, undefined, as('site'))).status).toBe(403);
  });

  it('without versioning:view -> 403, also for anonymous callers', async () => {
    expect((await t.req('GET', `/items/articles/${ARTICLE}`, undefined, as('reader'))).status).toBe(200);
    expect((await t.req('GET', `/items/articles/${ARTICLE}?version=${articleVersion}`, undefined, as('reader'))).status).toBe(403);
    expect((await t.req('GET', `/items/articles/${ARTICLE}?version=${articleVersion}`, undefined, as(null))).status).toBe(403);
  });
});

describe('list reads', () => {
  it('version on GET /items/{c} -> 400 INVALID_QUERY (overlay is not supported on lists)', async () => {
    const res = await t.req('GET', `/items/posts?version=${postVersion}`);
    expect([res.status, code(res)]).toEqual([400, 'INVALID_QUERY']);
    expect((await t.req('GET', '/items/posts?filter[title][_eq]=version=1')).status).toBe(200);
  });
});
