/** The file library in a real browser: a folder, two images uploaded by drag and drop with their thumbnails, grid and
 * list, import from a URL (a PNG served by a tiny local server; loopback allowed through FILES_IMPORT_IP_ALLOW_LIST)
 * with its error in place, a file's title, tags and focal point (clicked on the image, checked through the API),
 * replace, download and delete; then a 50 MB upload through tus interrupted by a reload and finished after it,
 * byte for byte. Every screen is checked with axe-core and photographed in light and dark. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Route } from 'playwright-core';
import { checkScreen, JOURNEYS, launchBrowser, newPage, signIn, startStudioServer, type StudioServer } from './harness.ts';

const png = (width: number, height: number, color: string) => sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();

describe.skipIf(!JOURNEYS)('Studio: file library', () => {
  let server: StudioServer;
  let browser: Browser;
  let images: Server;
  let imagesUrl: string;
  let root: string;
  let red: Buffer;
  let teal: Buffer;
  let blue: Buffer;
  let green: Buffer;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'studio-files-'));
    [red, teal, blue, green] = await Promise.all([png(320, 240, '#d33030'), png(240, 240, '#1a9a8a'), png(300, 200, '#2050d0'), png(200, 100, '#20a040')]);
    images = createServer((req, res) => {
      if (req.url === '/blue.png') {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': blue.length });
        res.end(blue);
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not here');
      }
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    server = await startStudioServer({
      env: { STORAGE_LOCAL_ROOT: root, FILES_IMPORT_IP_ALLOW_LIST: '127.0.0.1/32', FILES_MAX_UPLOAD_SIZE: '100mb' },
    });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise<void>((resolve) => (images ? images.close(() => resolve()) : resolve()));
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('creates a folder, uploads by drag and drop, switches views, imports, edits, replaces, downloads and deletes', async () => {
    const { page, problems, context } = await newPage(browser);
    await signIn(page, server.url);
    await page.waitForURL(/\/admin\/content/);
    await page.goto(`${server.url}/admin/files`);
    await expect.poll(() => page.getByRole('heading', { name: 'All files', level: 1 }).count()).toBe(1);
    await expect.poll(() => page.getByText('No files yet.').count()).toBe(1);
    await checkScreen(page, 'files-empty');

    // A folder, created in the navigation pane, opens.
    await page.getByRole('button', { name: '+ New folder' }).click();
    await page.getByLabel('Name of the new folder').fill('Photos');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/admin\/files\/folders\/[0-9a-f-]{36}$/);
    const folderId = page.url().split('/').pop()!;
    await expect.poll(() => page.getByRole('heading', { name: 'Photos', level: 1 }).count()).toBe(1);
    await expect.poll(() => page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'Photos' }).getAttribute('aria-current')).toBe('page');

    // Two images dropped on the library.
    const dataTransfer = await page.evaluateHandle((files) => {
      const dt = new DataTransfer();
      for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: 'image/png' }));
      return dt;
    }, [{ name: 'red.png', b64: red.toString('base64') }, { name: 'teal-tile.png', b64: teal.toString('base64') }]);
    const dropTarget = page.getByRole('heading', { name: 'Photos', level: 1 });
    await dropTarget.dispatchEvent('dragenter', { dataTransfer });
    await dropTarget.dispatchEvent('dragover', { dataTransfer });
    await dropTarget.dispatchEvent('drop', { dataTransfer });
    for (const name of ['Red', 'Teal Tile']) {
      await expect.poll(() => page.getByRole('img', { name, exact: true }).count(), { timeout: 20_000 }).toBe(1);
      await expect.poll(() => page.getByRole('img', { name, exact: true }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 20_000 }).toBeGreaterThan(0);
    }
    const inFolder = await server.t.req('GET', `/files?filter[folder][_eq]=${folderId}&fields=id,title,filename_download,type`);
    expect(inFolder.body.data.map((f: { filename_download: string }) => f.filename_download).sort()).toEqual(['red.png', 'teal-tile.png']);
    const thumb = await page.getByRole('img', { name: 'Red', exact: true }).getAttribute('src');
    expect(thumb).toMatch(/^\/assets\/[0-9a-f-]{36}\?width=240&height=240&fit=cover&format=webp/);
    expect(await page.getByRole('img', { name: 'Red', exact: true }).getAttribute('loading')).toBe('lazy');
    await checkScreen(page, 'files-grid');

    // The list view, and back.
    await page.getByRole('button', { name: 'List', exact: true }).click();
    await expect.poll(() => page.getByRole('table').getByRole('link', { name: 'Teal Tile' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('button', { name: 'List', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await checkScreen(page, 'files-list');
    await page.getByRole('searchbox', { name: 'Search files' }).fill('teal');
    await expect.poll(() => page.getByRole('table').getByRole('row').count()).toBe(2);
    await page.getByRole('searchbox', { name: 'Search files' }).fill('');
    await expect.poll(() => page.getByRole('table').getByRole('row').count()).toBe(3);
    await page.getByRole('button', { name: 'Grid', exact: true }).click();
    await expect.poll(() => page.getByRole('table').count()).toBe(0);

    // Import from a URL: an address that answers 404 shows its error on the field and keeps what was typed.
    await page.getByRole('button', { name: 'Import from URL' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import a file from a URL' });
    await dialog.getByLabel('File URL').fill(`${imagesUrl}/missing.png`);
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').count(), { timeout: 15_000 }).toBe(1);
    expect(await dialog.getByLabel('File URL').inputValue()).toBe(`${imagesUrl}/missing.png`);
    expect(await dialog.getByLabel('File URL').getAttribute('aria-invalid')).toBe('true');
    await checkScreen(page, 'files-import-error');
    await dialog.getByLabel('File URL').fill(`${imagesUrl}/blue.png`);
    await dialog.getByLabel('Title').fill('Blue sky');
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Imported' }).count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.getByRole('img', { name: 'Blue sky', exact: true }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 15_000 }).toBeGreaterThan(0);
    const imported = await server.t.req('GET', `/files?filter[title][_eq]=Blue sky&fields=id,folder,filesize,width`);
    expect(imported.body.data[0]).toMatchObject({ folder: folderId, width: 300 });

    // A file's page: title, tags and the focal point clicked on the image.
    await page.getByRole('list', { name: 'Files in Photos' }).getByRole('link', { name: /^Red/ }).click();
    await page.waitForURL(/\/admin\/files\/[0-9a-f-]{36}$/);
    const fileId = page.url().split('/').pop()!;
    await expect.poll(() => page.getByRole('heading', { name: 'Red', level: 1 }).count()).toBe(1);
    await page.getByLabel('Title').fill('Red square');
    await page.getByLabel('Tags').fill('colour');
    await page.getByLabel('Tags').press('Enter');
    await page.getByLabel('Tags').fill('test, sample');
    await page.getByLabel('Tags').press('Enter');
    const preview = page.getByRole('img', { name: 'Red', exact: true });
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    const box = (await preview.boundingBox())!;
    await preview.click({ position: { x: box.width * 0.25, y: box.height * 0.75 } });
    expect(Number(await page.getByLabel('Focal point X').inputValue())).toBeCloseTo(80, -1);
    expect(Number(await page.getByLabel('Focal point Y').inputValue())).toBeCloseTo(180, -1);
    await checkScreen(page, 'files-detail');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('heading', { name: 'Red square', level: 1 }).count()).toBe(1);
    const edited = (await server.t.req('GET', `/files/${fileId}?fields=title,tags,focal_point_x,focal_point_y`)).body.data;
    expect(edited.title).toBe('Red square');
    expect(edited.tags).toEqual(['colour', 'test', 'sample']);
    expect(Math.abs(edited.focal_point_x - 80)).toBeLessThanOrEqual(2);
    expect(Math.abs(edited.focal_point_y - 180)).toBeLessThanOrEqual(2);

    // A wrong focal point is refused on its field, and what was typed stays.
    await page.getByLabel('Focal point X').fill('9999');
    await page.getByLabel('Description').fill('A red test image');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByLabel('Focal point X').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Description').inputValue()).toBe('A red test image');
    await page.getByLabel('Focal point X').fill('80');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);

    // Replace the content: same id, new bytes and dimensions.
    const greenPath = join(root, 'green.png');
    writeFileSync(greenPath, green);
    await page.getByLabel('Replace the content of Red square').setInputFiles(greenPath);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'replaced' }).count(), { timeout: 15_000 }).toBe(1);
    const replaced = (await server.t.req('GET', `/files/${fileId}?fields=id,width,height,filename_download,title,focal_point_x,focal_point_y`)).body.data;
    // The focal point (80, 180 of 320 × 240) follows the new size in proportion.
    expect(replaced).toMatchObject({ id: fileId, width: 200, height: 100, filename_download: 'green.png', title: 'Red square', focal_point_x: 50, focal_point_y: 75 });
    expect(await page.getByLabel('Focal point Y').inputValue()).toBe('75');

    // Download: the link serves the stored bytes as an attachment.
    const href = await page.getByRole('link', { name: 'Download' }).getAttribute('href');
    expect(href).toBe(`/assets/${fileId}?download`);
    const download = await page.evaluate(async (url) => {
      const res = await fetch(url);
      return { status: res.status, disposition: res.headers.get('content-disposition'), size: (await res.arrayBuffer()).byteLength };
    }, href!);
    expect(download).toMatchObject({ status: 200, size: green.length });
    expect(download.disposition).toMatch(/attachment/);

    // Delete, after a confirmation.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => page.getByRole('dialog', { name: 'Delete “Red square”?' }).count()).toBe(1);
    await checkScreen(page, 'files-delete');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete file' }).click();
    await page.waitForURL(new RegExp(`/admin/files/folders/${folderId}$`));
    await expect.poll(() => page.getByRole('img', { name: 'Teal Tile', exact: true }).count()).toBe(1);
    expect(await page.getByRole('img', { name: 'Red square' }).count()).toBe(0);
    expect((await server.t.req('GET', `/files/${fileId}`)).status).toBeGreaterThanOrEqual(403);

    // Rename the folder, then delete it: its files move to the top level.
    await page.getByRole('button', { name: 'Rename folder Photos' }).click();
    await page.getByLabel('New name for Photos').fill('Pictures');
    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Pictures', level: 1 }).count()).toBe(1);
    await page.getByRole('button', { name: 'Delete folder Pictures' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete folder' }).click();
    await page.waitForURL(/\/admin\/files\/?$/);
    await expect.poll(() => page.getByRole('img', { name: 'Teal Tile', exact: true }).count()).toBe(1);
    expect((await server.t.req('GET', '/folders')).body.data).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('continues a 50 MB upload through tus after a reload half-way', async () => {
    const size = 50 * 1024 * 1024;
    const big = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
    const bigPath = join(root, 'big.bin');
    writeFileSync(bigPath, big);
    const expected = createHash('sha256').update(big).digest('hex');

    const { page, problems, context } = await newPage(browser);
    await signIn(page, server.url);
    await expect.poll(() => page.getByRole('navigation', { name: 'Modules' }).count()).toBe(1);
    await page.goto(`${server.url}/admin/files`);
    await expect.poll(() => page.getByRole('heading', { name: 'All files', level: 1 }).count()).toBe(1);

    // The third chunk is held: two (10 MB) reach the server, then the page reloads mid-upload.
    let patches = 0;
    let holding = true;
    let held: Route | null = null;
    let heldSeen!: () => void;
    const reachedThird = new Promise<void>((resolve) => { heldSeen = resolve; });
    await page.route('**/tus/*', async (route) => {
      if (route.request().method() !== 'PATCH') return route.continue();
      patches += 1;
      if (patches < 3 || !holding) return route.continue();
      held = route;
      heldSeen();
    });
    await page.getByLabel('Upload files to All files').setInputFiles(bigPath);
    await reachedThird;
    const progress = page.getByRole('progressbar', { name: 'Uploading big.bin' });
    await expect.poll(async () => Number(await progress.getAttribute('value'))).toBeGreaterThanOrEqual(0.19);
    await checkScreen(page, 'files-uploading');
    await page.reload();
    holding = false;
    await (held as Route | null)?.abort().catch(() => {});

    // After the reload the library offers to continue; the same file picked again resumes at 10 MB.
    const pending = page.getByRole('group', { name: 'Unfinished upload of big.bin' });
    await expect.poll(() => pending.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => pending.textContent()).toContain('10.0 MB of 50.0 MB uploaded');
    await checkScreen(page, 'files-resume');
    const sent: number[] = [];
    page.on('request', (req) => { if (req.method() === 'PATCH' && /\/tus\//.test(req.url())) sent.push(Number(req.headers()['upload-offset'])); });
    await page.getByLabel('Choose big.bin again to continue its upload').setInputFiles(bigPath);
    await expect.poll(() => page.getByRole('img', { name: /big\.bin|Big/ }).count(), { timeout: 60_000 }).toBe(1);
    expect(sent[0]).toBe(10 * 1024 * 1024);

    const list = await server.t.req('GET', '/files?filter[filename_download][_eq]=big.bin&fields=id,filesize,type');
    expect(list.body.data).toHaveLength(1);
    expect(Number(list.body.data[0].filesize)).toBe(size);
    const stored = await page.evaluate(async (id) => {
      const res = await fetch(`/assets/${id}`);
      const bytes = await res.arrayBuffer();
      const digest = await crypto.subtle.digest('SHA-256', bytes);
      return { status: res.status, size: bytes.byteLength, sha: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('') };
    }, list.body.data[0].id);
    expect(stored).toEqual({ status: 200, size, sha: expected });
    // Nothing unfinished is left to offer.
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('tus::')))).toEqual([]);

    // A large replacement goes through tus too, under the file's id.
    const nine = Buffer.alloc(9 * 1024 * 1024, 7);
    const ninePath = join(root, 'nine.bin');
    writeFileSync(ninePath, nine);
    const tusCreates: string[] = [];
    page.on('request', (req) => { if (req.method() === 'POST' && /\/tus$/.test(req.url())) tusCreates.push(req.headers()['upload-metadata'] ?? ''); });
    await page.getByRole('img', { name: /Big/ }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Big', level: 1 }).count()).toBe(1);
    await page.getByLabel('Replace the content of Big').setInputFiles(ninePath);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'replaced' }).count(), { timeout: 30_000 }).toBe(1);
    expect(tusCreates).toHaveLength(1);
    expect(tusCreates[0]).toContain(`id ${Buffer.from(list.body.data[0].id).toString('base64')}`);
    const after = (await server.t.req('GET', `/files/${list.body.data[0].id}?fields=filesize,filename_download`)).body.data;
    expect({ size: Number(after.filesize), name: after.filename_download }).toEqual({ size: nine.length, name: 'nine.bin' });
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('tus::')))).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
