/** tus on an objectstore provider, against a real S3-protocol server (s3rver). Bytes are staged as an S3
 * multipart upload in the provider's bucket (@tus/s3-store), completed into `{id}.{ext}`.
 *
 * Where s3rver falls short: it implements neither ListParts (GET ?uploadId) nor AbortMultipartUpload
 * (DELETE ?uploadId); both answer 405. Our store does not depend on them: the part list (number, ETag, size) is
 * recorded in the upload's row as each UploadPart succeeds (tested below by continuing through a second
 * instance that never saw the parts), and abort is best effort before the staging objects are deleted
 * (DeleteObjects, which s3rver implements: tested by termination and expiry leaving nothing behind). The abort
 * call itself is therefore not exercised here. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import type { StorageDriver } from '../../core/storage/driver.ts';
import { tusRuntime } from '../../container/tus.ts';
import { cleanupTusUploads } from '../../core/tus/cleanup.ts';
import { createTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { bytes, freshRoot, tus, viaApp } from './helpers.ts';

const MB = 1024 * 1024;
const root = freshRoot();
let s3: TestS3;
let t: TestApp & { database: TestDatabase };
let admin: ReturnType<typeof tus>;

async function driver(app: TestApp = t): Promise<StorageDriver> {
  return (await app.services.storage.providers((await app.services.schema.get()).version)).get('s3');
}

async function readAll(d: StorageDriver, key: string, range?: { start: number; end: number }): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const c of await d.read(key, range)) chunks.push(c as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** Byte equality without a deep-equal walk over megabytes. */
function same(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

async function stagingLeft(id: string): Promise<string[]> {
  const d = await driver();
  const left: string[] = [];
  for (const key of [id, `${id}.info`, `${id}.part`]) if (await d.stat(key)) left.push(key);
  return left;
}

beforeAll(async () => {
  s3 = await startS3('svc-tus');
  t = await createTestApp({ env: { STORAGE_LOCAL_ROOT: root, FILES_MAX_UPLOAD_SIZE: '50mb' } });
  const res = await t.req('POST', '/system/storage-providers', { name: 's3', value: s3.config });
  expect(res.status).toBe(201);
  admin = tus(viaApp(t.app));
}, 60_000);

afterAll(async () => {
  await t?.close();
  await s3?.close();
});

const row = async (app: TestApp, id: string) => (await run<Record<string, any>>(app.services.database.db, 'select * from svc_files where id = $1', [id]))[0];

describe('tus on an objectstore provider (s3rver)', () => {
  it('multipart parts, an incomplete tail part, HEAD offsets, completion into {id}.{ext}; staging removed', async () => {
    const data = bytes(13 * MB, 21);
    const created = await admin.create(data.length, { filename: 'big.bin', filetype: 'application/octet-stream', storage: 's3' });
    expect(created.status).toBe(201);
    const id = created.id!;
    expect((await row(t, id)).storage).toBe('s3');

    expect((await admin.patch(id, 0, data.subarray(0, 6 * MB))).status).toBe(204);
    expect((await admin.head(id)).headers.get('upload-offset')).toBe(String(6 * MB));
    // Below S3's 5 MB part minimum: kept as the incomplete tail object, still counted.
    expect((await admin.patch(id, 6 * MB, data.subarray(6 * MB, 7 * MB))).status).toBe(204);
    expect((await admin.head(id)).headers.get('upload-offset')).toBe(String(7 * MB));
    const parts = (await row(t, id)).tus_data;
    expect((typeof parts === 'string' ? JSON.parse(parts) : parts).parts).toHaveLength(1);

    const last = await admin.patch(id, 7 * MB, data.subarray(7 * MB));
    expect(last.status).toBe(204);
    expect(last.headers.get('upload-offset')).toBe(String(data.length));

    const done = await row(t, id);
    expect(done).toMatchObject({ tus_id: null, tus_data: null, filename_disk: `${id}.bin`, storage: 's3' });
    expect(Number(done.filesize)).toBe(data.length);
    expect(same(await readAll(await driver(), `${id}.bin`), data)).toBe(true);
    expect(await stagingLeft(id)).toEqual([]);
  }, 60_000);

  it('a small file goes through in one PATCH; an image is probed from the bucket', async () => {
    const sharp = (await import('sharp')).default;
    const png = new Uint8Array(await sharp({ create: { width: 12, height: 7, channels: 3, background: '#0a0' } }).png().toBuffer());
    const id = (await admin.create(png.length, { filename: 'tiny.png', filetype: 'image/png', storage: 's3' })).id!;
    expect((await admin.patch(id, 0, png)).status).toBe(204);
    expect(await row(t, id)).toMatchObject({ tus_id: null, width: 12, height: 7, filename_disk: `${id}.png` });
    expect(await readAll(await driver(), `${id}.png`)).toEqual(png);
  }, 30_000);

  it('offset mismatch is 409 and writes nothing', async () => {
    const id = (await admin.create(100, { filename: 'x.txt', filetype: 'text/plain', storage: 's3' })).id!;
    expect((await admin.patch(id, 0, bytes(40))).status).toBe(204);
    expect((await admin.patch(id, 10, bytes(40))).status).toBe(409);
    expect((await admin.head(id)).headers.get('upload-offset')).toBe('40');
  }, 30_000);

  it('termination deletes the staging objects and the row', async () => {
    const id = (await admin.create(6 * MB + 10, { filename: 't.bin', filetype: 'application/octet-stream', storage: 's3' })).id!;
    await admin.patch(id, 0, bytes(6 * MB));
    await admin.patch(id, 6 * MB, bytes(5));
    expect((await stagingLeft(id)).length).toBeGreaterThan(0);
    expect((await admin.remove(id)).status).toBe(204);
    expect(await row(t, id)).toBeUndefined();
    expect(await stagingLeft(id)).toEqual([]);
  }, 30_000);

  it('the expiry cleanup deletes staging objects of expired uploads', async () => {
    const id = (await admin.create(100, { filename: 'e.txt', filetype: 'text/plain', storage: 's3' })).id!;
    await admin.patch(id, 0, bytes(30));
    expect((await stagingLeft(id)).length).toBeGreaterThan(0);
    const { expired } = await cleanupTusUploads(t.services, new Date(Date.now() + 11 * 60_000));
    expect(expired).toContain(id);
    expect(await row(t, id)).toBeUndefined();
    expect(await stagingLeft(id)).toEqual([]);
  }, 30_000);

  it.skipIf(!process.env.TEST_DATABASE_URL)('a second instance (no cached S3 state) continues the upload from the recorded parts', async () => {
    const b = await createTestApp({ database: t.database, env: { STORAGE_LOCAL_ROOT: root, FILES_MAX_UPLOAD_SIZE: '50mb' } });
    try {
      const data = bytes(11 * MB, 4);
      const id = (await admin.create(data.length, { filename: 'two.bin', filetype: 'application/octet-stream', storage: 's3' })).id!;
      expect((await admin.patch(id, 0, data.subarray(0, 5 * MB + 3))).status).toBe(204);
      const other = tus(viaApp(b.app));
      expect((await other.head(id)).headers.get('upload-offset')).toBe(String(5 * MB + 3));
      expect((await other.patch(id, 5 * MB + 3, data.subarray(5 * MB + 3))).status).toBe(204);
      expect(same(await readAll(await driver(b), `${id}.bin`), data)).toBe(true);
    } finally {
      await tusRuntime(b.services).close();
      await b.close();
    }
  }, 60_000);
});
