/** Reads the first bytes of a stored object into memory: a bounded read (a byte range), for header sniffing. */
import type { StorageDriver } from '../storage/driver.ts';

export async function readPrefix(driver: StorageDriver, key: string, bytes: number): Promise<Buffer> {
  if (bytes <= 0) return Buffer.alloc(0);
  const stream = await driver.read(key, { start: 0, end: bytes - 1 });
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      chunks.push(buf);
      total += buf.length;
      if (total >= bytes) break;
    }
  } finally {
    stream.destroy();
  }
  const all = Buffer.concat(chunks, total);
  return all.length > bytes ? all.subarray(0, bytes) : all;
}
