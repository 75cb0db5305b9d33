/** POST/PATCH/HEAD /tus round trips through the in-process app (PGlite, or Postgres with TEST_DATABASE_URL). */
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { bytes, freshRoot, metadata, tus, viaApp } from './helpers.ts';

const root = freshRoot();
let t: TestApp;
let admin: ReturnType<typeof tus>;

beforeAll(async () => {
  t = await createTestApp({ env: { STORAGE_LOCAL_ROOT: root, FILES_MAX_UPLOAD_SIZE: '1mb', FILES_MIME_TYPE_ALLOW_LIST: 'image/png,text/plain,application/octet-stream' } });
  admin = tus(viaApp(t.app));
});
afterAll(async () => { await t?.close(); });

async function fileRow(id: string): Promise<Record<string, any> | undefined> {
  const [row] = await run<Record<string, any>>(t.services.database.db, 'select * from svc_files where id = $1', [id]);
  return row;
}

describe('tus round trip', () => {
  it('creates, takes chunks, reports the offset and completes into a file', async () => {
    const data = bytes(3000);
    const created = await admin.create(data.length, { filename: 'notes.txt', filetype: 'text/plain' });
    expect(created.status).toBe(201);
    expect(created.headers.get('tus-resumable')).toBe('1.0.0');
    const id = created.id!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.headers.get('location')).toMatch(new RegExp(`/tus/${id}$`));

    const row = await fileRow(id);
    expect(row).toMatchObject({ tus_id: id, storage: 'local', filename_download: 'notes.txt', type: 'text/plain', filename_disk: null });
    expect(row!.uploaded_by).toBeTruthy();

    // Hidden while incomplete.
    const list = await t.req('GET', '/files');
    expect(list.status).toBe(200);
    expect(list.body.data.map((f: any) => f.id)).not.toContain(id);
    expect((await t.req('GET', `/assets/${id}`)).status).toBe(404);

    expect((await admin.head(id)).headers.get('upload-offset')).toBe('0');
    const p1 = await admin.patch(id, 0, data.subarray(0, 1000));
    expect(p1.status).toBe(204);
    expect(p1.headers.get('upload-offset')).toBe('1000');
    const h = await admin.head(id);
    expect(h.status).toBe(200);
    expect(h.headers.get('upload-offset')).toBe('1000');
    expect(h.headers.get('upload-length')).toBe('3000');
    expect(h.headers.get('cache-control')).toBe('no-store');

    // Offset mismatch: 409, nothing written.
    expect((await admin.patch(id, 500, data.subarray(500, 1500))).status).toBe(409);
    expect((await admin.head(id)).headers.get('upload-offset')).toBe('1000');

    const p2 = await admin.patch(id, 1000, data.subarray(1000));
    expect(p2.status).toBe(204);
    expect(p2.headers.get('upload-offset')).toBe('3000');

    const done = await fileRow(id);
    expect(done).toMatchObject({ tus_id: null, tus_data: null, filename_disk: `${id}.txt` });
    expect(Number(done!.filesize)).toBe(3000);
    expect(new Uint8Array(readFileSync(join(root, `${id}.txt`)))).toEqual(data);
    // Complete: listed and served.
    expect((await t.req('GET', '/files')).body.data.map((f: any) => f.id)).toContain(id);
    const asset = await t.app.request(`/assets/${id}`, { headers: { authorization: 'Bearer static-admin-token' } });
    expect(asset.status).toBe(200);
    expect(new Uint8Array(await asset.arrayBuffer())).toEqual(data);
    // The staging copy is gone; the upload URL no longer answers.
    expect(existsSync(join(root, '.tus', id))).toBe(false);
    expect((await admin.head(id)).status).toBe(404);
  });

  it('creation-with-upload completes in one request; images get their dimensions', async () => {
    const sharp = (await import('sharp')).default;
    const png = await sharp({ create: { width: 33, height: 21, channels: 3, background: '#f80' } }).png().toBuffer();
    const res = await admin.create(png.length, { filename: 'dot.png', filetype: 'image/png' }, {});
    expect(res.status).toBe(201);
    const p = await admin.patch(res.id!, 0, new Uint8Array(png));
    expect(p.status).toBe(204);
    const row = await fileRow(res.id!);
    expect(row).toMatchObject({ tus_id: null, width: 33, height: 21, type: 'image/png', filename_disk: `${res.id}.png` });
  });

  it('an empty upload completes at creation', async () => {
    const res = await admin.create(0, { filename: 'empty.txt', filetype: 'text/plain' });
    expect(res.status).toBe(201);
    const row = await fileRow(res.id!);
    expect(row).toMatchObject({ tus_id: null, filename_disk: `${res.id}.txt` });
    expect(Number(row!.filesize)).toBe(0);
  });

  it('termination removes an incomplete upload and its row', async () => {
    const res = await admin.create(100, { filename: 'gone.txt', filetype: 'text/plain' });
    await admin.patch(res.id!, 0, bytes(10));
    const del = await admin.remove(res.id!);
    expect(del.status).toBe(204);
    expect(await fileRow(res.id!)).toBeUndefined();
    expect(existsSync(join(root, '.tus', res.id!))).toBe(false);
    expect((await admin.head(res.id!)).status).toBe(404);
  });
});

describe('protocol and input errors', () => {
  it('Tus-Resumable other than 1.0.0, or missing: 412 with Tus-Version', async () => {
    const res = await admin.create(10, { filename: 'a.txt' }, { 'tus-resumable': '0.2.2' });
    expect(res.status).toBe(412);
    expect(res.headers.get('tus-version')).toBe('1.0.0');
    const missing = await t.app.request('/tus', { method: 'POST', headers: { authorization: 'Bearer static-admin-token', 'upload-length': '10' } });
    expect(missing.status).toBe(412);
  });

  it('Upload-Metadata: bad base64 or bad keys are 400, filename is required, folder must be a uuid', async () => {
    expect((await admin.create(10, 'filename !!!notbase64')).status).toBe(400);
    expect((await admin.create(10, 'filename YS50eHQ=,filename YS50eHQ=')).status).toBe(400);
    const noName = await admin.create(10, { filetype: 'text/plain' });
    expect(noName.status).toBe(400);
    expect(JSON.parse(noName.body).errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect((await admin.create(10, null)).status).toBe(400);
    expect((await admin.create(10, { filename: 'a.txt', folder: 'nope' })).status).toBe(400);
    // A folder that does not exist: the foreign key refuses it.
    expect((await admin.create(10, { filename: 'a.txt', folder: '00000000-0000-4000-8000-000000000000' })).status).toBe(400);
    const [{ n }] = await run<{ n: number }>(t.services.database.db, "select count(*)::int as n from svc_files where filename_download = 'a.txt'");
    expect(n).toBe(0);
  });

  it('a filename with a folder path in metadata is parsed as given (base64 of UTF-8)', async () => {
    const res = await admin.create(1, metadata({ filename: 'résumé.txt', filetype: 'text/plain' }));
    expect(res.status).toBe(201);
    expect((await fileRow(res.id!))!.filename_download).toBe('résumé.txt');
  });

  it('Upload-Length over FILES_MAX_UPLOAD_SIZE: 413 CONTENT_TOO_LARGE, no row', async () => {
    const res = await admin.create(1024 * 1024 + 1, { filename: 'big.txt', filetype: 'text/plain' });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).errors[0].extensions.code).toBe('CONTENT_TOO_LARGE');
    const [{ n }] = await run<{ n: number }>(t.services.database.db, "select count(*)::int as n from svc_files where filename_download = 'big.txt'");
    expect(n).toBe(0);
  });

  it('a chunk past Upload-Length is refused (413) and nothing is stored past it', async () => {
    const res = await admin.create(10, { filename: 'ten.txt', filetype: 'text/plain' });
    expect((await admin.patch(res.id!, 0, bytes(11))).status).toBe(413);
    expect((await admin.head(res.id!)).headers.get('upload-offset')).toBe('0');
  });

  it('filetype outside FILES_MIME_TYPE_ALLOW_LIST: 400 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await admin.create(10, { filename: 'x.pdf', filetype: 'application/pdf' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('the type is checked again from the bytes: a JPEG declared as text/plain is refused at completion, nothing kept', async () => {
    const sharp = (await import('sharp')).default;
    const jpeg = new Uint8Array(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123' } }).jpeg().toBuffer());
    const res = await admin.create(jpeg.length, { filename: 'sneaky.txt', filetype: 'text/plain' });
    expect(res.status).toBe(201);
    expect((await admin.patch(res.id!, 0, jpeg.subarray(0, 10))).status).toBe(204);
    const last = await admin.patch(res.id!, 10, jpeg.subarray(10));
    expect(last.status).toBe(400);
    expect(JSON.parse(last.body).errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await fileRow(res.id!)).toBeUndefined();
    expect(existsSync(join(root, '.tus', res.id!))).toBe(false);
    expect(readdirSync(root).filter((f) => f.startsWith(res.id!))).toEqual([]);
  });

  it('unknown storage: 400', async () => {
    expect((await admin.create(10, { filename: 'a.txt', storage: 'nowhere' })).status).toBe(400);
  });

  it('deferred length is refused', async () => {
    const res = await t.app.request('/tus', { method: 'POST', headers: { authorization: 'Bearer static-admin-token', 'tus-resumable': '1.0.0', 'upload-defer-length': '1', 'upload-metadata': metadata({ filename: 'd.txt' }) } });
    expect(res.status).toBe(400);
  });

  it('unknown upload: 404 on HEAD and PATCH; GET on an upload URL is 404', async () => {
    expect((await admin.head('6a1b1f8e-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await admin.patch('6a1b1f8e-0000-4000-8000-000000000000', 0, bytes(1))).status).toBe(404);
    expect((await t.req('GET', '/tus/6a1b1f8e-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('who may upload', () => {
  it('anonymous callers get 401 on every method, even when the Public role may create files', async () => {
    const [{ policy }] = await run<{ policy: string }>(t.services.database.db,
      'select a.policy from svc_settings s join svc_access a on a.role = s.public_role where s.id = 1');
    await run(t.services.database.db, "insert into svc_permissions (policy, collection, action, fields) values ($1, 'svc_files', 'create', $2)", [policy, JSON.stringify(['*'])]);
    await t.services.schema.invalidate();
    const anon = tus(viaApp(t.app), null);
    const res = await anon.create(10, { filename: 'a.txt' });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
    const mine = await admin.create(10, { filename: 'a2.txt', filetype: 'text/plain' });
    expect((await anon.head(mine.id!)).status).toBe(401);
    expect((await anon.patch(mine.id!, 0, bytes(10))).status).toBe(401);
    expect((await anon.remove(mine.id!)).status).toBe(401);
  });

  it('creating needs Perm(create) on svc_files; continuing needs to be the uploader', async () => {
    await createPrincipal(t.services, { token: 'tus-reader', permissions: [{ collection: 'svc_files', action: 'read' }] });
    await createPrincipal(t.services, { token: 'tus-creator', permissions: [{ collection: 'svc_files', action: 'create' }] });
    await createPrincipal(t.services, { token: 'tus-other', permissions: [{ collection: 'svc_files', action: 'create' }, { collection: 'svc_files', action: 'update' }] });
    const reader = await tus(viaApp(t.app), 'tus-reader').create(10, { filename: 'r.txt', filetype: 'text/plain' });
    expect(reader.status).toBe(403);
    expect(JSON.parse(reader.body).errors[0].extensions.code).toBe('FORBIDDEN');

    const creator = tus(viaApp(t.app), 'tus-creator');
    const c = await creator.create(10, { filename: 'c.txt', filetype: 'text/plain' });
    expect(c.status).toBe(201);
    const other = tus(viaApp(t.app), 'tus-other');
    expect((await other.head(c.id!)).status).toBe(404);
    expect((await other.patch(c.id!, 0, bytes(10))).status).toBe(404);
    expect((await other.remove(c.id!)).status).toBe(404);
    expect((await creator.patch(c.id!, 0, bytes(10))).status).toBe(204);
    expect((await fileRow(c.id!))!.tus_id).toBeNull();
  });

  it('overwriting an existing file (metadata id) needs Perm(update) on that row, not just create', async () => {
    // A finished file by the admin.
    const orig = await admin.create(5, { filename: 'orig.txt', filetype: 'text/plain' });
    await admin.patch(orig.id!, 0, new TextEncoder().encode('hello'));
    const before = await fileRow(orig.id!);

    const creator = tus(viaApp(t.app), 'tus-creator');
    const denied = await creator.create(3, { filename: 'evil.txt', filetype: 'text/plain', id: orig.id! });
    expect(denied.status).toBe(403);
    expect(await fileRow(orig.id!)).toMatchObject({ tus_id: null, filename_download: 'orig.txt', filename_disk: before!.filename_disk });
    expect(readFileSync(join(root, before!.filename_disk), 'utf8')).toBe('hello');

    // (Row filters of update permissions are not checked: SPEC.md > Permission evaluation 5, read only.)

    // With update permission: the replacement lands under the same id; the old row was hidden meanwhile.
    const other = tus(viaApp(t.app), 'tus-other');
    const rep = await other.create(7, { filename: 'new.md', filetype: 'text/plain', id: orig.id! });
    expect(rep.status).toBe(201);
    expect(rep.id).toBe(orig.id);
    expect((await fileRow(orig.id!))!.tus_id).toBe(orig.id);
    // A second replacement while one runs: 409.
    expect((await other.create(7, { filename: 'new.md', filetype: 'text/plain', id: orig.id! })).status).toBe(409);
    expect((await other.patch(orig.id!, 0, new TextEncoder().encode('goodbye'))).status).toBe(204);
    const after = await fileRow(orig.id!);
    expect(after).toMatchObject({ tus_id: null, filename_download: 'new.md', filename_disk: `${orig.id}.md` });
    expect(Number(after!.filesize)).toBe(7);
    expect(readFileSync(join(root, `${orig.id}.md`), 'utf8')).toBe('goodbye');
    expect(readdirSync(root)).not.toContain(before!.filename_disk);
  });

  it('overwriting a file that does not exist: 403', async () => {
    expect((await admin.create(3, { filename: 'x.txt', id: '11111111-1111-4111-8111-111111111111' })).status).toBe(403);
  });
});
