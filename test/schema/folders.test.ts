/** Folders of collections: collections without a table that group others through `meta.group`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createAppUser, tableExists } from './helpers.ts';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

const groupOf = async (collection: string): Promise<unknown> => (await t.req('GET', `/collections/${collection}`)).body.data.meta.group;
const metaRow = async (collection: string): Promise<unknown[]> => run(t.services.database.db, 'select * from svc_collections where collection = $1', [collection]);

describe('creating folders', () => {
  it('makes a folder when "schema" is absent or null, or with folder: true, and never a table', async () => {
    for (const body of [
      { collection: 'library', meta: { icon: 'folder', note: 'Everything to read' } },
      { collection: 'archive', meta: { icon: 'inventory' }, schema: null },
      { collection: 'drafts', folder: true },
    ]) {
      const res = await t.req('POST', '/collections', body);
      expect(res.status, body.collection).toBe(200);
      expect(res.body.data).toMatchObject({ collection: body.collection, schema: null, meta: { collection: body.collection, group: null } });
      expect(await tableExists(t, body.collection)).toBe(false);
      expect((await t.req('GET', `/fields/${body.collection}`)).body.data).toEqual([]);
    }
    expect((await t.req('GET', '/collections/library')).body.data).toMatchObject({ schema: null, meta: { note: 'Everything to read' } });
  });

  it('refuses fields for a folder instead of dropping them', async () => {
    for (const body of [
      { collection: 'half', fields: [{ field: 'title', type: 'string' }] },
      { collection: 'half', schema: null, fields: [{ field: 'title', type: 'string' }] },
      { collection: 'half', folder: true, fields: [{ field: 'title', type: 'string' }] },
    ]) {
      const res = await t.req('POST', '/collections', body);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
      expect(res.body.errors[0].message).toMatch(/folder/);
      expect(await metaRow('half')).toHaveLength(0);
      expect(await tableExists(t, 'half')).toBe(false);
    }
  });

  it('refuses table fields in a folder', async () => {
    const res = await t.req('POST', '/fields/library', { field: 'title', type: 'string' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect(await tableExists(t, 'library')).toBe(false);
  });
});

describe('nesting through meta.group', () => {
  it('nests new and existing collections and folders, and shows the group in GET /collections', async () => {
    const novels = await t.req('POST', '/collections', { collection: 'novels', schema: {}, meta: { group: 'library', sort: 1 } });
    expect(novels.status).toBe(200);
    expect(novels.body.data).toMatchObject({ meta: { group: 'library' }, schema: { name: 'novels' } });
    expect((await t.req('POST', '/collections', { collection: 'poems', schema: {} })).status).toBe(200);
    const moved = await t.req('PATCH', '/collections/poems', { meta: { group: 'library', sort: 2 } });
    expect(moved.status).toBe(200);
    expect(moved.body.data.meta.group).toBe('library');
    const sub = await t.req('POST', '/collections', { collection: 'classics', meta: { group: 'library' } });
    expect(sub.body.data).toMatchObject({ schema: null, meta: { group: 'library' } });
    // A collection with a table can hold others too, as in Directus.
    expect((await t.req('POST', '/collections', { collection: 'sonnets', schema: {}, meta: { group: 'poems' } })).status).toBe(200);

    const list = await t.req('GET', '/collections');
    const groups = Object.fromEntries(list.body.data.map((c: { collection: string; meta: { group?: string | null } | null }) => [c.collection, c.meta?.group ?? null]));
    expect(groups).toMatchObject({ library: null, novels: 'library', poems: 'library', classics: 'library', sonnets: 'poems' });
  });

  it('shows an app user the folders above what they can read, and nothing else', async () => {
    const token = await createAppUser(t, { readable: { sonnets: null } });
    const list = await t.req('GET', '/collections', undefined, { token });
    expect(list.status).toBe(200);
    const names = list.body.data.map((c: { collection: string }) => c.collection).filter((c: string) => !c.startsWith('svc_')).sort();
    expect(names).toEqual(['library', 'poems', 'sonnets']);
  });

  it('refuses a group that is missing, a system collection, the collection itself, or one inside it', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['POST', { collection: 'orphans', schema: {}, meta: { group: 'nowhere' } }, /"nowhere" doesn't exist/],
      ['POST', { collection: 'orphans', meta: { group: 'svc_users' } }, /system collection/],
      ['POST', { collection: 'orphans', meta: { group: 'orphans' } }, /its own group/],
      ['POST', { collection: 'orphans', meta: { group: 42 } }, /meta.group/],
      ['PATCH novels', { meta: { group: 'nowhere' } }, /"nowhere" doesn't exist/],
      ['PATCH novels', { meta: { group: 'novels' } }, /its own group/],
      ['PATCH library', { meta: { group: 'classics' } }, /inside itself/],
      ['PATCH library', { meta: { group: 'sonnets' } }, /inside itself/],
    ];
    for (const [what, body, message] of cases) {
      const res = what === 'POST'
        ? await t.req('POST', '/collections', body)
        : await t.req('PATCH', `/collections/${what.split(' ')[1]}`, body);
      expect(res.status, `${what} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
      expect(res.body.errors[0].message).toMatch(message);
    }
    expect(await metaRow('orphans')).toHaveLength(0);
    expect(await tableExists(t, 'orphans')).toBe(false);
    expect(await groupOf('novels')).toBe('library');
    expect(await groupOf('library')).toBeNull();
  });
});

describe('deleting groups', () => {
  it('refuses to delete a collection that still holds others, and changes nothing', async () => {
    const res = await t.req('DELETE', '/collections/library');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect(res.body.errors[0].message).toBe('Collection "library" still contains "classics", "novels", "poems"; move or delete them first.');
    expect((await t.req('GET', '/collections/library')).status).toBe(200);
    expect(await groupOf('novels')).toBe('library');

    // The same for a collection with a table: its table stays.
    const poems = await t.req('DELETE', '/collections/poems');
    expect(poems.status).toBe(400);
    expect(poems.body.errors[0].message).toMatch(/"sonnets"; move or delete it first/);
    expect(await tableExists(t, 'poems')).toBe(true);
  });

  it('deletes a group once it is empty', async () => {
    expect((await t.req('DELETE', '/collections/sonnets')).status).toBe(204);
    expect((await t.req('DELETE', '/collections/poems')).status).toBe(204);
    expect((await t.req('DELETE', '/collections/classics')).status).toBe(204); // an empty folder
    expect((await t.req('DELETE', '/collections/library')).status).toBe(400); // novels is still inside
    expect((await t.req('PATCH', '/collections/novels', { meta: { group: null } })).status).toBe(200);
    expect((await t.req('DELETE', '/collections/library')).status).toBe(204);
    expect((await t.req('GET', '/collections/library')).status).toBe(404);
    expect(await metaRow('library')).toHaveLength(0);
    expect(await groupOf('novels')).toBeNull();
    expect(await tableExists(t, 'novels')).toBe(true);
  });
});

describe('items endpoints on a folder', () => {
  it.each([
    ['GET', '/items/archive', undefined],
    ['GET', '/items/archive/1', undefined],
    ['POST', '/items/archive', { title: 'x' }],
    ['POST', '/items/archive', [{ title: 'x' }]],
    ['POST', '/items/archive/search', { filter: { id: { _eq: 1 } } }],
    ['PATCH', '/items/archive/1', { title: 'x' }],
    ['PATCH', '/items/archive', { keys: [1], data: { title: 'x' } }],
    ['DELETE', '/items/archive/1', undefined],
    ['DELETE', '/items/archive', { keys: [1] }],
  ])('%s %s answers COLLECTION_NOT_FOUND in the error envelope', async (method, path, body) => {
    const res = await t.req(method, path, body);
    expect(res.status).toBe(404);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions.code).toBe('COLLECTION_NOT_FOUND');
    expect(res.body.errors[0].message).toBe('Collection "archive" doesn\'t exist.');
  });
});
