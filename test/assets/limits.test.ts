/** Transform limits (SPEC.md > Limits): ASSETS_TRANSFORM_MAX_CONCURRENT (503 + Retry-After when every slot is
 * taken), ASSETS_TRANSFORM_TIMEOUT (503, no cache object left behind), ASSETS_INVALID_IMAGE_SENSITIVITY_LEVEL
 * (sharp failOn: invalid or truncated images are a 4xx and the server keeps serving). */
import { readdirSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { runningTransforms } from '../../core/assets/transform-slots.ts';
import { addFile, assetApp, code, get, type AssetTestApp } from './helpers.ts';
import { halves, noise } from './images.ts';

const apps: AssetTestApp[] = [];
afterAll(async () => {
  for (const a of apps) await a.dispose();
});
async function app(env: Record<string, string>): Promise<AssetTestApp> {
  const a = await assetApp(env);
  apps.push(a);
  return a;
}
const heavy = encodeURIComponent('[["blur",40]]');

async function settle(): Promise<void> {
  // sharp finishes work already handed to libvips after a request gave up on it.
  for (let i = 0; i < 200 && runningTransforms() > 0; i++) await new Promise((r) => setTimeout(r, 25));
}

describe('ASSETS_TRANSFORM_MAX_CONCURRENT', () => {
  it('over the limit a transform is refused with 503 SERVICE_UNAVAILABLE and Retry-After; cached ones still served', async () => {
    const t = await app({ ASSETS_TRANSFORM_MAX_CONCURRENT: '1' });
    const f = await addFile(t, { bytes: await noise(1500, 1500), type: 'image/jpeg' });
    const [a, b] = await Promise.all([
      get(t, `/assets/${f.id}?width=1400&transforms=${heavy}`),
      get(t, `/assets/${f.id}?width=1300&transforms=${heavy}`),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 503]);
    const refused = a.status === 503 ? a : b;
    expect(code(refused)).toBe('SERVICE_UNAVAILABLE');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await settle();
    // Identical requests share one render (and so one slot).
    const same = await Promise.all([1, 2, 3].map(() => get(t, `/assets/${f.id}?width=1200&transforms=${heavy}`)));
    expect(same.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(same[1].bytes.equals(same[0].bytes) && same[2].bytes.equals(same[0].bytes)).toBe(true);
    await settle();
    // The slot is free again, and the cached output needs none.
    expect((await get(t, `/assets/${f.id}?width=1400&transforms=${heavy}`)).status).toBe(200);
    expect((await get(t, `/assets/${f.id}?width=100`)).status).toBe(200);
  });
});

describe('ASSETS_TRANSFORM_TIMEOUT', () => {
  it('a transform past the timeout is 503 with Retry-After and leaves no cache object or partial file', async () => {
    const t = await app({ ASSETS_TRANSFORM_TIMEOUT: '20ms' });
    const f = await addFile(t, { bytes: await noise(1500, 1500), type: 'image/jpeg' });
    const res = await get(t, `/assets/${f.id}?width=1400&transforms=${heavy}`);
    expect(res.status).toBe(503);
    expect(code(res)).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers.get('retry-after')).toBe('1');
    await settle();
    await new Promise((r) => setTimeout(r, 300));
    expect(readdirSync(t.root).sort()).toEqual([f.disk]);
    // The server goes on serving.
    expect((await get(t, `/assets/${f.id}`)).status).toBe(200);
  });
});

describe('input size', () => {
  it('an original larger than max² x 8 bytes is not buffered for a transform: 422, served raw still', async () => {
    const t = await app({ ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION: '100' });
    // 100² x 8 = 80,000 bytes at most.
    const f = await addFile(t, { bytes: Buffer.concat([await halves(50, 50), Buffer.alloc(200_000, 1)]), type: 'image/png' });
    const res = await get(t, `/assets/${f.id}?width=10`);
    expect(res.status).toBe(422);
    expect(code(res)).toBe('UNPROCESSABLE_CONTENT');
    expect((await get(t, `/assets/${f.id}`)).status).toBe(200);
    expect(readdirSync(t.root)).toEqual([f.disk]);
    const small = await addFile(t, { bytes: await halves(50, 50), type: 'image/png' });
    expect((await get(t, `/assets/${small.id}?width=10`)).status).toBe(200);
  });
});

describe('ASSETS_INVALID_IMAGE_SENSITIVITY_LEVEL', () => {
  async function truncatedJpeg(): Promise<Buffer> {
    const full = await halves(300, 300, 'jpeg');
    return full.subarray(0, Math.floor(full.length * 0.6));
  }

  for (const [level, truncatedStatus] of [['none', 200], ['truncated', 422], ['error', 422], ['warning', 422]] as const) {
    it(`${level}: a truncated JPEG is ${truncatedStatus}; garbage is 422; the server keeps serving`, async () => {
      const t = await app({ ASSETS_INVALID_IMAGE_SENSITIVITY_LEVEL: level });
      const truncated = await addFile(t, { bytes: await truncatedJpeg(), type: 'image/jpeg' });
      const res = await get(t, `/assets/${truncated.id}?width=100&format=png`);
      expect(res.status, JSON.stringify(res.json)).toBe(truncatedStatus);
      if (truncatedStatus === 200) expect((await sharp(res.bytes).metadata()).width).toBe(100);
      else {
        expect(code(res)).toBe('UNPROCESSABLE_CONTENT');
        expect(readdirSync(t.root).filter((n) => n !== truncated.disk)).toEqual([]);
      }
      const garbage = await addFile(t, { bytes: Buffer.from('definitely not an image'), type: 'image/png' });
      const bad = await get(t, `/assets/${garbage.id}?width=100`);
      expect(bad.status).toBe(422);
      expect(code(bad)).toBe('UNPROCESSABLE_CONTENT');
      // Raw bytes are still served, and good images still transform.
      expect((await get(t, `/assets/${garbage.id}`)).status).toBe(200);
      const good = await addFile(t, { bytes: await halves(50, 50), type: 'image/png' });
      expect((await get(t, `/assets/${good.id}?width=10`)).status).toBe(200);
    });
  }
});
