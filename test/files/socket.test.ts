/** Uploads over a real socket (@hono/node-server, as `npm start` serves them): an over-limit upload gets its
 * 413 answer, and a client that aborts mid-body leaves no object and no row. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { run } from '../../core/db/database.ts';
import { uploadSlots } from '../../core/files/semaphore.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { BOUNDARY, filesApp, multipart, type FilesTestApp } from './helpers.ts';

let f: FilesTestApp;
let server: ReturnType<typeof serve>;
let port: number;

beforeAll(async () => {
  f = await filesApp({ FILES_MAX_UPLOAD_SIZE: '100kb' });
  server = serve({ fetch: f.t.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await f.close();
});

function post(body: Buffer, abortAfter?: number): Promise<string> {
  return new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1', port, method: 'POST', path: '/files',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, authorization: `Bearer ${ADMIN_TOKEN}`, 'content-length': body.length },
    }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve(`${res.statusCode} ${text}`));
    });
    req.on('error', (e) => resolve(`error ${e.message}`));
    // The server answers 413 and closes while this client is still sending: its late EPIPE is expected.
    req.on('socket', (socket) => socket.on('error', () => {}));
    if (abortAfter === undefined) req.end(body);
    else {
      req.write(body.subarray(0, abortAfter));
      setTimeout(() => req.destroy(), 100);
    }
  });
}

async function rows(): Promise<number> {
  const [r] = await run<{ n: number }>(f.t.services.database.db, 'select count(*)::int as n from svc_files');
  return r.n;
}

it('answers 413 over the socket and stores nothing', async () => {
  const result = await post(multipart([{ name: 'file', filename: 'big.bin', data: Buffer.alloc(5 * 1024 * 1024, 1) }]));
  expect(result).toMatch(/^413 .*CONTENT_TOO_LARGE/);
  expect(f.stored()).toEqual([]);
  expect(await rows()).toBe(0);
});

it('leaves nothing when the client aborts mid-body', async () => {
  const body = multipart([{ name: 'file', filename: 'cut.bin', data: Buffer.alloc(60 * 1024, 2) }]);
  await post(body, 30 * 1024);
  await new Promise((r) => setTimeout(r, 300));
  expect(f.stored()).toEqual([]);
  // No temporary left behind, no upload slot held by a write waiting for bytes that never come.
  expect(readdirSync(f.root).filter((n) => n.startsWith('.'))).toEqual([]);
  expect(uploadSlots(5).active).toBe(0);
  expect(await rows()).toBe(0);
  // The server is still fine afterwards.
  expect(await post(multipart([{ name: 'file', filename: 'ok.txt', type: 'text/plain', data: 'ok' }]))).toMatch(/^200 /);
});
