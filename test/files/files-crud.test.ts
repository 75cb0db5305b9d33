/** GET/PATCH/DELETE /files, replacement by multipart PATCH, tus rows hidden, permissions, objectstore. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { filesApp, multipart, send, upload, type FilesTestApp } from './helpers.ts';

let f: FilesTestApp;

beforeAll(async () => { f = await filesApp(); });
afterAll(async () => { await f.close(); });

async function textFile(name: string, data: string, extra: { name: string; value: string }[] = []): Promise<any> {
  const res = await upload(f.t, [...extra, { name: 'file', filename: name, type: 'text/plain', data }]);
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('files JSON endpoints', () => {
  it('lists and reads files, hiding incomplete resumable uploads', async () => {
    const file = await textFile('list.txt', 'listed');
    const tusId = randomUUID();
    await run(f.t.services.database.db, "insert into svc_files (id, storage, filename_download, tus_id) values ($1, 'local', 'partial.bin', 'abc')", [tusId]);
    const list = await f.t.req('GET', '/files?limit=-1&meta=total_count');
    expect(list.status).toBe(200);
    const ids = list.body.data.map((d: any) => d.id);
    expect(ids).toContain(file.id);
    expect(ids).not.toContain(tusId);
    expect(list.body.meta.total_count).toBe(list.body.data.length);
    const both = await f.t.req('GET', '/files?meta=*&filter[filename_download][_eq]=list.txt');
    expect(both.body.meta).toEqual({ total_count: list.body.data.length, filter_count: 1 });
    expect((await f.t.req('GET', `/files/${file.id}`)).body.data.filename_download).toBe('list.txt');
    expect((await f.t.req('GET', `/files/${tusId}`)).status).toBe(403);
    expect((await f.t.req('GET', `/files/${randomUUID()}`)).status).toBe(403);
    expect((await f.t.req('GET', `/files/${file.id}?fields=id,title`)).body.data).toEqual({ id: file.id, title: 'List' });
    // storage-locations is not shadowed by /files/:id
    expect((await f.t.req('GET', '/files/storage-locations')).body.data).toContain('local');
  });

  it('hides incomplete uploads from a role that may not read tus_id', async () => {
    const file = await textFile('visible.txt', 'v');
    const tusId = randomUUID();
    await run(f.t.services.database.db, "insert into svc_files (id, storage, filename_download, tus_id) values ($1, 'local', 'partial2.bin', 'def')", [tusId]);
    await createPrincipal(f.t.services, { token: 'narrow-reader', permissions: [{ collection: 'svc_files', action: 'read', fields: ['id', 'title'] }] });
    const list = await f.t.req('GET', '/files?limit=-1', undefined, { token: 'narrow-reader' });
    expect(list.status).toBe(200);
    const ids = list.body.data.map((d: any) => d.id);
    expect(ids).toContain(file.id);
    expect(ids).not.toContain(tusId);
    const counted = await f.t.req('GET', '/files?limit=1&meta=total_count', undefined, { token: 'narrow-reader' });
    expect(counted.body.meta.total_count).toBe(list.body.data.length);
    expect(list.body.data[0]).toEqual({ id: expect.any(String), title: expect.anything() });
  });

  it('GET /files/{id} needs authentication', async () => {
    const file = await textFile('auth.txt', 'x');
    expect((await f.t.req('GET', `/files/${file.id}`, undefined, { token: null })).status).toBe(401);
  });

  it('PATCH /files/{id} with JSON updates metadata and stamps modified_by', async () => {
    const file = await textFile('meta.txt', 'meta');
    const res = await f.t.req('PATCH', `/files/${file.id}`, { title: 'New title', description: 'd', tags: ['x'], focal_point_x: 3, location: 'Berlin', filename_download: 'renamed.txt' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ title: 'New title', description: 'd', tags: ['x'], focal_point_x: 3, location: 'Berlin', filename_download: 'renamed.txt' });
    expect(res.body.data.modified_by).toBeTruthy();
    // Server fields can't be set by clients.
    const sneaky = await f.t.req('PATCH', `/files/${file.id}`, { filename_disk: '../../x', filesize: 1 });
    expect(sneaky.status).toBe(200);
    expect(sneaky.body.data.filename_disk).toBe(file.filename_disk);
    expect(String(sneaky.body.data.filesize)).toBe('4');
  });

  it('PATCH /files with keys updates several', async () => {
    const a = await textFile('a.txt', 'a');
    const b = await textFile('b.txt', 'b');
    const res = await f.t.req('PATCH', '/files', { keys: [a.id, b.id], data: { description: 'both' } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: any) => d.description)).toEqual(['both', 'both']);
  });

  it('DELETE /files/{id} removes the row, the object and cached transforms', async () => {
    const file = await textFile('gone.txt', 'bye');
    const base = file.id;
    writeFileSync(join(f.root, `${base}__w100.webp`), 'cached');
    expect(existsSync(join(f.root, file.filename_disk))).toBe(true);
    expect((await f.t.req('DELETE', `/files/${file.id}`)).status).toBe(204);
    expect(existsSync(join(f.root, file.filename_disk))).toBe(false);
    expect(existsSync(join(f.root, `${base}__w100.webp`))).toBe(false);
    expect((await f.t.req('GET', `/files/${file.id}`)).status).toBe(403);
  });

  it('DELETE /files with keys removes several', async () => {
    const a = await textFile('d1.txt', '1');
    const b = await textFile('d2.txt', '2');
    expect((await f.t.req('DELETE', '/files', { keys: [a.id, b.id] })).status).toBe(204);
    expect(f.stored()).not.toContain(a.filename_disk);
    expect(f.stored()).not.toContain(b.filename_disk);
  });

  it('replaces the content by multipart PATCH: same id, old object and transforms gone', async () => {
    const file = await textFile('doc.txt', 'old content');
    writeFileSync(join(f.root, `${file.id}__cached.txt`), 'cached');
    const png = await sharp({ create: { width: 12, height: 7, channels: 4, background: '#ff0000' } }).png().toBuffer();
    const res = await send(f.t, 'PATCH', `/files/${file.id}`, multipart([{ name: 'file', filename: 'new.png', type: 'image/png', data: png }]));
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ id: file.id, filename_disk: `${file.id}.png`, type: 'image/png', width: 12, height: 7 });
    expect(String(d.filesize)).toBe(String(png.length));
    expect(d.modified_by).toBeTruthy();
    expect(existsSync(join(f.root, file.filename_disk))).toBe(false);
    expect(existsSync(join(f.root, `${file.id}__cached.txt`))).toBe(false);
    expect(readFileSync(join(f.root, `${file.id}.png`)).equals(png)).toBe(true);
  });

  it('a replacement over the limit leaves the old content in place', async () => {
    const g = await filesApp({ FILES_MAX_UPLOAD_SIZE: '1kb' });
    try {
      const ok = await upload(g.t, [{ name: 'file', filename: 'keep.txt', type: 'text/plain', data: 'keep me' }]);
      const file = ok.body.data;
      const res = await send(g.t, 'PATCH', `/files/${file.id}`, multipart([{ name: 'file', filename: 'keep.txt', type: 'text/plain', data: 'y'.repeat(5000) }]));
      expect(res.status).toBe(413);
      expect(readFileSync(join(g.root, file.filename_disk), 'utf8')).toBe('keep me');
      expect(String((await g.t.req('GET', `/files/${file.id}`)).body.data.filesize)).toBe('7');
    } finally {
      await g.close();
    }
  });

  it('a replacement whose bytes are a refused type leaves the old content in place', async () => {
    const g = await filesApp({ FILES_MIME_TYPE_ALLOW_LIST: 'text/*' });
    try {
      const file = (await upload(g.t, [{ name: 'file', filename: 'keep.txt', type: 'text/plain', data: 'keep me' }])).body.data;
      const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: 'red' } }).png().toBuffer();
      const res = await send(g.t, 'PATCH', `/files/${file.id}`, multipart([{ name: 'file', filename: 'keep.txt', type: 'text/plain', data: png }]));
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(readFileSync(join(g.root, file.filename_disk), 'utf8')).toBe('keep me');
      expect(g.stored()).toEqual([file.filename_disk]);
    } finally {
      await g.close();
    }
  });

  it('permissions: read/update/delete need their permission; public role reads when granted', async () => {
    const file = await textFile('perm.txt', 'perm');
    await createPrincipal(f.t.services, { token: 'reader-token', permissions: [{ collection: 'svc_files', action: 'read' }] });
    expect((await f.t.req('GET', '/files', undefined, { token: 'reader-token' })).status).toBe(200);
    expect((await f.t.req('PATCH', `/files/${file.id}`, { title: 'no' }, { token: 'reader-token' })).status).toBe(403);
    expect((await f.t.req('DELETE', `/files/${file.id}`, undefined, { token: 'reader-token' })).status).toBe(403);
    expect(existsSync(join(f.root, file.filename_disk))).toBe(true);
    const replaced = await send(f.t, 'PATCH', `/files/${file.id}`, multipart([{ name: 'file', filename: 'x.txt', data: 'x' }]), 'reader-token');
    expect(replaced.status).toBe(403);
    expect(readFileSync(join(f.root, file.filename_disk), 'utf8')).toBe('perm');
    // Public: nothing by default, a read permission on the public policy opens GET /files.
    expect((await f.t.req('GET', '/files', undefined, { token: null })).status).toBe(403);
    const db = f.t.services.database.db;
    const [pub] = await run<{ id: string }>(db, 'select a.policy as id from svc_access a join svc_settings s on s.public_role = a.role limit 1');
    await run(db, `insert into svc_permissions (policy, collection, action, fields) values ($1, 'svc_files', 'read', '["*"]')`, [pub.id]);
    await f.t.services.schema.invalidate();
    const list = await f.t.req('GET', '/files', undefined, { token: null });
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: any) => d.id)).toContain(file.id);
  });
});

describe('objectstore provider', () => {
  let s3: TestS3;
  beforeAll(async () => { s3 = await startS3(); });
  afterAll(async () => { await s3.close(); });

  it('uploads to a provider created through /system/storage-providers and reads it back through the driver', async () => {
    const created = await f.t.req('POST', '/system/storage-providers', { name: 's3', value: s3.config });
    expect(created.status).toBeLessThan(300);
    const png = await sharp({ create: { width: 9, height: 5, channels: 3, background: 'blue' } }).png().toBuffer();
    const res = await upload(f.t, [{ name: 'storage', value: 's3' }, { name: 'file', filename: 'cloud.png', type: 'image/png', data: png }]);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ storage: 's3', width: 9, height: 5 });
    const providers = await f.t.services.storage.providers((await f.t.services.schema.get()).version);
    const stream = await providers.get('s3').read(d.filename_disk);
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(png)).toBe(true);
    expect(f.stored()).not.toContain(d.filename_disk);
    expect((await f.t.req('DELETE', `/files/${d.id}`)).status).toBe(204);
    expect(await providers.get('s3').stat(d.filename_disk)).toBeNull();
  });
});
