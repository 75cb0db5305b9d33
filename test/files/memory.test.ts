/** A 200 MB upload through app.request, generated as a stream, must not be held in memory: RSS may not grow
 * by more than ~100 MB (a sanity check of streaming, not a timing test). */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOUNDARY, filesApp, send, type FilesTestApp } from './helpers.ts';

let f: FilesTestApp;
beforeAll(async () => { f = await filesApp({ FILES_MAX_UPLOAD_SIZE: '300mb' }); });
afterAll(async () => { await f.close(); });

const SIZE = 200 * 1024 * 1024;
const CHUNK = 256 * 1024;

function generated(): ReadableStream<Uint8Array> {
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  // One chunk, enqueued again and again (a view, no copy): what grows RSS is then the server's doing.
  const chunk = new Uint8Array(Buffer.alloc(CHUNK, 0x61));
  let sent = -1;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent < 0) {
        controller.enqueue(new Uint8Array(head));
        sent = 0;
      } else if (sent < SIZE) {
        controller.enqueue(chunk.subarray());
        sent += CHUNK;
      } else {
        controller.enqueue(new Uint8Array(tail));
        controller.close();
      }
    },
  }, { highWaterMark: 1 });
}

describe('upload memory', () => {
  it('streams a 200 MB upload without raising RSS by more than ~100 MB', async () => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
    try {
      const res = await send(f.t, 'POST', '/files', generated());
      expect(res.status).toBe(200);
      expect(String(res.body.data.filesize)).toBe(String(SIZE));
      expect(statSync(join(f.root, res.body.data.filename_disk)).size).toBe(SIZE);
    } finally {
      clearInterval(timer);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);
  }, 120_000);
});
