/** Upload limit building blocks: the semaphore queues (never refuses), the MIME allow list, download names,
 * and FILES_MAX_UPLOAD_CONCURRENCY through the app (parallel uploads over the limit all succeed). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mimeAllowed } from '../../core/files/limits.ts';
import { sanitizeDownloadName } from '../../core/files/names.ts';
import { Semaphore, uploadSlots } from '../../core/files/semaphore.ts';
import { filesApp, upload, type FilesTestApp } from './helpers.ts';

describe('Semaphore', () => {
  it('runs at most max at once and queues the rest in order', async () => {
    const s = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(Array.from({ length: 6 }, (_, i) => s.run(async () => {
      active++;
      peak = Math.max(peak, active);
      order.push(i);
      await new Promise((r) => setTimeout(r, 5));
      active--;
    })));
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(s.active).toBe(0);
  });

  it('frees the slot when the work fails', async () => {
    const s = new Semaphore(1);
    await expect(s.run(async () => { throw new Error('x'); })).rejects.toThrow('x');
    expect(await s.run(async () => 1)).toBe(1);
  });
});

describe('mimeAllowed', () => {
  it.each([
    [['*'], 'anything/at-all', true],
    [['image/*'], 'image/png', true],
    [['image/*'], 'imagex/png', false],
    [['image/*'], 'text/plain', false],
    [['text/plain'], 'text/plain; charset=utf-8', true],
    [['text/plain'], 'TEXT/PLAIN', true],
    [['application/pdf'], null, false],
  ] as const)('%j allows %s: %s', (list, type, expected) => {
    expect(mimeAllowed(type, list)).toBe(expected);
  });
});

describe('sanitizeDownloadName', () => {
  it.each([
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\system.ini', 'system.ini'],
    ['a/b/', 'b'],
    ['..', 'file'],
    ['', 'file'],
    ['na\u0000me\n.txt', 'name.txt'],
    ['photo.jpg', 'photo.jpg'],
  ])('%j -> %j', (raw, expected) => {
    expect(sanitizeDownloadName(raw)).toBe(expected);
  });
});

describe('FILES_MAX_UPLOAD_CONCURRENCY', () => {
  let f: FilesTestApp;
  beforeAll(async () => { f = await filesApp({ FILES_MAX_UPLOAD_CONCURRENCY: '1' }); });
  afterAll(async () => { await f.close(); });

  it('queues uploads over the limit instead of refusing them', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) =>
      upload(f.t, [{ name: 'file', filename: `p${i}.txt`, type: 'text/plain', data: `parallel ${i}`.repeat(1000) }])));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(uploadSlots(1).active).toBe(0);
    expect(f.stored()).toHaveLength(5);
  });
});
