/** POST /files/import: success through a local server on 127.0.0.1 (allowed by FILES_IMPORT_IP_ALLOW_LIST),
 * and every refusal of the server-side request forgery protection. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { filesApp, type FilesTestApp } from './helpers.ts';

let server: http.Server;
let base: string;
let hits = 0;
let png: Buffer;

beforeAll(async () => {
  png = await sharp({ create: { width: 16, height: 9, channels: 3, background: 'green' } }).png().toBuffer();
  server = http.createServer((req, res) => {
    hits++;
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/image.png': res.writeHead(200, { 'content-type': 'image/png' }); res.end(png); return;
      case '/named': res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="../../report.txt"' }); res.end('report'); return;
      case '/redirect': res.writeHead(302, { location: '/image.png' }); res.end(); return;
      case '/redirect-metadata': res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }); res.end(); return;
      case '/redirect-private': res.writeHead(301, { location: 'http://10.0.0.1/x' }); res.end(); return;
      case '/loop': res.writeHead(302, { location: '/loop' }); res.end(); return;
      case '/big': res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(64 * 1024) }); res.end(Buffer.alloc(64 * 1024)); return;
      case '/big-chunked': {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        for (let i = 0; i < 64; i++) res.write(Buffer.alloc(1024, 7));
        res.end();
        return;
      }
      case '/pdf': res.writeHead(200, { 'content-type': 'application/pdf' }); res.end('%PDF-1.4'); return;
      case '/missing': res.writeHead(404); res.end(); return;
      case '/stall': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('started');
        setTimeout(() => res.end(), 3000);
        return;
      }
      default: res.writeHead(404); res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => { await new Promise((resolve) => server.close(resolve)); });

function code(res: { body: any }): string {
  return res.body?.errors?.[0]?.extensions?.code;
}

describe('with 127.0.0.1/32 allowed', () => {
  let f: FilesTestApp;
  beforeAll(async () => { f = await filesApp({ FILES_IMPORT_IP_ALLOW_LIST: '127.0.0.1/32', FILES_MAX_UPLOAD_SIZE: '32kb', FILES_MIME_TYPE_ALLOW_LIST: 'image/*,text/*,application/octet-stream', FILES_IMPORT_TIMEOUT: '300ms' }); });
  afterAll(async () => { await f.close(); });

  async function rows(): Promise<number> {
    const [r] = await run<{ n: number }>(f.t.services.database.db, 'select count(*)::int as n from svc_files');
    return r.n;
  }

  it('imports a file with the given fields, stored and probed like an upload', async () => {
    const folder = await f.t.req('POST', '/folders', { name: 'Imports' });
    const res = await f.t.req('POST', '/files/import', { url: `${base}/image.png`, data: { title: 'Imported', folder: folder.body.data.id } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ title: 'Imported', folder: folder.body.data.id, type: 'image/png', width: 16, height: 9, filename_download: 'image.png' });
    expect(f.stored()).toContain(`${res.body.data.id}.png`);
  });

  it('follows redirects on allowed addresses and takes a sanitized Content-Disposition name', async () => {
    const r = await f.t.req('POST', '/files/import', { url: `${base}/redirect` });
    expect(r.status).toBe(200);
    expect(r.body.data.width).toBe(16);
    const named = await f.t.req('POST', '/files/import', { url: `${base}/named` });
    expect(named.status).toBe(200);
    expect(named.body.data.filename_download).toBe('report.txt');
  });

  it('re-checks every redirect hop, and stops after 5', async () => {
    for (const path of ['/redirect-metadata', '/redirect-private']) {
      const res = await f.t.req('POST', '/files/import', { url: `${base}${path}` });
      expect(res.status, path).toBe(400);
      expect(code(res)).toBe('INVALID_PAYLOAD');
    }
    const loop = await f.t.req('POST', '/files/import', { url: `${base}/loop` });
    expect(loop.status).toBe(503);
  });

  it('applies FILES_MAX_UPLOAD_SIZE (declared or streamed) and the MIME allow list, storing nothing', async () => {
    const before = f.stored();
    const n = await rows();
    for (const path of ['/big', '/big-chunked']) {
      const res = await f.t.req('POST', '/files/import', { url: `${base}${path}` });
      expect(res.status, path).toBe(413);
      expect(code(res)).toBe('CONTENT_TOO_LARGE');
    }
    const pdf = await f.t.req('POST', '/files/import', { url: `${base}/pdf` });
    expect(pdf.status).toBe(400);
    expect(code(pdf)).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await f.t.req('POST', '/files/import', { url: `${base}/missing` })).status).toBe(503);
    expect(f.stored()).toEqual(before);
    expect(await rows()).toBe(n);
  });

  it('gives up on a stalled server after FILES_IMPORT_TIMEOUT, storing nothing', async () => {
    const before = f.stored();
    const res = await f.t.req('POST', '/files/import', { url: `${base}/stall` });
    expect(res.status).toBe(503);
    expect(f.stored()).toEqual(before);
  });

  it('needs create permission, checked before anything is fetched', async () => {
    await createPrincipal(f.t.services, { token: 'import-reader', permissions: [{ collection: 'svc_files', action: 'read' }] });
    const before = hits;
    const res = await f.t.req('POST', '/files/import', { url: `${base}/image.png` }, { token: 'import-reader' });
    expect(res.status).toBe(403);
    expect((await f.t.req('POST', '/files/import', { url: `${base}/image.png` }, { token: null })).status).toBe(403);
    expect(hits).toBe(before);
  });

  it('still refuses other loopback addresses and IPv6 loopback', async () => {
    for (const url of ['http://[::1]/', `http://127.0.0.2:${new URL(base).port}/image.png`]) {
      const res = await f.t.req('POST', '/files/import', { url });
      expect(res.status, url).toBe(400);
    }
  });
});

describe('without an allow list', () => {
  let f: FilesTestApp;
  beforeAll(async () => { f = await filesApp(); });
  afterAll(async () => { await f.close(); });

  it('refuses loopback, link-local, mapped and private addresses and non-http schemes', async () => {
    const port = new URL(base).port;
    const before = hits;
    const urls = [
      `${base}/image.png`,
      `http://localhost:${port}/image.png`,
      'http://169.254.169.254/latest/meta-data/',
      `http://[::ffff:127.0.0.1]:${port}/image.png`,
      `http://[::ffff:7f00:1]:${port}/image.png`,
      'http://[::1]/',
      'http://[fe80::1]/',
      'http://0.0.0.0/',
      'http://10.1.2.3/',
      'http://192.168.0.1/',
      'http://172.16.5.4/',
      'http://[fd00::1]/',
      'http://224.0.0.1/',
      'http://2130706433/',
      'file:///etc/passwd',
      'gopher://127.0.0.1:70/',
      'ftp://example.com/x',
      'not a url',
    ];
    for (const url of urls) {
      const res = await f.t.req('POST', '/files/import', { url });
      expect(res.status, url).toBe(400);
      expect(code(res), url).toBe('INVALID_PAYLOAD');
    }
    expect((await f.t.req('POST', '/files/import', {})).status).toBe(400);
    expect(hits).toBe(before);
    expect(f.stored()).toEqual([]);
  });
});
