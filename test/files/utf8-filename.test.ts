/** Multipart filenames are UTF-8 (as browsers and fetch's FormData send them): uploads and replacements keep
 * the name as sent, and /assets names it back in `Content-Disposition` as RFC 5987 `filename*` beside an ASCII
 * fallback `filename=`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { BOUNDARY, filesApp, multipart, send, upload, type FilesTestApp } from './helpers.ts';

let f: FilesTestApp;

beforeAll(async () => { f = await filesApp(); });
afterAll(async () => { await f.close(); });

const NAMES: { name: string; ascii: string; encoded: string }[] = [
  { name: 'Bild-Ω.png', ascii: 'Bild-_.png', encoded: 'Bild-%CE%A9.png' },
  { name: 'Grüße aus Köln.txt', ascii: 'Gr__e aus K_ln.txt', encoded: 'Gr%C3%BC%C3%9Fe%20aus%20K%C3%B6ln.txt' },
  { name: '日本語.txt', ascii: '___.txt', encoded: '%E6%97%A5%E6%9C%AC%E8%AA%9E.txt' },
  { name: 'smile-😀.txt', ascii: 'smile-_.txt', encoded: 'smile-%F0%9F%98%80.txt' },
];

async function asset(id: string, query = ''): Promise<Response> {
  return f.t.app.request(`/assets/${id}${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
}

describe('UTF-8 multipart filenames', () => {
  it.each(NAMES)('POST /files keeps "$name" and /assets names it in filename*', async ({ name, ascii, encoded }) => {
    const res = await upload(f.t, [{ name: 'file', filename: name, type: 'text/plain', data: 'hello' }]);
    expect(res.status).toBe(200);
    expect(res.body.data.filename_download).toBe(name);

    const inline = await asset(res.body.data.id);
    expect(inline.status).toBe(200);
    expect(inline.headers.get('content-disposition')).toBe(`inline; filename="${ascii}"; filename*=UTF-8''${encoded}`);
    await inline.arrayBuffer();
    const download = await asset(res.body.data.id, '?download');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`);
    await download.arrayBuffer();
  });

  it('reads the name from fetch FormData (what @directus/sdk sends)', async () => {
    const form = new FormData();
    form.append('title', 'Ω title');
    form.append('file', new Blob(['png-ish'], { type: 'image/png' }), 'Bild-Ω.png');
    const res = await f.t.app.request('/files', { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: form });
    expect(res.status).toBe(200);
    const body = await res.json() as { data: { filename_download: string; title: string } };
    expect(body.data).toMatchObject({ filename_download: 'Bild-Ω.png', title: 'Ω title' });
  });

  it('still reads an RFC 5987 filename* part parameter', async () => {
    const body = Buffer.concat([
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''Bild-%CE%A9.png\r\nContent-Type: text/plain\r\n\r\nhi\r\n`),
      Buffer.from(`--${BOUNDARY}--\r\n`),
    ]);
    const res = await send(f.t, 'POST', '/files', body);
    expect(res.status).toBe(200);
    expect(res.body.data.filename_download).toBe('Bild-Ω.png');
  });

  it('PATCH /files/{id} multipart replacement takes the new UTF-8 name', async () => {
    const first = await upload(f.t, [{ name: 'file', filename: 'plain.txt', type: 'text/plain', data: 'one' }]);
    expect(first.status).toBe(200);
    const id = first.body.data.id as string;
    const res = await send(f.t, 'PATCH', `/files/${id}`, multipart([{ name: 'file', filename: 'Ersatz-Ω.txt', type: 'text/plain', data: 'two' }]));
    expect(res.status).toBe(200);
    expect(res.body.data.filename_download).toBe('Ersatz-Ω.txt');
    const served = await asset(id, '?download');
    expect(served.headers.get('content-disposition')).toBe(`attachment; filename="Ersatz-_.txt"; filename*=UTF-8''Ersatz-%CE%A9.txt`);
    expect(await served.text()).toBe('two');
  });
});
