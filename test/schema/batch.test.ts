/** Batch schema endpoints: PATCH /fields/{collection} and PATCH /collections with arrays of changes, each all
 * or nothing in one transaction and one schema version bump. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { columnsOf, createAppUser, secondInstance, type SecondInstance } from './helpers.ts';

const MAX_BATCH = 5;
let t: TestApp & { database: TestDatabase };
let b: SecondInstance;

const version = async (): Promise<number> => Number((await t.services.store.get('schema:version')) ?? '0');

beforeAll(async () => {
  t = await createTestApp({ env: { MAX_BATCH_MUTATION: String(MAX_BATCH) } });
  b = await secondInstance(t);
  const books = await t.req('POST', '/collections', {
    collection: 'books', schema: {}, meta: { note: 'Books' },
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'title', type: 'string' },
      { field: 'pages', type: 'integer' },
      { field: 'notes', type: 'text', meta: { note: 'Free text' } },
    ],
  });
  expect(books.status).toBe(200);
  expect((await t.req('POST', '/collections', { collection: 'authors', schema: {} })).status).toBe(200);
  expect((await t.req('POST', '/collections', { collection: 'shelf', schema: null, meta: { icon: 'folder' } })).status).toBe(200);
  expect((await t.req('POST', '/items/books', [{ title: 'A', pages: 100 }, { title: 'B', pages: 200, notes: 'x' }])).status).toBe(200);
});
afterAll(async () => {
  await b.close();
  await t.close();
});

/** Everything a fields batch could touch: the API view, the catalogue, the metadata rows, the version. */
async function fieldState(collection: string): Promise<unknown> {
  return {
    api: (await t.req('GET', `/fields/${collection}`)).body.data,
    columns: await columnsOf(t, collection),
    meta: await run(t.services.database.db, 'select * from svc_fields where collection = $1 order by field', [collection]),
    version: await version(),
  };
}

async function collectionState(): Promise<unknown> {
  return {
    api: (await t.req('GET', '/collections')).body.data,
    meta: await run(t.services.database.db, 'select * from svc_collections order by collection'),
    version: await version(),
  };
}

describe('PATCH /fields/{collection}', () => {
  it('applies every change of a valid batch with one schema version bump and answers the fields in order', async () => {
    const before = await version();
    const res = await t.req('PATCH', '/fields/books', [
      { field: 'title', meta: { note: 'Book title', required: true }, schema: { max_length: 120 } },
      { field: 'pages', type: 'bigInteger' },
      { collection: 'books', field: 'notes', meta: { hidden: true } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((f: { field: string }) => f.field)).toEqual(['title', 'pages', 'notes']);
    expect(res.body.data[0]).toMatchObject({
      collection: 'books', field: 'title', type: 'string',
      meta: { note: 'Book title', required: true }, schema: { max_length: 120 },
    });
    expect(res.body.data[1]).toMatchObject({ field: 'pages', type: 'bigInteger', schema: { data_type: 'bigint' } });
    expect(res.body.data[2]).toMatchObject({ field: 'notes', type: 'text', meta: { hidden: true, note: 'Free text' } });
    expect(await version()).toBe(before + 1);

    const cols = await columnsOf(t, 'books');
    expect(cols.pages.type).toBe('bigint');
    expect(cols.title.type).toBe('character varying');
    const listed = await t.req('GET', '/fields/books');
    expect(listed.body.data.find((f: { field: string }) => f.field === 'pages').type).toBe('bigInteger');
    // Existing rows survived the conversion.
    expect((await t.req('GET', '/items/books?sort=id&fields=title,pages')).body.data).toEqual([{ title: 'A', pages: '100' }, { title: 'B', pages: '200' }]);
  });

  it.each([
    ['a payload error', { field: 'notes', schema: { is_nullable: 'no' } }, 400, 'INVALID_PAYLOAD', /notes/],
    // Row "A" has no notes, so Postgres refuses NOT NULL: the earlier DDL of the batch must roll back with it.
    ['a refusal by the database', { field: 'notes', schema: { is_nullable: false } }, 400, 'INVALID_PAYLOAD', /notes/],
    ['an unknown field', { field: 'nope', meta: { note: 'x' } }, 404, 'FIELD_NOT_FOUND', /nope/],
    ['a type change across alias and column', { field: 'notes', type: 'alias' }, 400, 'INVALID_PAYLOAD', /notes/],
  ])('changes nothing when the last change is %s', async (_name, last, status, code, message) => {
    const before = await fieldState('books');
    const res = await t.req('PATCH', '/fields/books', [
      { field: 'title', meta: { note: 'changed' }, schema: { max_length: 50, is_nullable: false } },
      { field: 'pages', type: 'string', meta: { note: 'changed' } },
      last,
    ]);
    expect(res.status).toBe(status);
    expect(res.body.errors[0].extensions.code).toBe(code);
    expect(res.body.errors[0].message).toMatch(message);
    expect(await fieldState('books')).toEqual(before);
  });

  it('refuses bad shapes with a 4xx in the error envelope and changes nothing', async () => {
    const appToken = await createAppUser(t, { readable: { books: null } });
    const before = await fieldState('books');
    const cases: [unknown, number, string, { path?: string; token?: string }?][] = [
      [{ field: 'title', meta: { note: 'x' } }, 400, 'INVALID_PAYLOAD'],
      ['"title"', 400, 'INVALID_PAYLOAD'],
      ['[{"field": "title"', 400, 'INVALID_PAYLOAD'],
      [[{}], 400, 'INVALID_PAYLOAD'],
      [[null], 400, 'INVALID_PAYLOAD'],
      [['title'], 400, 'INVALID_PAYLOAD'],
      [[{ field: 'title', meta: { note: 'x' } }, {}], 400, 'INVALID_PAYLOAD'],
      [[{ meta: { note: 'x' } }], 400, 'INVALID_PAYLOAD'],
      [[{ field: 42 }], 400, 'INVALID_PAYLOAD'],
      [[{ field: 'title', meta: { note: 'x' } }, { field: 'title', meta: { note: 'y' } }], 400, 'INVALID_PAYLOAD'],
      [[{ field: 'title', collection: 'authors', meta: { note: 'x' } }], 400, 'INVALID_PAYLOAD'],
      [[{ field: 'title', type: 'nonsense' }], 400, 'INVALID_PAYLOAD'],
      [[{ field: 'title', meta: 'x' }], 400, 'INVALID_PAYLOAD'],
      [Array.from({ length: MAX_BATCH + 1 }, () => ({ field: 'title', meta: { note: 'x' } })), 400, 'INVALID_PAYLOAD'],
      [[{ field: 'nope', meta: { note: 'x' } }], 404, 'FIELD_NOT_FOUND'],
      [[{ field: 'id', meta: { note: 'x' } }], 404, 'COLLECTION_NOT_FOUND', { path: '/fields/unknown_thing' }],
      [[{ field: 'title', meta: { note: 'x' } }], 403, 'FORBIDDEN', { token: appToken }],
      [[{ field: 'email', meta: { note: 'x' } }], 403, 'FORBIDDEN', { path: '/fields/svc_users' }],
    ];
    for (const [body, status, code, opts] of cases) {
      const res = await t.req('PATCH', opts?.path ?? '/fields/books', body, opts?.token ? { token: opts.token } : {});
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.errors[0].extensions.code, JSON.stringify(body)).toBe(code);
    }
    expect(await fieldState('books')).toEqual(before);
  });

  it('answers an empty batch with an empty list and no schema change', async () => {
    const before = await version();
    const res = await t.req('PATCH', '/fields/books', []);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(await version()).toBe(before);
    expect((await t.req('PATCH', '/fields/unknown_thing', [])).status).toBe(404);
  });
});

describe('PATCH /collections', () => {
  it('applies every change of a valid batch with one schema version bump and answers the collections', async () => {
    const before = await version();
    const res = await t.req('PATCH', '/collections', [
      { collection: 'books', meta: { note: 'All books', group: 'shelf', sort: 1 } },
      { collection: 'authors', meta: { hidden: true, group: 'shelf', sort: 2 } },
      { collection: 'books', meta: { icon: 'book' } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data[0]).toMatchObject({ collection: 'books', meta: { note: 'All books', group: 'shelf', sort: 1, icon: 'book' }, schema: { name: 'books' } });
    expect(res.body.data[1]).toMatchObject({ collection: 'authors', meta: { hidden: true, group: 'shelf', sort: 2 }, schema: { name: 'authors' } });
    expect(await version()).toBe(before + 1);
    const list = await t.req('GET', '/collections');
    const byName = new Map(list.body.data.map((c: { collection: string }) => [c.collection, c]));
    expect(byName.get('books')).toMatchObject({ meta: { group: 'shelf', note: 'All books' } });
    expect(byName.get('authors')).toMatchObject({ meta: { group: 'shelf', hidden: true } });
  });

  it.each([
    ['a payload error', { collection: 'authors', meta: { hidden: 'yes' } }, 400, 'INVALID_PAYLOAD', /authors/],
    ['an unknown collection', { collection: 'ghosts', meta: { note: 'x' } }, 404, 'COLLECTION_NOT_FOUND', /ghosts/],
    ['a system collection', { collection: 'svc_users', meta: { note: 'x' } }, 403, 'FORBIDDEN', /System/],
    ['a group that does not exist', { collection: 'authors', meta: { group: 'nowhere' } }, 400, 'INVALID_PAYLOAD', /nowhere/],
    ['a group nesting a folder inside itself', { collection: 'shelf', meta: { group: 'authors' } }, 400, 'INVALID_PAYLOAD', /inside itself/],
  ])('changes nothing when the last change is %s', async (_name, last, status, code, message) => {
    const before = await collectionState();
    const res = await t.req('PATCH', '/collections', [
      { collection: 'books', meta: { note: 'changed', group: null } },
      { collection: 'shelf', meta: { note: 'changed' } },
      last,
    ]);
    expect(res.status).toBe(status);
    expect(res.body.errors[0].extensions.code).toBe(code);
    expect(res.body.errors[0].message).toMatch(message);
    expect(await collectionState()).toEqual(before);
  });

  it('refuses bad shapes with a 4xx in the error envelope and changes nothing', async () => {
    const appToken = await createAppUser(t, { readable: { books: null } });
    const before = await collectionState();
    const cases: [unknown, number, string, string?][] = [
      [{ collection: 'books', meta: { note: 'x' } }, 400, 'INVALID_PAYLOAD'],
      ['not json', 400, 'INVALID_PAYLOAD'],
      [[{}], 400, 'INVALID_PAYLOAD'],
      [[null], 400, 'INVALID_PAYLOAD'],
      [[{ collection: 'books', meta: { note: 'x' } }, []], 400, 'INVALID_PAYLOAD'],
      [[{ meta: { note: 'x' } }], 400, 'INVALID_PAYLOAD'],
      [[{ collection: 7, meta: { note: 'x' } }], 400, 'INVALID_PAYLOAD'],
      [[{ collection: 'books', meta: 'x' }], 400, 'INVALID_PAYLOAD'],
      [[{ collection: 'books', meta: { group: 'books' } }], 400, 'INVALID_PAYLOAD'],
      [[{ collection: 'books', meta: { group: 'svc_users' } }], 400, 'INVALID_PAYLOAD'],
      [Array.from({ length: MAX_BATCH + 1 }, () => ({ collection: 'books', meta: { note: 'x' } })), 400, 'INVALID_PAYLOAD'],
      [[{ collection: 'books', meta: { note: 'x' } }], 403, 'FORBIDDEN', appToken],
    ];
    for (const [body, status, code, token] of cases) {
      const res = await t.req('PATCH', '/collections', body, token ? { token } : {});
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.errors[0].extensions.code, JSON.stringify(body)).toBe(code);
    }
    expect(await collectionState()).toEqual(before);
    const empty = await t.req('PATCH', '/collections', []);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    expect(await collectionState()).toEqual(before);
  });

  it('checks nesting once at the end, so a batch may pass through an intermediate state', async () => {
    // books is in shelf; nesting shelf under books is only valid because books leaves shelf later in the batch.
    const res = await t.req('PATCH', '/collections', [
      { collection: 'shelf', meta: { group: 'books' } },
      { collection: 'books', meta: { group: null } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { meta: { group: string | null } }) => c.meta.group)).toEqual(['books', null]);
    const back = await t.req('PATCH', '/collections', [
      { collection: 'shelf', meta: { group: null } },
      { collection: 'books', meta: { group: 'shelf' } },
    ]);
    expect(back.status).toBe(200);
  });
});

describe('batches across instances', () => {
  it('a second instance sees the whole change, never part of it', async () => {
    const created = await t.req('POST', '/collections', {
      collection: 'journals', schema: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
        { field: 'a', type: 'integer' }, { field: 'b', type: 'integer' }, { field: 'c', type: 'string' },
      ],
    });
    expect(created.status).toBe(200);
    const types = (res: { body: { data: { field: string; type: string }[] } }) => res.body.data.filter((f) => f.field !== 'id').map((f) => f.type).join(',');
    const OLD = 'integer,integer,string';
    const NEW = 'bigInteger,float,text';
    expect(types(await b.req('GET', '/fields/journals'))).toBe(OLD); // B's cache is warm with the old schema

    // B reads while A's batch runs: each answer is wholly old or wholly new.
    let done = false;
    const seen: string[] = [];
    const poll = (async () => {
      while (!done) seen.push(types(await b.req('GET', '/fields/journals')));
    })();
    const res = await t.req('PATCH', '/fields/journals', [
      { field: 'a', type: 'bigInteger' }, { field: 'b', type: 'float' }, { field: 'c', type: 'text', meta: { note: 'long' } },
    ]);
    done = true;
    await poll;
    expect(res.status).toBe(200);
    for (const s of seen) expect([OLD, NEW]).toContain(s);
    const after = await b.req('GET', '/fields/journals');
    expect(types(after)).toBe(NEW);
    expect(after.body.data.find((f: { field: string }) => f.field === 'c').meta.note).toBe('long');

    // A failed batch leaves B's view as it was.
    const failed = await t.req('PATCH', '/fields/journals', [{ field: 'a', type: 'integer' }, { field: 'missing', type: 'integer' }]);
    expect(failed.status).toBe(404);
    expect(types(await b.req('GET', '/fields/journals'))).toBe(NEW);

    expect((await b.req('GET', '/collections/journals')).body.data.meta.group).toBeNull();
    const moved = await t.req('PATCH', '/collections', [
      { collection: 'journals', meta: { group: 'shelf', note: 'Periodicals' } },
      { collection: 'shelf', meta: { note: 'Everything' } },
    ]);
    expect(moved.status).toBe(200);
    expect((await b.req('GET', '/collections/journals')).body.data.meta).toMatchObject({ group: 'shelf', note: 'Periodicals' });
    expect((await b.req('GET', '/collections/shelf')).body.data.meta).toMatchObject({ note: 'Everything' });
  });
});
