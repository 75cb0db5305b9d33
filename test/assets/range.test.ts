/** Range handling on raw files, every row of SPEC.md > Assets rule 6, through the HTTP app. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRange } from '../../core/assets/range.ts';
import { addFile, assetApp, code, get, pattern, type AssetTestApp } from './helpers.ts';

let t: AssetTestApp;
const SIZE = 10_000;
const body = pattern(SIZE);
let id: string;

beforeAll(async () => {
  t = await assetApp();
  id = (await addFile(t, { bytes: body, type: 'application/octet-stream' })).id;
});
afterAll(() => t.dispose());

const ranged = (range: string, extra: Record<string, string> = {}) => get(t, `/assets/${id}`, { headers: { range, ...extra } });

describe('Range (SPEC.md > Assets rule 6)', () => {
  it('no Range: 200, Accept-Ranges: bytes, Content-Length: size', async () => {
    const res = await get(t, `/assets/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(SIZE));
    expect(res.headers.get('content-range')).toBeNull();
    expect(res.bytes.equals(body)).toBe(true);
  });

  it('bytes=0-1023: 206, Content-Range bytes 0-1023/size, Content-Length 1024', async () => {
    const res = await ranged('bytes=0-1023');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 0-1023/${SIZE}`);
    expect(res.headers.get('content-length')).toBe('1024');
    expect(res.bytes.equals(body.subarray(0, 1024))).toBe(true);
  });

  it('a range in the middle returns exactly those bytes', async () => {
    const res = await ranged('bytes=1234-5677');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 1234-5677/${SIZE}`);
    expect(res.bytes.equals(body.subarray(1234, 5678))).toBe(true);
  });

  it('bytes=500-: 206, byte 500 to the end', async () => {
    const res = await ranged('bytes=500-');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 500-${SIZE - 1}/${SIZE}`);
    expect(res.headers.get('content-length')).toBe(String(SIZE - 500));
    expect(res.bytes.equals(body.subarray(500))).toBe(true);
  });

  it('bytes=-500: 206, the last 500 bytes', async () => {
    const res = await ranged('bytes=-500');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${SIZE - 500}-${SIZE - 1}/${SIZE}`);
    expect(res.headers.get('content-length')).toBe('500');
    expect(res.bytes.equals(body.subarray(SIZE - 500))).toBe(true);
  });

  it('a suffix longer than the file is the whole file as 206', async () => {
    const res = await ranged(`bytes=-${SIZE * 2}`);
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 0-${SIZE - 1}/${SIZE}`);
    expect(res.bytes.equals(body)).toBe(true);
  });

  it('an end beyond the end of the file is clamped to size-1', async () => {
    const res = await ranged(`bytes=9000-99999999`);
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 9000-${SIZE - 1}/${SIZE}`);
    expect(res.headers.get('content-length')).toBe('1000');
    expect(res.bytes.equals(body.subarray(9000))).toBe(true);
  });

  it('the last byte alone', async () => {
    const res = await ranged(`bytes=${SIZE - 1}-${SIZE - 1}`);
    expect(res.status).toBe(206);
    expect(res.bytes.equals(body.subarray(SIZE - 1))).toBe(true);
  });

  it('start beyond the end of the file: 416, Content-Range bytes */size, RANGE_NOT_SATISFIABLE', async () => {
    for (const range of [`bytes=${SIZE}-`, `bytes=${SIZE + 100}-${SIZE + 200}`, 'bytes=-0']) {
      const res = await ranged(range);
      expect(res.status, range).toBe(416);
      expect(res.headers.get('content-range'), range).toBe(`bytes */${SIZE}`);
      expect(code(res), range).toBe('RANGE_NOT_SATISFIABLE');
      expect(res.json.errors[0].message).toBeTruthy();
    }
  });

  it('malformed, letters, negative, reversed, multi-range or another unit: ignored, 200 full body', async () => {
    for (const range of [
      'bytes=abc-def', 'bytes=1a-20', 'bytes=0-0x10', 'bytes=-', 'bytes=--5', 'bytes=-5-10', 'bytes=+5-10',
      'bytes=500-100', 'bytes=0-99,200-299', 'bytes=0-99, 200-299', 'items=0-99', 'bytes 0-99', '0-99', 'bytes=',
      'bytes=1.5-10', 'bytes= 5-10', 'bytes=99999999999999999999-', 'garbage',
    ]) {
      const res = await ranged(range);
      expect(res.status, range).toBe(200);
      expect(res.headers.get('content-range'), range).toBeNull();
      expect(res.headers.get('content-length'), range).toBe(String(SIZE));
      expect(res.bytes.equals(body), range).toBe(true);
    }
  });

  it('HEAD with a Range: 206 headers, no body', async () => {
    const res = await get(t, `/assets/${id}`, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 0-9/${SIZE}`);
    expect(res.headers.get('content-length')).toBe('10');
    expect(res.bytes.length).toBe(0);
  });

  it('If-Range: the range applies with the current ETag, the whole file otherwise', async () => {
    const etag = (await get(t, `/assets/${id}`)).headers.get('etag')!;
    expect((await ranged('bytes=0-9', { 'if-range': etag })).status).toBe(206);
    const stale = await ranged('bytes=0-9', { 'if-range': '"stale"' });
    expect(stale.status).toBe(200);
    expect(stale.bytes.length).toBe(SIZE);
  });

  it('an empty file: no range is satisfiable, the whole (empty) file is 200', async () => {
    const empty = await addFile(t, { bytes: Buffer.alloc(0), type: 'application/octet-stream' });
    const full = await get(t, `/assets/${empty.id}`);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-length')).toBe('0');
    expect((await get(t, `/assets/${empty.id}`, { headers: { range: 'bytes=0-' } })).status).toBe(416);
  });
});

describe('parseRange', () => {
  it('parses the table rows', () => {
    expect(parseRange('bytes=0-1023', 5000)).toEqual({ kind: 'partial', range: { start: 0, end: 1023 } });
    expect(parseRange('bytes=500-', 5000)).toEqual({ kind: 'partial', range: { start: 500, end: 4999 } });
    expect(parseRange('bytes=-500', 5000)).toEqual({ kind: 'partial', range: { start: 4500, end: 4999 } });
    expect(parseRange('bytes=5000-', 5000)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-1,3-4', 5000)).toEqual({ kind: 'full' });
    expect(parseRange(undefined, 5000)).toEqual({ kind: 'full' });
  });
});
