/** Hostile input on the write path: always a 4xx envelope, never a 500, nothing half-written. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';

let t: TestApp;
const count = async (table: string) => Number((await run<{ n: number }>(t.services.database.db, `select count(*)::int as n from ${table}`))[0].n);

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
});
afterAll(async () => { await t.close(); });

describe('hostile input', () => {
  it('handles very deeply nested JSON values', async () => {
    for (const depth of [5_000, 20_000, 60_000, 150_000]) {
      const meta = '['.repeat(depth) + ']'.repeat(depth);
      const res = await t.req('POST', '/items/posts', `{"title": "deep", "meta": ${meta}}`);
      expect([200, 400], JSON.stringify(res.body).slice(0, 300)).toContain(res.status);
    }
  });

  it('handles deeply nested relational objects without a stack overflow', async () => {
    // Each child's foreign key overrides its nested `author` (as in Directus), so this writes 2 rows.
    let author = '{"name": "x"}';
    for (let i = 0; i < 2_000; i++) author = `{"name": "x", "posts": [{"title": "t", "author": ${author}}]}`;
    const res = await t.req('POST', '/items/authors', author);
    expect(res.status).toBe(200);
  });

  it.each([
    ['PATCH', `/items/tags/${'x'.repeat(5000)}`, { label: 'x' }],
    ['PATCH', '/items/posts/%27%3B%20drop%20table%20posts%3B--', { title: 'x' }],
    ['DELETE', '/items/comments/00000000-0000-4000-8000-00000000000Z', undefined],
    ['PATCH', '/items/posts/-0', { title: 'x' }],
    ['PATCH', '/items/posts/1e3', { title: 'x' }],
  ])('%s %s -> 403', async (method, path, body) => {
    const before = await count('posts');
    const res = await t.req(method, path, body);
    expect(res.status).toBe(403);
    expect(await count('posts')).toBe(before);
  });

  it('rejects strings with NUL bytes as invalid payload', async () => {
    const res = await t.req('POST', '/items/posts', { title: 'a\u0000b' });
    expect(res.status).toBe(400);
  });

  it('rejects an M2O object with a key of the wrong type', async () => {
    const res = await t.req('POST', '/items/posts', { title: 'x', author: { id: 'abc', name: 'n' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toMatchObject({ collection: 'authors', field: 'id' });
  });

  it('answers numbers out of range with 400', async () => {
    expect((await t.req('POST', '/items/posts', { big: '99999999999999999999' })).status).toBe(400);
    expect((await t.req('POST', '/items/posts', { rating: '1e400' })).status).toBe(400);
    expect((await t.req('POST', '/items/authors', { name: 'x', score: '1e400' })).status).toBe(400);
    expect((await t.req('POST', '/items/posts', { views: 1e300 })).status).toBe(400);
  });
});
