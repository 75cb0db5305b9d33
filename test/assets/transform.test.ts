/** Image transforms (SPEC.md > Assets, transform parameters and rules 1-3): sizes, fits, formats, quality,
 * focal points, auto-rotation, the storage cache (name, reuse), validation, the settings policy and presets. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { addFile, assetApp, code, get, grantPublicRead, pattern, type AssetTestApp } from './helpers.ts';
import { halves, meanRedBlue } from './images.ts';
import { cacheKeyFor, normalizedPlan } from '../../core/assets/transform-plan.ts';
import { createHash } from 'node:crypto';

let t: AssetTestApp;
let png: { id: string; disk: string };
let jpegRotated: { id: string; disk: string };

beforeAll(async () => {
  t = await assetApp({ ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION: '2000' });
  png = await addFile(t, { bytes: await halves(400, 200), type: 'image/png', filename_download: 'halves.png' });
  jpegRotated = await addFile(t, { bytes: await halves(400, 300, 'jpeg', 6), type: 'image/jpeg', filename_download: 'photo.jpg' });
});
afterAll(() => t.dispose());

async function image(path: string, headers: Record<string, string> = {}) {
  const res = await get(t, path, { headers });
  expect(res.status, `${path}: ${res.bytes.toString().slice(0, 300)}`).toBe(200);
  return { res, meta: await sharp(res.bytes).metadata() };
}

describe('sizes, fits and formats', () => {
  it('width and height with the default fit (cover) give exactly that box', async () => {
    const { res, meta } = await image(`/assets/${png.id}?width=120&height=80`);
    expect([meta.width, meta.height, meta.format]).toEqual([120, 80, 'png']);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(res.bytes.length));
  });

  it('one side keeps the aspect ratio', async () => {
    expect((await image(`/assets/${png.id}?width=100`)).meta).toMatchObject({ width: 100, height: 50 });
    expect((await image(`/assets/${png.id}?height=100`)).meta).toMatchObject({ width: 200, height: 100 });
  });

  it('fit contain, fill, inside, outside', async () => {
    expect((await image(`/assets/${png.id}?width=100&height=100&fit=contain`)).meta).toMatchObject({ width: 100, height: 100 });
    expect((await image(`/assets/${png.id}?width=100&height=100&fit=fill`)).meta).toMatchObject({ width: 100, height: 100 });
    expect((await image(`/assets/${png.id}?width=100&height=100&fit=inside`)).meta).toMatchObject({ width: 100, height: 50 });
    expect((await image(`/assets/${png.id}?width=100&height=100&fit=outside`)).meta).toMatchObject({ width: 200, height: 100 });
  });

  it('formats jpg, jpeg, png, webp, avif, tiff', async () => {
    for (const [format, sharpName, type] of [
      ['jpg', 'jpeg', 'image/jpeg'], ['jpeg', 'jpeg', 'image/jpeg'], ['png', 'png', 'image/png'],
      ['webp', 'webp', 'image/webp'], ['avif', 'heif', 'image/avif'], ['tiff', 'tiff', 'image/tiff'],
    ]) {
      const { res, meta } = await image(`/assets/${png.id}?width=40&format=${format}`);
      expect(meta.format, format).toBe(sharpName);
      expect(res.headers.get('content-type'), format).toBe(type);
    }
  });

  it('format=auto picks avif, then webp, from Accept (else jpeg), and varies on Accept', async () => {
    const avif = await image(`/assets/${png.id}?width=40&format=auto`, { accept: 'image/avif,image/webp,*/*' });
    expect(avif.res.headers.get('content-type')).toBe('image/avif');
    expect(avif.res.headers.get('vary')).toBe('Accept');
    expect((await image(`/assets/${png.id}?width=40&format=auto`, { accept: 'image/webp,*/*' })).meta.format).toBe('webp');
    expect((await image(`/assets/${png.id}?width=40&format=auto`)).meta.format).toBe('jpeg');
  });

  it('quality changes the output size', async () => {
    const low = await image(`/assets/${jpegRotated.id}?width=300&quality=5`);
    const high = await image(`/assets/${jpegRotated.id}?width=300&quality=100`);
    expect(low.res.bytes.length).toBeLessThan(high.res.bytes.length);
  });

  it('withoutEnlargement never upscales', async () => {
    expect((await image(`/assets/${png.id}?width=1000`)).meta.width).toBe(1000);
    expect((await image(`/assets/${png.id}?width=1000&withoutEnlargement=true`)).meta.width).toBe(400);
  });

  it('an EXIF-rotated JPEG comes out upright (orientation applied before resizing)', async () => {
    // Stored 400x300 with orientation 6: upright it is 300x400.
    const { meta } = await image(`/assets/${jpegRotated.id}?width=150`);
    expect([meta.width, meta.height]).toEqual([150, 200]);
    expect(meta.orientation ?? 1).toBe(1);
    const converted = await image(`/assets/${jpegRotated.id}?format=png`);
    expect([converted.meta.width, converted.meta.height]).toEqual([300, 400]);
    // Upright, the red half is on top.
    const top = await sharp(converted.res.bytes).extract({ left: 0, top: 0, width: 300, height: 150 }).toBuffer();
    expect((await meanRedBlue(top)).red).toBeGreaterThan(200);
  });

  it('SVG is rasterised (to PNG unless a format is asked)', async () => {
    const svg = await addFile(t, { bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="red"/></svg>'), type: 'image/svg+xml' });
    const { res, meta } = await image(`/assets/${svg.id}?width=60`);
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 60, 30]);
    expect(res.headers.get('content-security-policy')).toBeNull();
  });

  it('the `transforms` parameter applies allowed sharp operations', async () => {
    const flopped = await image(`/assets/${png.id}?width=100&format=png&transforms=${encodeURIComponent('[["flop"]]')}`);
    const left = await sharp(flopped.res.bytes).extract({ left: 0, top: 0, width: 40, height: 50 }).toBuffer();
    expect((await meanRedBlue(left)).blue).toBeGreaterThan(200);
    const gray = await image(`/assets/${png.id}?width=50&transforms=${encodeURIComponent('[["grayscale"],["blur",2]]')}`);
    const { red, blue } = await meanRedBlue(gray.res.bytes);
    expect(Math.abs(red - blue)).toBeLessThan(2);
  });
});

describe('focal point', () => {
  it('cover crops centre on the requested focal point', async () => {
    const right = await image(`/assets/${png.id}?width=100&height=100&focal_point_x=350&focal_point_y=100`);
    expect(right.meta).toMatchObject({ width: 100, height: 100 });
    expect((await meanRedBlue(right.res.bytes)).blue).toBeGreaterThan(200);
    const left = await image(`/assets/${png.id}?width=100&height=100&focal_point_x=20&focal_point_y=100`);
    expect((await meanRedBlue(left.res.bytes)).red).toBeGreaterThan(200);
  });

  it("the row's focal point is the default", async () => {
    const f = await addFile(t, { bytes: await halves(400, 200), type: 'image/png', focal_point_x: 390, focal_point_y: 10 });
    const res = await image(`/assets/${f.id}?width=100&height=100`);
    expect((await meanRedBlue(res.res.bytes)).blue).toBeGreaterThan(200);
  });
});

describe('the storage cache', () => {
  it('stores the output as {basename}__{12 hex of sha256(normalised options)}.{ext} and serves it from there', async () => {
    const path = `/assets/${png.id}?width=77&height=33&format=webp&quality=70`;
    const first = await image(path);
    const digest = createHash('sha256').update(JSON.stringify({ width: 77, height: 33, fit: 'cover', quality: 70, format: 'webp' })).digest('hex').slice(0, 12);
    const name = `${png.id}__${digest}.webp`;
    expect(cacheKeyFor(png.disk, { width: 77, height: 33, fit: 'cover', quality: 70, format: 'webp' })).toBe(name);
    expect(normalizedPlan({ width: 77, height: 33, fit: 'cover', quality: 70, format: 'webp' })).toBe('{"width":77,"height":33,"fit":"cover","quality":70,"format":"webp"}');
    const file = join(t.root, name);
    const before = statSync(file);
    expect(before.size).toBe(first.res.bytes.length);

    await new Promise((r) => setTimeout(r, 30));
    // The same transform spelled differently (parameter order, jpg alias unaffected) hits the same object.
    const second = await image(`/assets/${png.id}?quality=70&format=webp&height=33&width=77`);
    expect(second.res.bytes.equals(first.res.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
    expect(second.res.headers.get('etag')).toBe(first.res.headers.get('etag'));
    expect(readdirSync(t.root).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('transformed responses: 200 without Accept-Ranges even with a Range; ETag, Last-Modified, 304', async () => {
    const path = `/assets/${png.id}?width=50`;
    const res = await get(t, path, { headers: { range: 'bytes=0-9' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBeNull();
    expect(res.headers.get('content-range')).toBeNull();
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    expect(res.headers.get('last-modified')).toBeTruthy();
    expect((await get(t, path, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await get(t, path, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect(head.headers.get('content-length')).toBe(res.headers.get('content-length'));
  });

  it('a transformed download is named after the output format', async () => {
    const res = await get(t, `/assets/${png.id}?width=50&format=webp&download`);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="halves.webp"; filename*=UTF-8''halves.webp`);
  });

  it('Cache-Control of a transform follows the file: private unless the Public role may read it', async () => {
    expect((await get(t, `/assets/${png.id}?width=51`)).headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    const pub = await addFile(t, { bytes: await halves(100, 100), type: 'image/png' });
    await run(t.services.database.db, "update svc_files set title = 'open' where id = $1", [pub.id]);
    await grantPublicRead(t, { title: { _eq: 'open' } });
    const anon = await get(t, `/assets/${pub.id}?width=20`, { token: null });
    expect(anon.status).toBe(200);
    expect(anon.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect((await get(t, `/assets/${png.id}?width=20`, { token: null })).status).toBe(403);
  });

  it('a cold miss renders once: requests arriving while it renders, and just after, all get the one output', async () => {
    // Every render writes the output anew (a new mtime, so a new ETag); staggered requests cover the window in
    // which a request saw no output but reaches the render after the first one has finished.
    const f = await addFile(t, { bytes: await halves(1600, 1200, 'jpeg'), type: 'image/jpeg' });
    for (const width of [333, 334, 335, 336, 337]) {
      const path = `/assets/${f.id}?width=${width}&quality=71`;
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => new Promise((r) => setTimeout(r, i)).then(() => get(t, path))));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      expect(new Set(answers.map((a) => a.headers.get('etag'))).size, `width ${width}`).toBe(1);
    }
  });

  it('a replaced original makes older cached outputs stale', async () => {
    const f = await addFile(t, { bytes: await halves(200, 100), type: 'image/png' });
    const first = await image(`/assets/${f.id}?width=20&format=png`);
    expect(first.meta.height).toBe(10);
    // Replace the bytes (now 200x200) and bump modified_on, as a multipart PATCH does.
    const { Readable } = await import('node:stream');
    const driver = (await t.services.storage.providers((await t.services.schema.get()).version)).get('local');
    await driver.write(f.disk, Readable.from([await halves(200, 200)]));
    await run(t.services.database.db, "update svc_files set modified_on = now() + interval '5 seconds' where id = $1", [f.id]);
    const second = await image(`/assets/${f.id}?width=20&format=png`);
    expect(second.meta.height).toBe(20);
  });
});

describe('what is not transformed', () => {
  it('other types are served raw and the parameters ignored', async () => {
    const bin = await addFile(t, { bytes: pattern(300), type: 'application/pdf' });
    const res = await get(t, `/assets/${bin.id}?width=10&format=webp&fit=bogus`);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(pattern(300))).toBe(true);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-type')).toBe('application/pdf');
  });

  it('an empty `transforms` list is the original', async () => {
    const res = await get(t, `/assets/${png.id}?transforms=%5B%5D`, { headers: { range: 'bytes=0-7' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-type')).toBe('image/png');
  });

  it('no transform parameters: the original, with ranges', async () => {
    const res = await get(t, `/assets/${png.id}?download`, { headers: { range: 'bytes=0-7' } });
    expect(res.status).toBe(206);
    expect(res.bytes.subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('validation', () => {
  it('bad parameters are 400 INVALID_QUERY', async () => {
    for (const q of [
      'width=abc', 'width=-1', 'width=0', 'width=1.5', 'width=1e3', 'height=%2010', 'fit=bogus', 'quality=0', 'quality=101',
      'quality=x', 'format=gif', 'format=bmp', 'withoutEnlargement=maybe', 'focal_point_x=-3', 'transforms=nope',
      `transforms=${encodeURIComponent('{"a":1}')}`, `transforms=${encodeURIComponent('[["toFile","/tmp/x"]]')}`,
      `transforms=${encodeURIComponent('[["blur","big"]]')}`, `transforms=${encodeURIComponent('[["__proto__"]]')}`,
    ]) {
      const res = await get(t, `/assets/${png.id}?${q}`);
      expect(res.status, q).toBe(400);
      expect(code(res), q).toBe('INVALID_QUERY');
    }
  });

  it('width or height above ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION is 400', async () => {
    expect((await get(t, `/assets/${png.id}?width=2001`)).status).toBe(400);
    expect((await get(t, `/assets/${png.id}?height=2001`)).status).toBe(400);
    expect((await get(t, `/assets/${png.id}?width=2000`)).status).toBe(200);
  });

  it('a decompression bomb (more than max² pixels) is refused with a 4xx and nothing cached', async () => {
    // 3000 x 3000 of one colour: a few kB compressed, 9 Mpx decoded (> 2000²).
    const bomb = await addFile(t, { bytes: await sharp({ create: { width: 3000, height: 3000, channels: 3, background: '#fff' } }).png().toBuffer(), type: 'image/png' });
    const res = await get(t, `/assets/${bomb.id}?width=10`);
    expect(res.status).toBe(422);
    expect(code(res)).toBe('UNPROCESSABLE_CONTENT');
    expect(readdirSync(t.root).filter((n) => n.startsWith(`${bomb.id}__`) || n.startsWith('.'))).toEqual([]);
    // The original itself is still served raw.
    expect((await get(t, `/assets/${bomb.id}`)).status).toBe(200);
  });
});

describe('settings.storage_asset_transform and presets', () => {
  const setPolicy = async (policy: string, presets: unknown[] | null) => {
    const res = await t.req('PATCH', '/settings', { storage_asset_transform: policy, storage_asset_presets: presets });
    expect(res.status).toBe(200);
  };
  const presets = [{ key: 'thumb', width: 50, height: 40, fit: 'cover', format: 'webp', quality: 80 }];
  afterAll(() => setPolicy('all', null));

  it('all: any transform, configured and system presets; unknown keys 400; key with other parameters 400', async () => {
    await setPolicy('all', presets);
    expect((await image(`/assets/${png.id}?key=thumb`)).meta).toMatchObject({ width: 50, height: 40, format: 'webp' });
    expect((await image(`/assets/${png.id}?key=system-small-cover`, { accept: 'image/webp' })).meta).toMatchObject({ width: 64, height: 64, format: 'webp' });
    expect(code(await get(t, `/assets/${png.id}?key=nope`))).toBe('INVALID_QUERY');
    expect(code(await get(t, `/assets/${png.id}?key=thumb&width=10`))).toBe('INVALID_QUERY');
    expect((await get(t, `/assets/${png.id}?width=33`)).status).toBe(200);
  });

  it('presets: only preset keys; anything else 403', async () => {
    await setPolicy('presets', presets);
    expect((await image(`/assets/${png.id}?key=thumb`)).meta).toMatchObject({ width: 50, height: 40 });
    expect(code(await get(t, `/assets/${png.id}?width=34`))).toBe('FORBIDDEN');
    expect(code(await get(t, `/assets/${png.id}?key=nope`))).toBe('FORBIDDEN');
    expect((await get(t, `/assets/${png.id}`)).status).toBe(200);
  });

  it('none: no transforms but the system presets; the original still served', async () => {
    await setPolicy('none', presets);
    expect(code(await get(t, `/assets/${png.id}?width=35`))).toBe('FORBIDDEN');
    expect(code(await get(t, `/assets/${png.id}?key=thumb`))).toBe('FORBIDDEN');
    expect((await get(t, `/assets/${png.id}?key=system-small-contain`)).status).toBe(200);
    expect((await get(t, `/assets/${png.id}`)).status).toBe(200);
  });
});
