/** Both storage drivers against real peers: the local driver on a temporary directory, the objectstore driver
 * on a real S3-protocol server (s3rver). Same behaviour expected of each. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageDriver } from '../../core/storage/driver.ts';
import { LocalDriver } from '../../core/storage/local.ts';
import { ObjectstoreDriver } from '../../core/storage/objectstore.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A stream that sends some bytes, then fails (a client that went away mid-upload). */
function failingStream(bytes: number): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) { sent = true; this.push(Buffer.alloc(bytes, 'x')); return; }
      this.destroy(new Error('client went away'));
    },
  });
}

let dir: string;
let s3: TestS3;
const drivers: Record<string, () => StorageDriver> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-local-'));
  s3 = await startS3();
  drivers.local = () => new LocalDriver(dir);
  drivers.objectstore = () => new ObjectstoreDriver({ ...s3.config, root: 'deploy-a' });
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await s3.close();
});

describe.each(['local', 'objectstore'])('%s driver', (name) => {
  it('writes, stats, reads whole and by range, lists by prefix and deletes', async () => {
    const d = drivers[name]();
    const size = await d.write('abc.txt', Readable.from([Buffer.from('hello '), Buffer.from('world')]), 'text/plain');
    expect(size).toBe(11);
    const st = await d.stat('abc.txt');
    expect(st?.size).toBe(11);
    expect(st?.modified).toBeInstanceOf(Date);
    expect(await text(await d.read('abc.txt'))).toBe('hello world');
    expect(await text(await d.read('abc.txt', { start: 6, end: 10 }))).toBe('world');
    await d.write('abc__0123456789ab.webp', Readable.from([Buffer.from('t')]));
    await d.write('abd.txt', Readable.from([Buffer.from('o')]));
    const listed: string[] = [];
    for await (const k of d.list('abc')) listed.push(k);
    expect(listed.sort()).toEqual(['abc.txt', 'abc__0123456789ab.webp']);
    await d.delete('abc.txt');
    await d.delete('abc.txt'); // absent is fine
    expect(await d.stat('abc.txt')).toBeNull();
    await expect(d.read('abc.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('streams a large object in parts and reads a range from its middle', async () => {
    const d = drivers[name]();
    const part = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < part.length; i++) part[i] = i % 251;
    // 12 MiB: more than two objectstore parts, never held whole by the driver.
    const size = await d.write('big.bin', Readable.from((function* () { for (let i = 0; i < 12; i++) yield part; })()));
    expect(size).toBe(12 * 1024 * 1024);
    expect((await d.stat('big.bin'))?.size).toBe(12 * 1024 * 1024);
    const chunks: Buffer[] = [];
    for await (const c of await d.read('big.bin', { start: 5 * 1024 * 1024 + 3, end: 5 * 1024 * 1024 + 6 })) chunks.push(c as Buffer);
    expect([...Buffer.concat(chunks)]).toEqual([0, 1, 2, 3].map((i) => ((5 * 1024 * 1024 + 3 + i) % (1024 * 1024)) % 251));
    await d.delete('big.bin');
  });

  it('leaves nothing behind when the source stream fails', async () => {
    const d = drivers[name]();
    await expect(d.write('broken.bin', failingStream(1024))).rejects.toThrow();
    expect(await d.stat('broken.bin')).toBeNull();
    if (name === 'local') expect(readdirSync(dir).filter((f) => f.includes('broken'))).toEqual([]);
  });

  it('refuses keys that could leave the root', async () => {
    const d = drivers[name]();
    for (const key of ['../x', '..', 'a/b', '/etc/passwd', 'a\\b', '.hidden', '', 'a\0b', 'x'.repeat(300)]) {
      await expect(d.write(key, Readable.from([Buffer.from('x')])), key).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
      await expect(d.read(key), key).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    }
  });
});
