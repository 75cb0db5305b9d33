/** The Settings module in a real browser: the project's identity (a color refused until it is hex, a logo chosen from
 * the library) followed by the Studio and its sign-in page; a password rule refused as a regular expression, then
 * enforced by the API; registration with a role; a local storage added, edited and deleted by typing its name; an
 * image preset drawn from a sample image; the extensions loaded at start; the activity of these changes filtered and
 * opened; the server's health; the MCP server for AI agents turned on, with a prompts collection refused on its field.
 * Every screen passes axe-core and is photographed in light and dark. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { api, checkScreen, JOURNEYS, launchBrowser, startStudioServer, type StudioServer, signedInPage } from './harness.ts';

describe.skipIf(!JOURNEYS)('Studio: settings', () => {
  let server: StudioServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let dirs: string[] = [];
  let logo: string;

  beforeAll(async () => {
    // One extension of our own in its own folder, loaded at start as `npm start` loads them.
    const extensions = mkdtempSync(join(tmpdir(), 'studio-ext-'));
    const storage = mkdtempSync(join(tmpdir(), 'studio-settings-'));
    dirs = [extensions, storage];
    mkdirSync(join(extensions, 'hello-endpoint'));
    writeFileSync(join(extensions, 'hello-endpoint', 'package.json'), JSON.stringify({ name: 'hello-endpoint', type: 'module', 'svc:extension': { type: 'endpoint', path: 'index.js' } }));
    writeFileSync(join(extensions, 'hello-endpoint', 'index.js'), "export default { id: 'hello', handler: (router) => { router.get('/', (c) => c.json({ hello: true })); } };\n");
    server = await startStudioServer({ env: { EXTENSIONS_PATH: extensions, STORAGE_LOCAL_ROOT: storage }, extensions: true, extensionLog: { info() {}, warn() {}, error() {} } });
    const form = new FormData();
    form.set('title', 'Harbour logo');
    form.set('file', new Blob([await sharp({ create: { width: 300, height: 200, channels: 3, background: '#0b6e4f' } }).png().toBuffer()], { type: 'image/png' }), 'logo.png');
    const res = await fetch(`${server.url}/files`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: form });
    logo = ((await res.json()) as { data: { id: string } }).data.id;
    browser = await launchBrowser();
    ({ page, problems } = await signedInPage(browser, server, { timeout: 10_000 }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const card = (name: string) => page.getByRole('form', { name });

  it('changes the project\'s identity and sign-in page; the Studio and the sign-in page follow', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Project settings' }).waitFor();
    await checkScreen(page, 'settings-project');

    const identity = card('Identity');
    await identity.getByLabel('Project name').fill('Harbour Press');
    await identity.getByLabel('Project color', { exact: true }).fill('purple');
    await identity.getByRole('button', { name: 'Save identity' }).click();
    await expect.poll(() => identity.getByText('Use a hex color such as #6644FF.').count()).toBe(1);
    // A light color is allowed but its contrast is told.
    await identity.getByLabel('Project color', { exact: true }).fill('#F5E6A0');
    await expect.poll(() => identity.getByText(/under the 4.5:1/).count()).toBe(1);
    await identity.getByLabel('Project color', { exact: true }).fill('#0B6E4F');
    await expect.poll(() => identity.getByText(/readable/).count()).toBe(1);
    await identity.getByRole('button', { name: 'Choose logo' }).click();
    const picker = page.getByRole('dialog', { name: /Choose/ });
    await picker.getByRole('option', { name: /Harbour logo/ }).dblclick();
    await expect.poll(() => identity.getByRole('img', { name: 'Logo: the chosen image' }).count()).toBe(1);
    await checkScreen(page, 'settings-identity-dirty');
    await identity.getByRole('button', { name: 'Save identity' }).click();
    await expect.poll(() => identity.getByRole('status').textContent()).toContain('Saved.');
    expect(await api(server, 'GET', '/settings?fields=project_name,project_color,project_logo')).toEqual({ project_name: 'Harbour Press', project_color: '#0B6E4F', project_logo: logo });
    await expect.poll(() => page.title()).toBe('Harbour Press Studio');

    const signInPage = card('Sign-in page');
    await signInPage.getByLabel('Note').fill('Staff of the harbour only.');
    await expect.poll(() => signInPage.getByRole('img', { name: 'Preview of the sign-in page' }).textContent()).toContain('Staff of the harbour only.');
    await signInPage.getByRole('button', { name: 'Save sign-in page' }).click();
    await expect.poll(() => signInPage.getByRole('status').textContent()).toContain('Saved.');
    expect(problems).toEqual([]);
  });

  it('refuses a password rule that is not a regular expression, then enforces the one saved', async () => {
    const security = card('Security');
    await security.getByLabel('Password rule').selectOption({ label: 'A pattern of my own…' });
    await security.getByLabel('Pattern').fill('/^(.{10,}$/');
    await security.getByRole('button', { name: 'Save security' }).click();
    await expect.poll(() => security.getByText(/not a valid regular expression/).count()).toBe(1);
    await checkScreen(page, 'settings-security-error');
    await security.getByLabel('Pattern').fill('/^.{10,}$/');
    await security.getByLabel('Failed sign-ins before lockout').fill('5');
    await security.getByRole('button', { name: 'Save security' }).click();
    await expect.poll(() => security.getByRole('status').textContent()).toContain('Saved.');
    const weak = await server.t.req('POST', '/users', { email: 'weak@example.com', password: 'short' });
    expect(weak.status).toBe(400);
    expect(JSON.stringify(weak.body)).toMatch(/password policy/);
    expect((await server.t.req('POST', '/users', { email: 'strong@example.com', password: 'long enough password' })).status).toBe(200);
    // The server has the last word too: a pattern sent around the form is refused on its field.
    const direct = await server.t.req('PATCH', '/settings', { auth_password_policy: '[a-' });
    expect(direct.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PAYLOAD', field: 'auth_password_policy' });
  });

  it('opens registration with a role and a domain list', async () => {
    const role = await api(server, 'POST', '/roles', { name: 'Readers' });
    await page.reload();
    const registration = card('Registration');
    await registration.getByLabel('Let people register').check();
    await registration.getByLabel('Role of new users').selectOption({ label: 'Readers' });
    await registration.getByLabel('Allowed email domains').fill('harbour.example, press.example');
    await registration.getByRole('button', { name: 'Save registration' }).click();
    await expect.poll(() => registration.getByRole('status').textContent()).toContain('Saved.');
    expect(await api(server, 'GET', '/settings?fields=public_registration,public_registration_role,public_registration_email_filter')).toEqual({
      public_registration: true, public_registration_role: role, public_registration_email_filter: ['harbour.example', 'press.example'],
    });
  });

  it('adds a local storage, edits it, and deletes it once its name is typed', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Storage' }).click();
    await page.getByRole('heading', { name: 'Storage', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add storage' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add storage' });
    await dialog.getByLabel('Name').fill('archive');
    await dialog.getByLabel('Kind').selectOption('local');
    await dialog.getByLabel('Folder').fill('relative/path');
    await dialog.getByRole('button', { name: 'Add storage' }).click();
    await expect.poll(() => dialog.getByText(/An absolute path on the server/).count()).toBe(1);
    await dialog.getByLabel('Folder').fill(join(dirs[1], 'archive'));
    await checkScreen(page, 'settings-storage-add');
    await dialog.getByRole('button', { name: 'Add storage' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Storage “archive” added.' }).count()).toBe(1);
    expect(await api(server, 'GET', '/files/storage-locations')).toContain('archive');

    await page.getByRole('button', { name: 'Edit archive' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit storage “archive”' });
    await edit.getByLabel('Folder').fill(join(dirs[1], 'archive-2'));
    await edit.getByRole('button', { name: 'Save storage' }).click();
    await expect.poll(() => page.getByRole('cell', { name: join(dirs[1], 'archive-2') }).count()).toBe(1);
    await checkScreen(page, 'settings-storage');

    await page.getByRole('button', { name: 'Delete archive' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete storage “archive”?' });
    await expect.poll(() => confirm.getByText('No file is kept there.').count()).toBe(1);
    await confirm.getByLabel(/Type archive to confirm/).fill('archiv');
    expect(await confirm.getByRole('button', { name: 'Delete storage' }).isDisabled()).toBe(true);
    await confirm.getByLabel(/Type archive to confirm/).fill('archive');
    await checkScreen(page, 'settings-storage-delete');
    await confirm.getByRole('button', { name: 'Delete storage' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Storage “archive” deleted.' }).count()).toBe(1);
    expect(await api(server, 'GET', '/files/storage-locations')).toEqual(['local']);
  });

  it('makes an image preset and draws it from a sample image', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Image presets' }).click();
    await page.getByRole('heading', { name: 'Image presets', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add preset' }).click();
    await page.getByLabel('Key of preset 1').fill('Card');
    await page.getByRole('button', { name: 'Save image presets' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: /lowercase letters/ }).count()).toBe(1);
    await page.getByLabel('Key of preset 1').fill('card');
    await page.getByLabel('Width of preset 1').fill('120');
    await page.getByLabel('Height of preset 1').fill('80');
    await page.getByLabel('Format of preset 1').selectOption('png');
    await page.getByRole('radio', { name: 'Only the presets below' }).check();
    await page.getByRole('button', { name: 'Save image presets' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Choose sample image' }).click();
    await page.getByRole('dialog', { name: /Choose/ }).getByRole('option', { name: /Harbour logo/ }).dblclick();
    const preview = page.getByRole('img', { name: 'The sample image through card' });
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
    await checkScreen(page, 'settings-presets');
    // Presets only: a free transform is refused, the preset served.
    const auth = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
    expect((await fetch(`${server.url}/assets/${logo}?width=50`, auth)).status).toBe(403);
    expect((await fetch(`${server.url}/assets/${logo}?key=card`, auth)).headers.get('content-type')).toBe('image/png');
  });

  it('lists the extensions loaded at start, and the server\'s health', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Extensions' }).click();
    await expect.poll(() => page.getByRole('row', { name: /hello-endpoint.*Endpoint.*Running/ }).count()).toBe(1);
    await checkScreen(page, 'settings-extensions');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Server' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Healthy' }).count()).toBe(1);
    // The project's details come with their own answer, which may land after the health status.
    await expect.poll(() => page.getByRole('definition').filter({ hasText: 'Harbour Press' }).count()).toBe(1);
    await checkScreen(page, 'settings-server');
  });

  it('turns the MCP server on for AI agents, refuses a prompts collection without prompt fields on its field, and keeps the instructions typed', async () => {
    const pk = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
    await api(server, 'POST', '/collections', { collection: 'plain_notes', schema: {}, fields: [pk, { field: 'title', type: 'string' }] });
    await api(server, 'POST', '/collections', { collection: 'agent_prompts', schema: {}, fields: [pk, { field: 'name', type: 'string' }, { field: 'messages', type: 'json' }] });
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'journey', version: '1' } } };
    const mcp = () => server.t.req('POST', '/mcp', initialize, { headers: { accept: 'application/json, text/event-stream' } });
    expect((await mcp()).status).toBe(403);

    // Opened by its address, so the collections just made are in the Studio's list.
    await page.goto(`${server.url}/admin/settings/ai`);
    await page.getByRole('heading', { name: 'AI agents (MCP)', level: 1 }).waitFor();
    await expect.poll(() => page.getByText('The endpoint is off: turn it on under Access first.').count()).toBe(1);
    expect(await page.getByRole('definition').filter({ hasText: `${server.url}/mcp` }).count()).toBe(1);
    await checkScreen(page, 'settings-mcp');

    const access = card('Access');
    await access.getByRole('checkbox', { name: 'Serve the MCP endpoint' }).check();
    await access.getByRole('button', { name: 'Save access' }).click();
    await expect.poll(() => access.getByRole('status').textContent()).toContain('Saved.');
    await expect.poll(() => page.getByText('The endpoint answers.').count()).toBe(1);
    expect((await mcp()).status).toBe(200);

    const guidance = card('Guidance');
    await guidance.getByLabel('Instructions').fill('Write in British English. Never publish.');
    await guidance.getByLabel('Prompts collection').selectOption('plain_notes');
    await guidance.getByRole('button', { name: 'Save guidance' }).click();
    const select = guidance.getByRole('combobox', { name: 'Prompts collection' });
    await expect.poll(() => select.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => guidance.getByText(/^"plain_notes" has no field "name" or "messages"/).count()).toBe(1);
    expect(await guidance.getByLabel('Instructions').inputValue()).toBe('Write in British English. Never publish.');
    await checkScreen(page, 'settings-mcp-refused');
    await guidance.getByLabel('Prompts collection').selectOption('agent_prompts');
    await guidance.getByRole('button', { name: 'Save guidance' }).click();
    await expect.poll(() => guidance.getByRole('status').textContent()).toContain('Saved.');
    expect(await api(server, 'GET', '/system/mcp-settings')).toEqual({
      enabled: true, allow_deletes: false, drafts_only: true, system_prompt: 'Write in British English. Never publish.', prompts_collection: 'agent_prompts', enabled_by_env: false,
    });
    expect(problems).toEqual([]);
  });

  it('browses the activity of these changes with filters, and opens one', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
    await page.getByLabel('Collection', { exact: true }).selectOption({ label: 'Settings (system)' });
    await page.getByLabel('Action', { exact: true }).selectOption({ label: 'Updated' });
    const rows = page.getByRole('table', { name: 'Activity' }).getByRole('row');
    // Every row shown is an update of the settings (the filtered answer, not the one before it), and there are at least four.
    await expect.poll(async () => {
      const texts = (await rows.allTextContents()).slice(1);
      return texts.length >= 4 && texts.every((t) => /Updated.*Settings/.test(t));
    }).toBe(true);
    // Another user's activity only: nobody else changed the settings.
    await page.getByLabel('User', { exact: true }).fill('strong@');
    await page.getByRole('list', { name: 'Matching users' }).getByRole('button', { name: /strong@example.com/ }).click();
    await expect.poll(() => rows.allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('Nothing matches these filters.')]));
    await page.getByRole('button', { name: /Any user instead of/ }).click();
    await checkScreen(page, 'settings-activity');
    await rows.nth(1).getByRole('button', { name: /details/ }).click();
    const detail = page.getByRole('dialog', { name: /Updated: Settings 1/ });
    await expect.poll(() => detail.getByRole('table').count()).toBeGreaterThanOrEqual(1);
    await checkScreen(page, 'settings-activity-detail');
    await detail.getByRole('button', { name: 'Close' }).first().click();
    expect(problems).toEqual([]);
  });

  it('shows the new name and note on the sign-in page after signing out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/admin\/login/);
    await expect.poll(() => page.getByText('Harbour Press').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByText('Staff of the harbour only.').count()).toBe(1);
    await checkScreen(page, 'settings-sign-in-page');
  });
});
