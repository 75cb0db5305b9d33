/** /admin over HTTP (no browser): the single page with a strict CSP and no caching, hashed assets immutable and
 * precompressed, deep links answered with the page, a missing asset a 404; the public project info the sign-in page
 * is built from; GET /policies/me/globals for each kind of caller; and PATCH /users/me/track/page. */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { defaultStudioDir, mountStudio, STUDIO_CSP } from '../../container/studio.ts';
import { loadConfig } from '../../core/config.ts';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

describe('/admin', () => {
  it('redirects /admin to /admin/ and answers the page with a strict CSP, never cached', async () => {
    const bare = await t.app.request('/admin');
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/admin/');
    for (const path of ['/admin/', '/admin/login', '/admin/content/posts/12']) {
      const res = await t.app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      const html = await res.text();
      expect(html).toContain('<div id="root"></div>');
      // Every script is a file of this origin: nothing inline for the CSP to refuse.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('serves hashed assets as immutable, precompressed when the client accepts it, and 404s a missing one', async () => {
    const assets = readdirSync(join(defaultStudioDir(), 'assets'));
    const script = assets.find((f) => f.endsWith('.js'));
    expect(script).toBeDefined();
    const plain = await t.app.request(`/admin/assets/${script}`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-type')).toContain('javascript');
    const brotli = await t.app.request(`/admin/assets/${script}`, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(brotli.headers.get('content-encoding')).toBe('br');
    expect(Number(brotli.headers.get('content-length'))).toBeLessThan(Number(plain.headers.get('content-length')));
    const missing = await t.app.request('/admin/assets/no-such-chunk-abc123.js');
    expect(missing.status).toBe(404);
    const traversal = await t.app.request('/admin/assets/..%2f..%2fpackage.json');
    expect(traversal.status).toBe(404);
  });

  it('keeps the first load within 300 kB of gzipped JavaScript, with no admin module in it', async () => {
    const dir = join(defaultStudioDir(), 'assets');
    const html = await (await t.app.request('/admin/')).text();
    const first = [...html.matchAll(/(?:src|href)="\/admin\/assets\/([^"]+\.js)"/g)].map((m) => m[1]);
    expect(first.length).toBeGreaterThan(0);
    const gzipped = first.reduce((sum, f) => sum + statSync(join(dir, `${f}.gz`)).size, 0);
    expect(gzipped).toBeLessThanOrEqual(300_000);
    // The admin modules load when opened: neither their chunks nor their words are in the first load.
    expect(first.filter((f) => /^(Review|DataModel|Access|Messaging|Settings)Module-/.test(f))).toEqual([]);
    // The realtime client loads with the first subscription, not with the page.
    expect(first.filter((f) => /^realtime-/.test(f))).toEqual([]);
    expect(readdirSync(dir).some((f) => /^realtime-.*\.js$/.test(f))).toBe(true);
    const code = first.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    for (const phrase of ['Show system collections', 'Failed sign-ins before lockout', 'Scheduled publishing', 'Send logs']) expect(code).not.toContain(phrase);
    for (const name of ['ReviewModule', 'DataModelModule', 'AccessModule', 'MessagingModule', 'SettingsModule']) {
      expect(readdirSync(dir).some((f) => f.startsWith(`${name}-`) && f.endsWith('.js')), name).toBe(true);
      }
    });

  it('lets live preview frame exactly the origins of STUDIO_PREVIEW_ORIGINS, changing nothing else', async () => {
    const directives = (csp: string) => new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values.join(' ')]));
    const config = loadConfig({ STUDIO_PREVIEW_ORIGINS: 'https://www.example.com, http://localhost:3000/' });
    const app = new Hono();
    mountStudio(app as never, { previewOrigins: config.studioPreviewOrigins });
    const res = await app.request('/admin/content/posts/12');
    expect(res.status).toBe(200);
    const framed = directives(res.headers.get('content-security-policy') ?? '');
    const plain = directives(STUDIO_CSP);
    expect(framed.get('frame-src')).toBe("'self' https://www.example.com http://localhost:3000");
    expect(plain.get('frame-src')).toBe("'self'");
    // Every other directive is the plain policy's, word for word.
    expect([...framed.keys()]).toEqual([...plain.keys()]);
    for (const [name, value] of plain) if (name !== 'frame-src') expect(framed.get(name), name).toBe(value);
    // The default app (no STUDIO_PREVIEW_ORIGINS) frames only itself.
    expect((await t.app.request('/admin/')).headers.get('content-security-policy')).toBe(STUDIO_CSP);
    // Not an origin: the start stops with the reason, before anything is served with a loose policy.
    for (const bad of ['https://*.example.com', 'https://example.com/site', "https://example.com 'unsafe-inline'", 'example.com', 'ftp://example.com']) {
      expect(() => mountStudio(new Hono() as never, { previewOrigins: [bad] }), bad).toThrow(/STUDIO_PREVIEW_ORIGINS/);
    }
  });
});

describe('GET /server/info', () => {
  it('carries the public face of the sign-in page from the settings, to anyone', async () => {
    await t.req('PATCH', '/settings', { project_name: 'Harbour Press', project_color: '#0b6e4f', public_note: 'Staff only', custom_css: 'body { --x: 1; }', default_appearance: 'dark' });
    const res = await t.req('GET', '/server/info', undefined, { token: null });
    expect(res.status).toBe(200);
    expect(res.body.data.project).toMatchObject({
      name: 'Harbour Press', color: '#0b6e4f', public_note: 'Staff only', custom_css: 'body { --x: 1; }', default_appearance: 'dark',
      logo: null, public_background: null, public_registration: false,
    });
    // Settings that are not the sign-in page's stay out.
    expect(JSON.stringify(res.body)).not.toMatch(/mapbox|public_role|storage_/);
  });
});

describe('GET /policies/me/globals', () => {
  it('answers each caller its own merged flags; the public and a share token get 401', async () => {
    const admin = await t.req('GET', '/policies/me/globals');
    expect(admin.body.data).toEqual({ app_access: true, admin_access: true, enforce_tfa: false });
    await createPrincipal(t.services, { token: 'globals-editor', permissions: [], appAccess: true });
    const app = await t.req('GET', '/policies/me/globals', undefined, { token: 'globals-editor' });
    expect(app.body.data).toEqual({ app_access: true, admin_access: false, enforce_tfa: false });
    await createPrincipal(t.services, { token: 'globals-api', permissions: [] });
    const api = await t.req('GET', '/policies/me/globals', undefined, { token: 'globals-api' });
    expect(api.body.data).toEqual({ app_access: false, admin_access: false, enforce_tfa: false });
    const anonymous = await t.req('GET', '/policies/me/globals', undefined, { token: null });
    expect(anonymous.status).toBe(401);
    // A share token is not a user: it has no flags of its own to read.
    await createContentModel(t.services, { seed: true });
    const { role } = await createPrincipal(t.services, { token: 'globals-share-role', permissions: [{ collection: 'posts', action: 'read' }], appAccess: true });
    const share = randomUUID();
    await run(t.services.database.db, "insert into svc_shares (id, collection, item, role) values ($1, 'posts', '1', $2)", [share, role]);
    const shared = await t.req('POST', '/shares/auth', { share }, { token: null });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    const viaShare = await t.req('GET', '/policies/me/globals', undefined, { token: shared.body.data.access_token });
    expect(viaShare.status).toBe(401);
  });
});

describe('PATCH /users/me/track/page', () => {
  it('keeps the page in last_page without activity; bad input is 400, no user 401, nothing written', async () => {
    await createPrincipal(t.services, { token: 'track-page-user', permissions: [], appAccess: true });
    const before = await t.req('GET', '/activity?aggregate[count]=*');
    const ok = await t.req('PATCH', '/users/me/track/page', { last_page: '/content/posts' }, { token: 'track-page-user' });
    expect(ok.status).toBe(204);
    const me = await t.req('GET', '/users/me?fields=last_page', undefined, { token: 'track-page-user' });
    expect(me.body.data.last_page).toBe('/content/posts');
    for (const body of [{ last_page: 5 }, {}, { last_page: 'x'.repeat(256) }]) {
      const bad = await t.req('PATCH', '/users/me/track/page', body, { token: 'track-page-user' });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
    const anonymous = await t.req('PATCH', '/users/me/track/page', { last_page: '/files' }, { token: null });
    expect(anonymous.status).toBe(401);
    const after = await t.req('GET', '/users/me?fields=last_page', undefined, { token: 'track-page-user' });
    expect(after.body.data.last_page).toBe('/content/posts');
    expect((await t.req('GET', '/activity?aggregate[count]=*')).body.data).toEqual(before.body.data);
  });
});
