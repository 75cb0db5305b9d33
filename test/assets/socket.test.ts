/** Assets over a real socket (@hono/node-server, as `npm start` serves them): a large file streams whole,
 * HEAD carries Content-Length without a body, a range arrives exactly, and a client that hangs up mid-body
 * leaves the server serving (the file stream is closed, nothing crashes). */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { addFile, assetApp, pattern, type AssetTestApp } from './helpers.ts';

let t: AssetTestApp;
let server: ServerType;
let port: number;
const SIZE = 8 * 1024 * 1024;
const body = pattern(SIZE);
let id: string;

beforeAll(async () => {
  t = await assetApp();
  id = (await addFile(t, { bytes: body, type: 'application/octet-stream' })).id;
  server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.dispose();
});

const url = (path: string) => `http://127.0.0.1:${port}${path}`;
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('assets over a socket', () => {
  it('streams an 8 MB file whole', async () => {
    const res = await fetch(url(`/assets/${id}`), { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(SIZE));
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
  });

  it('HEAD: Content-Length and no body', async () => {
    const res = await fetch(url(`/assets/${id}`), { method: 'HEAD', headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(SIZE));
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('a range arrives exactly', async () => {
    const res = await fetch(url(`/assets/${id}`), { headers: { ...auth, range: 'bytes=1000000-1999999' } });
    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer()).equals(body.subarray(1_000_000, 2_000_000))).toBe(true);
  });

  it('a client hanging up mid-body leaves the server serving', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = request(url(`/assets/${id}`), { headers: auth }, (res) => {
        let got = 0;
        res.on('data', (chunk: Buffer) => {
          got += chunk.length;
          if (got > 256 * 1024) {
            req.destroy();
            resolve();
          }
        });
        res.on('error', () => resolve());
      });
      req.on('error', (err) => (req.destroyed ? resolve() : reject(err)));
      req.end();
    });
    await new Promise((r) => setTimeout(r, 100));
    const res = await fetch(url(`/assets/${id}`), { headers: { ...auth, range: 'bytes=0-9' } });
    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer()).equals(body.subarray(0, 10))).toBe(true);
  });
});
