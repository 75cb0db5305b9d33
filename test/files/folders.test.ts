/** /folders: Directus' shapes, unlimited nesting, parent cycles refused, files let go on delete. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal } from '../helpers/principals.ts';
import { filesApp, upload, type FilesTestApp } from './helpers.ts';

let f: FilesTestApp;
beforeAll(async () => { f = await filesApp(); });
afterAll(async () => { await f.close(); });

async function folder(name: string, parent: string | null = null): Promise<string> {
  const res = await f.t.req('POST', '/folders', { name, parent });
  expect(res.status).toBe(200);
  return res.body.data.id;
}

describe('/folders', () => {
  it('creates, lists, reads, updates and deletes folders', async () => {
    const res = await f.t.req('POST', '/folders', { name: 'Root' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: expect.any(String), name: 'Root', parent: null });
    const id = res.body.data.id;
    expect((await f.t.req('GET', '/folders')).body.data.map((d: any) => d.id)).toContain(id);
    expect((await f.t.req('GET', `/folders/${id}`)).body.data.name).toBe('Root');
    expect((await f.t.req('PATCH', `/folders/${id}`, { name: 'Renamed' })).body.data.name).toBe('Renamed');
    const many = await f.t.req('POST', '/folders', [{ name: 'A' }, { name: 'B' }]);
    expect(many.body.data).toHaveLength(2);
    expect((await f.t.req('DELETE', `/folders/${id}`)).status).toBe(204);
    expect((await f.t.req('GET', `/folders/${id}`)).status).toBe(403);
    expect((await f.t.req('POST', '/folders', {})).status).toBe(400);
  });

  it('nests without a depth limit', async () => {
    let parent: string | null = null;
    const chain: string[] = [];
    for (let i = 0; i < 30; i++) {
      parent = await folder(`level ${i}`, parent);
      chain.push(parent);
    }
    const deepest = await f.t.req('GET', `/folders/${chain[29]}?fields=parent.parent.parent.name`);
    expect(deepest.body.data.parent.parent.parent.name).toBe('level 26');
  });

  it('refuses parent cycles with 400', async () => {
    const a = await folder('a');
    const b = await folder('b', a);
    const c = await folder('c', b);
    for (const [id, parent] of [[a, a], [a, c], [a, b]]) {
      const res = await f.t.req('PATCH', `/folders/${id}`, { parent });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
    expect((await f.t.req('PATCH', '/folders', { keys: [a], data: { parent: c } })).status).toBe(400);
    const x = await folder('x');
    const y = await folder('y');
    expect((await f.t.req('PATCH', '/folders', [{ id: x, parent: y }, { id: y, parent: x }])).status).toBe(400);
    const self = '6f0c3a56-9d1e-4b7a-8c2d-0e1f2a3b4c5d';
    expect((await f.t.req('POST', '/folders', { id: self, name: 'self', parent: self })).status).toBe(400);
    expect((await f.t.req('GET', `/folders/${a}`)).body.data.parent).toBeNull();
    // Moving within the tree is fine.
    expect((await f.t.req('PATCH', `/folders/${c}`, { parent: a })).status).toBe(200);
  });

  it('deleting a folder keeps its files (folder set to null) and lifts its subfolders to the root', async () => {
    const parent = await folder('to delete');
    const child = await folder('child', parent);
    const up = await upload(f.t, [{ name: 'folder', value: parent }, { name: 'file', filename: 'in.txt', type: 'text/plain', data: 'x' }]);
    expect(up.body.data.folder).toBe(parent);
    expect((await f.t.req('DELETE', `/folders/${parent}`)).status).toBe(204);
    expect((await f.t.req('GET', `/files/${up.body.data.id}`)).body.data.folder).toBeNull();
    expect((await f.t.req('GET', `/folders/${child}`)).body.data.parent).toBeNull();
  });

  it('applies permissions', async () => {
    expect((await f.t.req('GET', '/folders', undefined, { token: null })).status).toBe(403);
    await createPrincipal(f.t.services, { token: 'folder-reader', permissions: [{ collection: 'svc_folders', action: 'read' }] });
    expect((await f.t.req('GET', '/folders', undefined, { token: 'folder-reader' })).status).toBe(200);
    expect((await f.t.req('POST', '/folders', { name: 'no' }, { token: 'folder-reader' })).status).toBe(403);
  });
});
