/** POST /files multipart through the real app: records, probing, limits, all-or-nothing, permissions. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { withIptc } from './iptc.ts';
import { filesApp, multipart, send, upload, type FilesTestApp } from './helpers.ts';

let f: FilesTestApp;
let png: Buffer;

beforeAll(async () => {
  f = await filesApp({ FILES_MAX_UPLOAD_SIZE: '200kb' });
  png = await sharp({ create: { width: 40, height: 25, channels: 3, background: '#336699' } }).png().toBuffer();
});
afterAll(async () => { await f.close(); });

async function rowCount(): Promise<number> {
  const [r] = await run<{ n: number }>(f.t.services.database.db, 'select count(*)::int as n from svc_files');
  return r.n;
}

describe('POST /files', () => {
  it('stores one file under {id}.{ext} with its record', async () => {
    const res = await upload(f.t, [
      { name: 'title', value: 'A picture' },
      { name: 'tags', value: '["a","b"]' },
      { name: 'file', filename: 'picture.png', type: 'image/png', data: png },
    ]);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ title: 'A picture', storage: 'local', filename_download: 'picture.png', type: 'image/png', width: 40, height: 25, tags: ['a', 'b'] });
    expect(d.filename_disk).toBe(`${d.id}.png`);
    expect(String(d.filesize)).toBe(String(png.length));
    expect(d.uploaded_by).toBeTruthy();
    expect(readFileSync(join(f.root, d.filename_disk)).equals(png)).toBe(true);
    const activity = await run<{ action: string }>(f.t.services.database.db, "select action from svc_activity where collection = 'svc_files' and item = $1 order by id", [d.id]);
    expect(activity.map((a) => a.action)).toContain('create');
    const [rev] = await run<{ n: number }>(f.t.services.database.db, "select count(*)::int as n from svc_revisions where collection = 'svc_files' and item = $1", [d.id]);
    expect(rev.n).toBeGreaterThan(0);
  });

  it('titles a file from its name when no title is sent, and records a text charset', async () => {
    const res = await upload(f.t, [{ name: 'file', filename: 'my-notes_v2.txt', type: 'text/plain', data: 'héllo wörld' }]);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ title: 'My Notes V2', type: 'text/plain', charset: 'utf-8', width: null });
  });

  it('keeps path traversal out of storage and sanitizes the download name', async () => {
    const res = await upload(f.t, [{ name: 'file', filename: '../../etc/passwd', type: 'text/plain', data: 'root:x:0:0' }]);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.filename_download).toBe('passwd');
    expect(d.filename_disk).toBe(d.id);
    expect(readdirSync(f.root)).toContain(d.id);
  });

  it('sanitizes a filename_download field too, and refuses an unknown folder leaving nothing', async () => {
    const res = await upload(f.t, [{ name: 'filename_download', value: '..\\..\\boot.ini' }, { name: 'file', filename: 'x.txt', type: 'text/plain', data: 'x' }]);
    expect(res.body.data.filename_download).toBe('boot.ini');
    const before = f.stored();
    const rows = await rowCount();
    const bad = await upload(f.t, [{ name: 'folder', value: '00000000-0000-4000-8000-000000000000' }, { name: 'file', filename: 'y.txt', type: 'text/plain', data: 'y' }]);
    expect(bad.status).toBe(400);
    expect(f.stored()).toEqual(before);
    expect(await rowCount()).toBe(rows);
  });

  it('measures an image from its bytes, whatever Content-Type claims', async () => {
    const res = await upload(f.t, [{ name: 'file', filename: 'x.txt', type: 'text/plain', data: png }]);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'image/png', width: 40, height: 25 });
    const fake = await upload(f.t, [{ name: 'file', filename: 'fake.png', type: 'image/png', data: 'not an image at all' }]);
    expect(fake.status).toBe(200);
    expect(fake.body.data).toMatchObject({ width: null, height: null });
  });

  it('extracts EXIF metadata as JSON', async () => {
    const jpeg = await sharp({ create: { width: 8, height: 6, channels: 3, background: 'red' } }).jpeg()
      .withExif({ IFD0: { Copyright: 'Someone', ImageDescription: 'A red square' } }).toBuffer();
    const res = await upload(f.t, [{ name: 'file', filename: 'red.jpg', type: 'image/jpeg', data: jpeg }]);
    expect(res.status).toBe(200);
    expect(res.body.data.metadata.ifd0).toMatchObject({ Copyright: 'Someone', ImageDescription: 'A red square' });
  });

  it('takes form values as the fields\' types: JSON for json fields, text kept, null', async () => {
    const res = await upload(f.t, [
      { name: 'title', value: '[1]' },
      { name: 'description', value: 'null' },
      { name: 'focal_point_x', value: '5' },
      { name: 'tags', value: '["x"]' },
      { name: 'file', filename: 'typed.txt', type: 'text/plain', data: 't' },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ title: '[1]', description: null, focal_point_x: 5, tags: ['x'] });
    const bad = await upload(f.t, [{ name: 'tags', value: '[not json' }, { name: 'file', filename: 'b.txt', data: 'b' }]);
    expect(bad.status).toBe(400);
  });

  it('takes description and tags from IPTC when the client sends none', async () => {
    const jpeg = withIptc(await sharp({ create: { width: 8, height: 6, channels: 3, background: 'red' } }).jpeg().toBuffer(), { caption: 'From IPTC', keywords: ['sea', 'sun'] });
    const res = await upload(f.t, [{ name: 'file', filename: 'iptc.jpg', type: 'image/jpeg', data: jpeg }]);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ description: 'From IPTC', tags: ['sea', 'sun'], width: 8, height: 6 });
    expect(res.body.data.metadata.iptc).toMatchObject({ Caption: 'From IPTC' });
    const own = await upload(f.t, [{ name: 'description', value: 'mine' }, { name: 'file', filename: 'iptc.jpg', type: 'image/jpeg', data: jpeg }]);
    expect(own.body.data.description).toBe('mine');
  });

  it('accepts a zero-byte file', async () => {
    const res = await upload(f.t, [{ name: 'file', filename: 'empty.bin', data: Buffer.alloc(0) }]);
    expect(res.status).toBe(200);
    expect(String(res.body.data.filesize)).toBe('0');
  });

  it('stores several files in one request, fields applying to the file after them', async () => {
    const res = await upload(f.t, [
      { name: 'title', value: 'First' },
      { name: 'file', filename: 'one.txt', type: 'text/plain', data: '1' },
      { name: 'title', value: 'Second' },
      { name: 'file', filename: 'two.txt', type: 'text/plain', data: '22' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: any) => [d.title, String(d.filesize)])).toEqual([['First', '1'], ['Second', '2']]);
  });

  it('refuses a file over FILES_MAX_UPLOAD_SIZE with 413, storing nothing', async () => {
    const before = f.stored();
    const rows = await rowCount();
    const res = await upload(f.t, [
      { name: 'file', filename: 'ok.txt', type: 'text/plain', data: 'fine' },
      { name: 'file', filename: 'big.bin', data: Buffer.alloc(300 * 1024, 1) },
    ]);
    expect(res.status).toBe(413);
    expect(res.body.errors[0].extensions.code).toBe('CONTENT_TOO_LARGE');
    expect(f.stored()).toEqual(before);
    expect(readdirSync(f.root).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(await rowCount()).toBe(rows);
  });

  it('answers a truncated body with 400 and keeps nothing', async () => {
    const before = f.stored();
    const rows = await rowCount();
    const body = multipart([
      { name: 'file', filename: 'a.txt', type: 'text/plain', data: 'complete' },
      { name: 'file', filename: 'b.txt', type: 'text/plain', data: 'x'.repeat(5000) },
    ], { truncate: true });
    const res = await send(f.t, 'POST', '/files', body);
    expect(res.status).toBe(400);
    expect(f.stored()).toEqual(before);
    expect(await rowCount()).toBe(rows);
  });

  it('needs a file part, a known storage and a multipart body', async () => {
    const none = await upload(f.t, [{ name: 'title', value: 'nothing' }]);
    expect(none.status).toBe(400);
    expect(none.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    const bad = await upload(f.t, [{ name: 'storage', value: 'nowhere' }, { name: 'file', filename: 'a.txt', data: 'a' }]);
    expect(bad.status).toBe(400);
    const json = await f.t.req('POST', '/files', { title: 'x' });
    expect(json.status).toBe(400);
  });

  it('applies permissions: create-only role may upload (204, it can read none), public may not', async () => {
    await createPrincipal(f.t.services, { token: 'uploader-token', permissions: [{ collection: 'svc_files', action: 'create' }] });
    const ok = await upload(f.t, [{ name: 'file', filename: 'mine.txt', type: 'text/plain', data: 'mine' }], 'uploader-token');
    expect(ok.status).toBe(204);
    const [row] = await run<{ uploaded_by: string }>(f.t.services.database.db, "select uploaded_by from svc_files where filename_download = 'mine.txt'");
    expect(row.uploaded_by).toBeTruthy();
    const before = f.stored();
    const anon = await upload(f.t, [{ name: 'file', filename: 'anon.txt', type: 'text/plain', data: 'anon' }], null);
    expect(anon.status).toBe(403);
    expect(f.stored()).toEqual(before);
  });
});

describe('permission validation and presets on uploads', () => {
  it('applies a create validation on type (checked before storing) and presets', async () => {
    const folder = await f.t.req('POST', '/folders', { name: 'Preset folder' });
    await createPrincipal(f.t.services, {
      token: 'images-only',
      permissions: [
        { collection: 'svc_files', action: 'create', validation: { type: { _starts_with: 'image/' } }, presets: { folder: folder.body.data.id } },
        { collection: 'svc_files', action: 'read' },
      ],
    });
    const before = f.stored();
    const refused = await upload(f.t, [{ name: 'file', filename: 'a.txt', type: 'text/plain', data: 'text' }], 'images-only');
    expect(refused.status).toBe(400);
    expect(f.stored()).toEqual(before);
    // Declared an image, bytes of no known format: the declared type stands, with no size.
    const unknown = await upload(f.t, [{ name: 'file', filename: 'a.png', type: 'image/png', data: 'text' }], 'images-only');
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toMatchObject({ type: 'image/png', width: null });
    const ok = await upload(f.t, [{ name: 'file', filename: 'b.png', type: 'image/png', data: png }], 'images-only');
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ type: 'image/png', folder: folder.body.data.id });
  });
});

describe('FILES_MIME_TYPE_ALLOW_LIST', () => {
  let g: FilesTestApp;
  beforeAll(async () => { g = await filesApp({ FILES_MIME_TYPE_ALLOW_LIST: 'image/*,text/plain' }); });
  afterAll(async () => { await g.close(); });

  it('allows listed types and patterns, refuses others with 400 UNSUPPORTED_MEDIA_TYPE', async () => {
    expect((await upload(g.t, [{ name: 'file', filename: 'a.png', type: 'image/png', data: png }])).status).toBe(200);
    expect((await upload(g.t, [{ name: 'file', filename: 'a.txt', type: 'text/plain', data: 'a' }])).status).toBe(200);
    const before = g.stored();
    const res = await upload(g.t, [{ name: 'file', filename: 'a.pdf', type: 'application/pdf', data: '%PDF-1.4' }]);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(g.stored()).toEqual(before);
  });
});
