/** GET/HEAD /assets/{id} (SPEC.md > Assets): lookup and 404s, permissions (403, Public role, access_token),
 * headers (type, disposition, cache control, validators, nosniff), 304s, and active content sandboxed. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { addFile, assetApp, code, get, grantPublicRead, pattern, type AssetTestApp } from './helpers.ts';

let t: AssetTestApp;
const body = pattern(5000);
let pub: string;
let priv: string;

beforeAll(async () => {
  t = await assetApp({ ASSETS_CACHE_TTL: '10m' });
  pub = (await addFile(t, { bytes: body, type: 'application/octet-stream', filename_download: 'public.bin' })).id;
  priv = (await addFile(t, { bytes: body, type: 'text/plain', filename_download: 'secret.txt' })).id;
  await run(t.services.database.db, "update svc_files set title = 'public' where id = $1", [pub]);
  // The Public role reads only rows titled "public" (a row filter).
  await grantPublicRead(t, { title: { _eq: 'public' } });
  await createPrincipal(t.services, { token: 'reader', permissions: [{ collection: 'svc_files', action: 'read' }] });
  await createPrincipal(t.services, { token: 'nobody', permissions: [] });
  await createPrincipal(t.services, { token: 'few-fields', permissions: [{ collection: 'svc_files', action: 'read', fields: ['title'] }] });
});
afterAll(() => t.dispose());

describe('lookup', () => {
  it('serves the bytes with type, length, disposition, cache control and validators', async () => {
    const res = await get(t, `/assets/${pub}`);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(body)).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-length')).toBe('5000');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="public.bin"; filename*=UTF-8''public.bin`);
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(new Date(res.headers.get('last-modified')!).getTime()).toBeGreaterThan(0);
  });

  it('strips a trailing extension: /assets/{id}.{ext} is the same asset', async () => {
    const a = await get(t, `/assets/${pub}`);
    const b = await get(t, `/assets/${pub}.bin`);
    expect(b.status).toBe(200);
    expect(b.bytes.equals(body)).toBe(true);
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    expect((await get(t, `/assets/${pub}.jpg`)).status).toBe(200);
  });

  it('answers 404 for unknown ids, non-uuid ids, incomplete uploads and missing objects', async () => {
    expect(code(await get(t, `/assets/${randomUUID()}`))).toBe('NOT_FOUND');
    expect((await get(t, `/assets/${randomUUID()}`)).status).toBe(404);
    expect((await get(t, '/assets/not-a-uuid')).status).toBe(404);
    expect((await get(t, '/assets/1')).status).toBe(404);
    const tus = await addFile(t, { bytes: body, type: 'text/plain', tus_id: 'abc123' });
    expect((await get(t, `/assets/${tus.id}`)).status).toBe(404);
    const missing = await addFile(t, { bytes: body, type: 'text/plain', noObject: true });
    expect(code(await get(t, `/assets/${missing.id}`))).toBe('NOT_FOUND');
    expect((await get(t, `/assets/${missing.id}`, { method: 'HEAD' })).status).toBe(404);
  });

  it('HEAD has the GET headers and no body', async () => {
    const g = await get(t, `/assets/${pub}`);
    const h = await get(t, `/assets/${pub}`, { method: 'HEAD' });
    expect(h.status).toBe(200);
    expect(h.bytes.length).toBe(0);
    for (const name of ['content-type', 'content-length', 'etag', 'last-modified', 'cache-control', 'content-disposition', 'accept-ranges']) {
      expect(h.headers.get(name), name).toBe(g.headers.get(name));
    }
  });
});

describe('permissions and cache control', () => {
  it('a file the Public role may read is served anonymously with public Cache-Control', async () => {
    const res = await get(t, `/assets/${pub}`, { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
  });

  it('a file outside the Public role row filter is 403 anonymously', async () => {
    const res = await get(t, `/assets/${priv}`, { token: null });
    expect(res.status).toBe(403);
    expect(code(res)).toBe('FORBIDDEN');
  });

  it('a private file is served with ?access_token= and never cached publicly', async () => {
    const res = await get(t, `/assets/${priv}?access_token=reader`, { token: null });
    expect(res.status).toBe(200);
    expect(res.bytes.equals(body)).toBe(true);
    expect(res.headers.get('cache-control')).toBe('private, max-age=600');
    const admin = await get(t, `/assets/${priv}?access_token=${ADMIN_TOKEN}`, { token: null });
    expect(admin.headers.get('cache-control')).toBe('private, max-age=600');
    // A public file stays public for authenticated callers too.
    expect((await get(t, `/assets/${pub}`, { token: 'reader' })).headers.get('cache-control')).toBe('public, max-age=600');
  });

  it('field permissions do not matter: a readable row is served whatever fields the caller may list', async () => {
    const res = await get(t, `/assets/${priv}`, { token: 'few-fields' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('content-disposition')).toContain('secret.txt');
    expect(res.bytes.equals(body)).toBe(true);
    expect((await get(t, `/assets/${randomUUID()}`, { token: 'few-fields' })).status).toBe(404);
  });

  it('a file the Public role reads only through an ip_access-limited policy is served privately', async () => {
    const db = t.services.database.db;
    const lan = (await addFile(t, { bytes: body, type: 'text/plain' })).id;
    await run(db, "update svc_files set title = 'lan' where id = $1", [lan]);
    const policy = randomUUID();
    await run(db, `insert into svc_policies (id, name, ip_access) values ($1, 'lan only', '["127.0.0.0/8"]')`, [policy]);
    await run(db, 'insert into svc_access (id, role, policy) select $1, public_role, $2 from svc_settings where id = 1', [randomUUID(), policy]);
    await run(db, `insert into svc_permissions (policy, collection, action, fields, permissions) values ($1, 'svc_files', 'read', '["*"]', '{"title":{"_eq":"lan"}}')`, [policy]);
    await t.services.schema.invalidate();
    // In-process requests come from 127.0.0.1: inside the policy's network.
    const res = await get(t, `/assets/${lan}`, { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, max-age=600');
    // Files the address-independent Public policy reads stay public.
    expect((await get(t, `/assets/${pub}`, { token: null })).headers.get('cache-control')).toBe('public, max-age=600');
  });

  it('a caller without read permission on svc_files is 403; a bad token 401', async () => {
    expect(code(await get(t, `/assets/${priv}`, { token: 'nobody' }))).toBe('FORBIDDEN');
    expect((await get(t, `/assets/${priv}?access_token=wrong`, { token: null })).status).toBe(401);
  });
});

describe('conditional requests', () => {
  it('If-None-Match with the ETag answers 304 without a body; another tag 200', async () => {
    const first = await get(t, `/assets/${pub}`);
    const etag = first.headers.get('etag')!;
    const again = await get(t, `/assets/${pub}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('public, max-age=600');
    expect((await get(t, `/assets/${pub}`, { headers: { 'if-none-match': `W/${etag}, "other"` } })).status).toBe(304);
    expect((await get(t, `/assets/${pub}`, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('If-Modified-Since at or after Last-Modified answers 304; before it 200; If-None-Match wins', async () => {
    const first = await get(t, `/assets/${pub}`);
    const lastModified = first.headers.get('last-modified')!;
    expect((await get(t, `/assets/${pub}`, { headers: { 'if-modified-since': lastModified } })).status).toBe(304);
    const earlier = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    expect((await get(t, `/assets/${pub}`, { headers: { 'if-modified-since': earlier } })).status).toBe(200);
    expect((await get(t, `/assets/${pub}`, { headers: { 'if-modified-since': lastModified, 'if-none-match': '"other"' } })).status).toBe(200);
    expect((await get(t, `/assets/${pub}`, { headers: { 'if-modified-since': 'garbage' } })).status).toBe(200);
  });

  it('the ETag changes when the file changes', async () => {
    const before = (await get(t, `/assets/${pub}`)).headers.get('etag');
    await run(t.services.database.db, "update svc_files set modified_on = now() + interval '1 minute' where id = $1", [pub]);
    const after = await get(t, `/assets/${pub}`, { headers: { 'if-none-match': before! } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before);
  });
});

describe('content disposition and active content', () => {
  it('?download answers as attachment', async () => {
    const res = await get(t, `/assets/${pub}?download`);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="public.bin"; filename*=UTF-8''public.bin`);
  });

  it('escapes quotes, separators, control and non-ASCII characters of filename_download', async () => {
    const f = await addFile(t, { bytes: body, type: 'text/plain', filename_download: 'ré"sumé\\..\\x\r\nSet-Cookie: a=b.txt' });
    const res = await get(t, `/assets/${f.id}`);
    const cd = res.headers.get('content-disposition')!;
    expect(cd).toBe(`inline; filename="r__sum__.._xSet-Cookie: a=b.txt"; filename*=UTF-8''r%C3%A9%22sum%C3%A9_.._xSet-Cookie%3A%20a%3Db.txt`);
    expect(cd).not.toMatch(/[\r\n]/);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('HTML and SVG are served with Content-Security-Policy: sandbox and nosniff', async () => {
    for (const [type, bytes] of [
      ['text/html', '<script>alert(document.cookie)</script>'],
      ['image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
      ['application/javascript', 'alert(1)'],
      ['application/xml', '<a/>'],
    ] as const) {
      const f = await addFile(t, { bytes: Buffer.from(bytes), type, ext: 'x' });
      const res = await get(t, `/assets/${f.id}`);
      expect(res.status, type).toBe(200);
      expect(res.headers.get('content-security-policy'), type).toBe('sandbox');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect((await get(t, `/assets/${pub}`)).headers.get('content-security-policy')).toBeNull();
  });

  it('a malformed stored type is answered as application/octet-stream', async () => {
    const f = await addFile(t, { bytes: body, type: 'text/html\r\nX-Evil: 1', ext: 'x' });
    const res = await get(t, `/assets/${f.id}`);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('x-evil')).toBeNull();
  });
});
