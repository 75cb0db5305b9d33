/** Concurrent writes through the app: PGlite serialises everything through one connection and pg runs
 * them in parallel; either way each request's transaction must be all-or-nothing and never interleave. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const count = async (sql: string, params: unknown[] = []) => Number((await q<{ n: number }>(`select count(*)::int as n from ${sql}`, params))[0].n);

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
});
afterAll(async () => { await t.close(); });

type Kind = 'create' | 'fail' | 'update' | 'single' | 'single-fail';

function plan(i: number): { kind: Kind; method: string; path: string; body: unknown } {
  const tag = `r${i}`;
  const authors = (emails: string[]) => emails.map((email, n) => ({
    name: `${tag}-a${n}`, email, posts: [{ title: `${tag}-a${n}-p0`, comments: [{ text: `${tag}-c` }] }, { title: `${tag}-a${n}-p1` }],
  }));
  // Single flat creates take the one-statement path (no explicit transaction).
  if (i % 10 === 4) return { kind: 'single', method: 'POST', path: '/items/authors', body: { name: `${tag}-single`, email: `${tag}@x.io` } };
  if (i % 10 === 9) return { kind: 'single-fail', method: 'POST', path: '/items/authors', body: { name: `${tag}-single`, email: 'brian@example.com' } };
  if (i % 4 === 1) {
    // The third author collides with a seeded email after two authors and their posts were written.
    return { kind: 'fail', method: 'POST', path: '/items/authors', body: authors([`${tag}-0@x.io`, `${tag}-1@x.io`, 'ada@example.com']) };
  }
  if (i % 4 === 3) return { kind: 'update', method: 'PATCH', path: '/items/posts', body: { keys: [1 + (i % 5)], data: { views: 1000 + i } } };
  return { kind: 'create', method: 'POST', path: '/items/authors', body: authors([`${tag}-0@x.io`, `${tag}-1@x.io`]) };
}

describe('concurrent writes', () => {
  it('keep every transaction whole', async () => {
    const before = {
      authors: await count('authors'), posts: await count('posts'), comments: await count('comments'),
      activity: await count('svc_activity'), revisions: await count('svc_revisions'),
    };
    const requests = Array.from({ length: 40 }, (_, i) => plan(i));
    const results = await Promise.all(requests.map((r) => t.req(r.method, r.path, r.body)));

    let created = 0;
    let updates = 0;
    let singles = 0;
    for (const [i, r] of requests.entries()) {
      const res = results[i];
      const tag = `r${i}`;
      if (r.kind === 'single-fail') {
        expect(res.status, tag).toBe(409);
        expect(await count('authors where name = $1', [`${tag}-single`])).toBe(0);
        continue;
      }
      if (r.kind === 'single') {
        expect(res.status, tag).toBe(200);
        singles++;
        expect((await q('select name from authors where id = $1', [res.body.data]))[0].name).toBe(`${tag}-single`);
        expect(await count("svc_revisions where collection = 'authors' and item = $1", [String(res.body.data)])).toBe(1);
        continue;
      }
      if (r.kind === 'fail') {
        expect(res.status, tag).toBe(409);
        expect(res.body.errors.map((e: any) => e.extensions.code)).toEqual(['RECORD_NOT_UNIQUE']);
        expect(await count('authors where name like $1', [`${tag}-%`])).toBe(0);
        expect(await count('posts where title like $1', [`${tag}-%`])).toBe(0);
        expect(await count('comments where text = $1', [`${tag}-c`])).toBe(0);
        continue;
      }
      expect(res.status, `${tag}: ${JSON.stringify(res.body)}`).toBe(200);
      if (r.kind === 'update') {
        updates++;
        expect(res.body.data).toEqual([1 + (i % 5)]);
        continue;
      }
      created++;
      expect(res.body.data).toHaveLength(2);
      for (const [n, id] of (res.body.data as number[]).entries()) {
        expect((await q('select name from authors where id = $1', [id]))[0].name).toBe(`${tag}-a${n}`);
        const posts = await q('select id, title from posts where author = $1 order by title', [id]);
        expect(posts.map((p) => p.title)).toEqual([`${tag}-a${n}-p0`, `${tag}-a${n}-p1`]);
        expect(await count('comments where post = $1 and text = $2', [posts[0].id, `${tag}-c`])).toBe(1);
        expect(await count("svc_activity where collection = 'authors' and item = $1 and action = 'create'", [String(id)])).toBe(1);
        for (const p of posts) expect(await count("svc_activity where collection = 'posts' and item = $1 and action = 'create'", [String(p.id)])).toBe(1);
        // Nested revisions hang under the author's revision.
        const [authorRev] = await q("select id from svc_revisions where collection = 'authors' and item = $1", [String(id)]);
        expect(await count("svc_revisions where collection = 'posts' and parent = $1", [authorRev.id])).toBe(2);
      }
    }

    // Each successful create wrote 2 authors, 4 posts and 2 comments: 8 activity rows and 8 revisions.
    expect(await count('authors')).toBe(before.authors + created * 2 + singles);
    expect(await count('posts')).toBe(before.posts + created * 4);
    expect(await count('comments')).toBe(before.comments + created * 2);
    expect(await count('svc_activity')).toBe(before.activity + created * 8 + updates + singles);
    expect(await count('svc_revisions')).toBe(before.revisions + created * 8 + updates + singles);
    expect({ created, updates, singles }).toEqual({ created: 16, updates: 8, singles: 4 });
    // Every activity row's revision belongs to it.
    expect(await count('svc_revisions r join svc_activity a on a.id = r.activity where a.collection <> r.collection or a.item <> r.item')).toBe(0);
  });
});
