/** Live preview in a real browser, against a real little website started here (node:http) that follows the preview
 * contract: it reads the item with a server-side static token of a minimal role (read on pages, versioning:view)
 * and, with svc_version, the draft's values; it answers previews with frame-ancestors naming the Studio's exact
 * origin, Cache-Control: no-store and noindex. The Studio frames it (STUDIO_PREVIEW_ORIGINS lists it, and nothing
 * else of the CSP changes), shows the item's page and then the draft's, and reloads the frame after each save. A
 * site the Studio may not frame gets a sentence instead of a blank frame. */
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../helpers/free-port.ts';
import { keyOf } from './item-editor-schema.ts';
import { api, checkScreen, JOURNEYS, launchBrowser, startStudioServer, type StudioServer, signedInPage } from './harness.ts';

const PREVIEW_TOKEN = randomBytes(24).toString('hex');

interface SiteRequest { path: string; preview: boolean; version: string | null; status: number }

/** The website: /pages/<slug>, published pages only, drafts in preview with the token (never sent to the browser). */
function startSite(port: number, cms: () => string): Promise<{ server: Server; requests: SiteRequest[] }> {
  const requests: SiteRequest[] = [];
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      const slug = /^\/pages\/([\w-]+)$/.exec(url.pathname)?.[1];
      const preview = url.searchParams.get('svc_preview') === '1';
      const version = preview ? url.searchParams.get('svc_version') : null;
      const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
      if (preview) {
        Object.assign(headers, { 'cache-control': 'no-store', 'x-robots-tag': 'noindex', 'content-security-policy': `frame-ancestors ${new URL(cms()).origin}` });
      }
      if (!slug) {
        res.writeHead(404, headers).end('<!doctype html><title>Not found</title><h1>Not found</h1>');
        return;
      }
      const query = new URLSearchParams({ fields: 'id,title,status', filter: JSON.stringify({ slug: { _eq: slug } }), limit: '1' });
      // The token stays on this server; without preview, only published pages are read.
      const auth = { authorization: `Bearer ${PREVIEW_TOKEN}` };
      if (!preview) query.set('filter', JSON.stringify({ _and: [{ slug: { _eq: slug } }, { status: { _eq: 'published' } }] }));
      // The list finds the page by its slug; a draft is read on the item (version overlay is an item read).
      const found = await fetch(`${cms()}/items/pages?${query}`, { headers: auth });
      const rows = found.ok ? (await found.json() as { data: { id: number; title: string }[] }).data : [];
      let page = rows[0];
      if (page && version && /^[0-9a-f-]{36}$/i.test(version)) {
        const draft = await fetch(`${cms()}/items/pages/${page.id}?fields=id,title,status&version=${version}`, { headers: auth, cache: 'no-store' });
        if (draft.ok) page = (await draft.json() as { data: typeof page }).data;
      }
      requests.push({ path: url.pathname, preview, version, status: page ? 200 : 404 });
      if (!page) {
        res.writeHead(404, headers).end('<!doctype html><title>Not found</title><h1>Not found</h1>');
        return;
      }
      res.writeHead(200, headers).end(`<!doctype html><html lang="en"><title>${escape(page.title)}</title><body>${preview ? '<p>Preview: not published</p>' : ''}<h1>${escape(page.title)}</h1></body></html>`);
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ server, requests })));
}

describe.skipIf(!JOURNEYS)('Studio: live preview of an item and of its draft', () => {
  let server: StudioServer;
  let site: { server: Server; requests: SiteRequest[] };
  let siteOrigin: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let id: number;

  beforeAll(async () => {
    const port = await freePort();
    siteOrigin = `http://127.0.0.1:${port}`;
    site = await startSite(port, () => server.url);
    [server, browser] = await Promise.all([startStudioServer({ env: { STUDIO_PREVIEW_ORIGINS: siteOrigin } }), launchBrowser()]);
    await api(server, 'POST', '/collections', {
      collection: 'pages', meta: { versioning: true, display_template: '{{title}}', preview_url: `${siteOrigin}/pages/{{slug}}` }, schema: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true, readonly: true } },
        { field: 'title', type: 'string', meta: { interface: 'input', width: 'full' } },
        { field: 'slug', type: 'string', meta: { interface: 'input', width: 'half' } },
        { field: 'status', type: 'string', meta: { interface: 'select-dropdown', width: 'half', options: { choices: [{ text: 'Draft', value: 'draft' }, { text: 'Published', value: 'published' }] } } },
      ],
    });
    // A collection whose website this Studio may not frame.
    await api(server, 'POST', '/collections', {
      collection: 'offsite', meta: { preview_url: 'http://127.0.0.1:9/offsite/{{id}}' }, schema: {},
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }, { field: 'name', type: 'string' }],
    });
    id = keyOf(await api(server, 'POST', '/items/pages', { title: 'Harbour news', slug: 'harbour-news', status: 'published' }));
    await api(server, 'POST', '/items/offsite', { name: 'Elsewhere' });
    // The website's minimal role: read pages, versioning:view, a static token kept on the website's server.
    const role = await api(server, 'POST', '/roles', { name: 'website-preview' });
    const policy = await api(server, 'POST', '/policies', { name: 'website-preview' });
    await api(server, 'POST', '/access', { role: role.id ?? role, policy: policy.id ?? policy });
    await api(server, 'POST', '/permissions', { policy: policy.id ?? policy, collection: 'pages', action: 'read', fields: ['*'] });
    await api(server, 'POST', '/app-permissions', { policy: policy.id ?? policy, permission: 'versioning:view' });
    await api(server, 'POST', '/users', { email: 'preview-bot@example.com', role: role.id ?? role, token: PREVIEW_TOKEN });

    ({ page, problems } = await signedInPage(browser, server));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise<void>((resolve) => site?.server.close(() => resolve()));
  });

  const frameHeading = (title: string) => page.getByTitle(`Website preview of ${title}`).contentFrame().getByRole('heading', { level: 1 });

  it('shows the item\'s page beside the form, and reloads it after a save', async () => {
    // The Studio's CSP frames exactly this website.
    const csp = (await fetch(`${server.url}/admin/`)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`frame-src 'self' ${siteOrigin};`);

    await page.goto(`${server.url}/admin/content/pages/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Harbour news' }).waitFor();
    const toggle = page.getByRole('button', { name: 'Live preview' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    const pane = page.getByRole('region', { name: 'Website preview' });
    await expect.poll(() => frameHeading('Harbour news').textContent()).toBe('Harbour news');
    const src = new URL((await page.getByTitle('Website preview of Harbour news').getAttribute('src'))!);
    expect(`${src.origin}${src.pathname}`).toBe(`${siteOrigin}/pages/harbour-news`);
    expect(src.searchParams.get('svc_preview')).toBe('1');
    expect(src.searchParams.has('svc_version')).toBe(false);
    expect(await pane.getByRole('link', { name: /Open in new tab/ }).getAttribute('href')).toBe(src.toString());
    await checkScreen(page, 'preview-item');

    const before = site.requests.length;
    await page.getByLabel('Title', { exact: true }).fill('Harbour news, Tuesday');
    await page.getByRole('button', { name: 'Save and stay' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    await expect.poll(() => frameHeading('Harbour news, Tuesday').textContent()).toBe('Harbour news, Tuesday');
    expect(site.requests.length).toBeGreaterThan(before);
    expect(problems).toEqual([]);
  });

  it('shows a draft\'s page (svc_version, read by the website with its token), refreshed after each save of the draft', async () => {
    const versionId = await api(server, 'POST', '/versions', { key: 'evening', name: 'Evening edition', collection: 'pages', item: String(id), delta: { title: 'Harbour news, evening' } });
    await page.goto(`${server.url}/admin/content/pages/${id}?version=${versionId}`);
    await page.getByRole('heading', { level: 1, name: 'Harbour news, evening' }).waitFor();
    // The split view stays open from one item to the next.
    expect(await page.getByRole('button', { name: 'Live preview' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => frameHeading('Harbour news, evening').textContent()).toBe('Harbour news, evening');
    const src = new URL((await page.getByTitle('Website preview of Harbour news, evening').getAttribute('src'))!);
    expect(src.searchParams.get('svc_version')).toBe(versionId);
    expect(site.requests.at(-1)).toMatchObject({ path: '/pages/harbour-news', preview: true, version: versionId, status: 200 });
    await checkScreen(page, 'preview-draft');

    await page.getByLabel('Title', { exact: true }).fill('Harbour news, late evening');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Draft saved' }).count()).toBe(1);
    await expect.poll(() => frameHeading('Harbour news, late evening').textContent()).toBe('Harbour news, late evening');
    // The item itself (what the public site shows) is unchanged.
    const published = await fetch(`${siteOrigin}/pages/harbour-news`);
    expect(await published.text()).toContain('<h1>Harbour news, Tuesday</h1>');
    expect(published.headers.get('cache-control')).toBeNull();
    expect(problems).toEqual([]);
  });

  it('says so when this Studio may not frame the collection\'s website', async () => {
    await page.goto(`${server.url}/admin/content/offsite/1`);
    await page.getByRole('heading', { level: 1, name: 'Elsewhere' }).waitFor();
    const pane = page.getByRole('region', { name: 'Website preview' });
    await expect.poll(() => pane.getByRole('alert').textContent()).toContain('This Studio may not show pages of http://127.0.0.1:9');
    expect(await pane.getByRole('link', { name: /Open in new tab/ }).getAttribute('href')).toBe('http://127.0.0.1:9/offsite/1?svc_preview=1');
    await checkScreen(page, 'preview-refused');
    // The one CSP report of this page is the frame the policy refused, as it should.
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => /frame/i.test(p) && p.includes('127.0.0.1:9'))).toBe(true);
    problems.length = 0;
  });
});
