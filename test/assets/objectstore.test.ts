/** Assets stored in an objectstore provider (a real S3-protocol server, s3rver): raw bytes, ranges, 404 for a
 * missing object, and transforms cached in the same bucket. */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheKeyFor } from '../../core/assets/transform-plan.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { addFile, assetApp, driverOf, get, pattern, type AssetTestApp } from './helpers.ts';
import { halves } from './images.ts';

let t: AssetTestApp;
let s3: TestS3;

beforeAll(async () => {
  s3 = await startS3();
  t = await assetApp();
  const res = await t.req('POST', '/system/storage-providers', { name: 's3', value: s3.config });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await t.dispose();
  await s3.close();
});

describe('objectstore assets', () => {
  it('serves the bytes, ranges and 304 from the bucket', async () => {
    const bytes = pattern(20_000);
    const f = await addFile(t, { bytes, type: 'application/octet-stream', storage: 's3' });
    const full = await get(t, `/assets/${f.id}`);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-length')).toBe('20000');
    expect(full.bytes.equals(bytes)).toBe(true);
    const part = await get(t, `/assets/${f.id}`, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 100-199/20000');
    expect(part.bytes.equals(bytes.subarray(100, 200))).toBe(true);
    const tail = await get(t, `/assets/${f.id}`, { headers: { range: 'bytes=-10' } });
    expect(tail.bytes.equals(bytes.subarray(-10))).toBe(true);
    expect((await get(t, `/assets/${f.id}`, { headers: { range: 'bytes=20000-' } })).status).toBe(416);
    expect((await get(t, `/assets/${f.id}`, { headers: { 'if-none-match': full.headers.get('etag')! } })).status).toBe(304);
  });

  it('a row whose object is missing from the bucket is 404', async () => {
    const f = await addFile(t, { bytes: pattern(10), type: 'text/plain', storage: 's3', noObject: true });
    expect((await get(t, `/assets/${f.id}`)).status).toBe(404);
  });

  it('transforms are cached in the same bucket and served from it', async () => {
    const f = await addFile(t, { bytes: await halves(300, 200), type: 'image/png', storage: 's3' });
    const first = await get(t, `/assets/${f.id}?width=60&format=webp`);
    expect(first.status).toBe(200);
    expect(await sharp(first.bytes).metadata()).toMatchObject({ width: 60, height: 40, format: 'webp' });
    const key = cacheKeyFor(f.disk, { width: 60, fit: 'cover', format: 'webp' });
    const driver = await driverOf(t, 's3');
    const cached = await driver.stat(key);
    expect(cached?.size).toBe(first.bytes.length);
    const second = await get(t, `/assets/${f.id}?width=60&format=webp`);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect((await driver.stat(key))?.modified.getTime()).toBe(cached?.modified.getTime());
    // Nothing landed on the local disk.
    const local = [];
    for await (const name of (await driverOf(t, 'local')).list(f.id)) local.push(name);
    expect(local).toEqual([]);
  });
});
