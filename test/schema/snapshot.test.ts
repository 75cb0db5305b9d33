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

/** A schema of one collection, `people`, for the change tests; `extra` fields are added to it. */
async function peopleApp(): Promise<TestApp> {
  const t = await createTestApp();
  const res = await t.req('POST', '/collections', {
    collection: 'people', schema: {}, meta: { note: 'Staff' },
    fields: [
      { field: 'id', type: 'integer', meta: { hidden: true }, schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'name', type: 'string', meta: { interface: 'input' }, schema: { max_length: 50 } },
      { field: 'code', type: 'string', meta: null, schema: {} },
      { field: 'age', type: 'integer', meta: null, schema: {} },
      { field: 'notes', type: 'text', meta: null, schema: {} },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  for (const [name, code, age] of [['Ann Lee', 'A', 31], ['Bo Chen', 'A', 45]] as const) {
    expect((await t.req('POST', '/items/people', { name, code, age, notes: `${name} works here` })).status).toBe(200);
  }
  return t;
}

const snap = async (t: TestApp): Promise<any> => (await t.req('GET', '/schema/snapshot')).body.data;
const editField = (s: any, field: string, fn: (f: any) => void): any => {
  const copy = structuredClone(s);
  fn(copy.fields.find((f: any) => f.collection === 'people' && f.field === field));
  return copy;
};
const people = async (t: TestApp): Promise<any[]> => (await t.req('GET', '/items/people?sort=id&fields=name,code,age,notes')).body.data;

describe('schema apply: changes to a schema with data', () => {
  let t: TestApp;
  beforeAll(async () => { t = await peopleApp(); });
  afterAll(async () => { await t.close(); });

  it('widens a type in place, keeping every value, and is not destructive', async () => {
    const before = await people(t);
    const wanted = editField(editField(await snap(t), 'name', (f) => { f.schema.max_length = 200; }), 'age', (f) => {
      f.type = 'bigInteger';
    });
    const d = await diffTo(t, wanted);
    expect(d.body.data.destructive).toEqual([]);
    expect(d.body.data.diff.fields.map((f: any) => f.field).sort()).toEqual(['age', 'name']);
    expect((await t.req('POST', '/schema/apply', { hash: d.body.data.hash, diff: d.body.data.diff })).status).toBe(204);
    const fields = (await t.req('GET', '/fields/people')).body.data;
    expect(fields.find((f: any) => f.field === 'name').schema.max_length).toBe(200);
    expect(fields.find((f: any) => f.field === 'age').type).toBe('bigInteger');
    expect((await people(t)).map((p) => ({ ...p, age: Number(p.age) }))).toEqual(before);
    expect((await diffTo(t, wanted)).status).toBe(204);
  });

  it('lists data-losing steps apart and changes nothing without allow_destructive', async () => {
    const current = await snap(t);
    // notes goes, name narrows to 10 characters, and code is "renamed" to ref (never guessed: a drop and an add).
    const wanted = editField(current, 'name', (f) => { f.schema.max_length = 10; });
    wanted.fields = wanted.fields.filter((f: any) => f.field !== 'notes').map((f: any) => (f.field === 'code' ? { ...f, field: 'ref', schema: { ...f.schema, name: 'ref' } } : f));
    const d = await diffTo(t, wanted);
    expect(d.status).toBe(200);
    expect(d.body.data.destructive.map((s: any) => [s.kind, s.field])).toEqual([['field', 'code'], ['type', 'name'], ['field', 'notes']]);
    const refused = await t.req('POST', '/schema/apply', { hash: d.body.data.hash, diff: d.body.data.diff });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toBe('The diff loses data: it deletes 2 fields (people.code, people.notes) and narrows the type of 1 field (people.name). Nothing was changed: apply it with allow_destructive to go ahead.');
    expect(refused.body.errors[0].extensions.destructive).toHaveLength(3);
    expect(comparable(await snap(t))).toEqual(comparable(current));
    // A dry run lists the steps and the SQL, and changes nothing either.
    const dry = await t.req('POST', '/schema/apply?dry_run=true', { hash: d.body.data.hash, diff: d.body.data.diff });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.data.steps).toEqual(['add field people.ref (string)', 'change field people.name (max_length)', 'delete field people.code', 'delete field people.notes']);
    expect(dry.body.data.sql).toEqual(expect.arrayContaining([
      expect.stringMatching(/^alter table "people" add column "ref" varchar\(255\)/),
      expect.stringMatching(/^alter table "people" alter column "name" type varchar\(10\)/),
      expect.stringMatching(/^alter table "people" drop column if exists "notes"/),
    ]));
    expect(comparable(await snap(t))).toEqual(comparable(current));
  });

  it('refuses a diff made before another change of the schema (409), and changes nothing', async () => {
    const current = await snap(t);
    const wanted = structuredClone(current);
    wanted.collections.find((c: any) => c.collection === 'people').meta.note = 'Everyone';
    const d = await diffTo(t, wanted);
    expect((await t.req('POST', '/fields/people', { field: 'nickname', type: 'string' })).status).toBe(200);
    const stale = await t.req('POST', '/schema/apply', { hash: d.body.data.hash, diff: d.body.data.diff });
    expect(stale.status).toBe(409);
    expect(stale.body.errors[0].message).toMatch(/changed since this diff was made/);
    expect((await t.req('GET', '/collections/people')).body.data.meta.note).toBe('Staff');
  });

  it('leaves everything as it was when a step fails half-way', async () => {
    const current = await snap(t);
    const wanted = editField(current, 'code', (f) => { f.schema.is_unique = true; });
    wanted.collections.push({ collection: 'teams', meta: null, schema: { name: 'teams', comment: null } });
    wanted.fields.push({ collection: 'teams', field: 'id', type: 'integer', meta: null, schema: { is_primary_key: true, has_auto_increment: true } });
    const d = await diffTo(t, wanted);
    const res = await t.req('POST', '/schema/apply', { hash: d.body.data.hash, diff: d.body.data.diff });
    // Both people have code "A": the unique flag fails after the new table was made.
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/^Step 2 of 2 \(change field people\.code \(is_unique\)\) failed: .*Nothing was changed\.$/);
    expect(await userCollections(t)).toEqual(['people']);
    expect(comparable(await snap(t))).toEqual(comparable(current));
  });

  it('applies the destructive diff with allow_destructive', async () => {
    const current = await snap(t);
    const wanted = structuredClone(current);
    wanted.fields = wanted.fields.filter((f: any) => f.field !== 'notes');
    const res = await applyDiff(t, wanted, '?allow_destructive=true');
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(((await t.req('GET', '/fields/people')).body.data as any[]).map((f) => f.field)).not.toContain('notes');
    expect(((await t.req('GET', '/items/people?sort=id')).body.data as any[]).map((p) => p.name)).toEqual(['Ann Lee', 'Bo Chen']);
    expect((await diffTo(t, wanted)).status).toBe(204);
  });
});

describe('schema apply: a hand-written file', () => {
  it('converges: the properties it leaves out take the defaults, then keep the database\'s values', async () => {
    const t = await createTestApp();
    try {
      const file = {
        version: 1,
        collections: [{ collection: 'books', meta: { note: 'Books' }, schema: { name: 'books' } }],
        fields: [
          { collection: 'books', field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { collection: 'books', field: 'title', type: 'string', meta: { interface: 'input' }, schema: { max_length: 200, is_nullable: false } },
        ],
        relations: [],
      };
      const applied = await applyDiff(t, file);
      expect(applied.status, JSON.stringify(applied.body)).toBe(204);
      expect((await diffTo(t, file)).status).toBe(204);
      const title = (await t.req('GET', '/fields/books/title')).body.data;
      expect(title).toMatchObject({ meta: { interface: 'input', hidden: false }, schema: { max_length: 200, is_nullable: false, data_type: 'character varying' } });
      // A property the file names is still managed: changing it in the file is a diff.
      const changed = structuredClone(file);
      changed.collections[0].meta.note = 'All the books';
      const d = await diffTo(t, changed);
      expect(d.body.data.diff).toMatchObject({ collections: [{ collection: 'books', diff: [{ kind: 'E', path: ['meta', 'note'], rhs: 'All the books' }] }], fields: [] });
    } finally {
      await t.close();
    }
  });
});

describe('schema diff: large schemas', () => {
  it('reads a snapshot beyond MAX_PAYLOAD_SIZE (1 MB) from an admin, up to SCHEMA_MAX_PAYLOAD_SIZE', async () => {
    const big = structuredClone(snapshot);
    big.collections.push({ collection: 'wide', meta: { note: 'n'.repeat(1000) }, schema: { name: 'wide' } });
    big.fields.push({ collection: 'wide', field: 'id', type: 'integer', meta: null, schema: { is_primary_key: true, has_auto_increment: true } });
    for (let i = 0; i < 600; i++) big.fields.push({ collection: 'wide', field: `f${i}`, type: 'string', meta: { note: 'x'.repeat(2000) }, schema: {} });
    expect(JSON.stringify(big).length).toBeGreaterThan(1_200_000);
    const res = await source.req('POST', '/schema/diff', big);
    expect(res.status).toBe(200);
    expect(res.body.data.diff.fields).toHaveLength(601);
    expect((await source.req('POST', '/schema/diff', big, { token: null })).status).toBe(403);
    expect((await source.req('POST', '/items/articles', { title: 'x'.repeat(1_100_000) })).status).toBe(413);
  });
});

describe('schema apply: bad input', () => {
  it.each([
    ['no hash', { diff: { collections: [], fields: [], relations: [] } }, /"hash" is required/],
    ['a path into the prototype', { hash: 'x', diff: { collections: [{ collection: 'people', diff: [{ kind: 'E', path: ['__proto__', 'polluted'], rhs: 1 }] }] } }, /path must be a list/],
    ['a system collection', { hash: 'x', diff: { collections: [{ collection: 'svc_users', diff: [{ kind: 'D', lhs: {} }] }] } }, /system collections/],
    ['an unknown kind', { hash: 'x', diff: { fields: [{ collection: 'a', field: 'b', diff: [{ kind: 'X' }] }] } }, /kind must be N, D, E or A/],
  ])('refuses %s with 400', async (_name, body, message) => {
    const res = await source.req('POST', '/schema/apply', body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(message);
    expect(({} as any).polluted).toBeUndefined();
  });

  it.each([
    ['another version', { version: 2, collections: [] }, /version 2/],
    ['another vendor', { version: 1, vendor: 'mysql', collections: [] }, /mysql/],
    ['a system collection', { version: 1, collections: [{ collection: 'svc_files', meta: null, schema: null }] }, /system collections/],
    ['a collection twice', { version: 1, collections: [{ collection: 'a' }, { collection: 'a' }] }, /twice/],
  ])('refuses a snapshot with %s', async (_name, body, message) => {
    const res = await source.req('POST', '/schema/diff', body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(message);
  });
});
