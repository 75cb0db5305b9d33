/** The data model module in a real browser, part one: collections and fields. A folder, a collection in it with the
 * optional fields (status, sort, created by…), a singleton and one with UUID keys, each checked through the API; a
 * bad name refused as the server refuses it, and the server's own error (a taken name) shown on the name box; a field
 * of every type with its interface and options (choices, length, precision, default, automatic value, unique,
 * index), checked through GET /fields and in the content module's item form; collections reordered into a folder
 * by keyboard and by drag. Screens pass axe-core and are photographed in light and dark.
 * data-model-relations.test.ts has validation, conditions, the relation wizards, settings and deletes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, checkScreen, JOURNEYS, launchBrowser, startStudioServer, type StudioServer, signedInPage } from './harness.ts';
import { createFieldInUi, openModel } from './data-model-helpers.ts';

describe.skipIf(!JOURNEYS)('Studio: data model, collections and fields', () => {
  let server: StudioServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    server = await startStudioServer();
    browser = await launchBrowser();
    ({ page, problems } = await signedInPage(browser, server));
  }, 120_000);

  afterAll(async () => {
    expect(problems).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  it('creates a folder, a collection with optional fields in it, a singleton and one with UUID keys', async () => {
    await openModel(page, server.url);
    await page.getByText('No collections yet.').waitFor();
    await checkScreen(page, 'data-model-empty');

    // A folder.
    await page.getByRole('button', { name: 'Create folder' }).click();
    let dialog = page.getByRole('dialog', { name: 'Create a folder' });
    await dialog.getByLabel('Name', { exact: true }).fill('blog');
    await checkScreen(page, 'data-model-create-folder');
    await dialog.getByRole('button', { name: 'Create folder' }).click();
    await page.waitForURL(/\/data-model\/blog$/);
    await page.getByRole('heading', { level: 1, name: /blog/ }).waitFor();
    expect((await api(server, 'GET', '/collections/blog')).schema).toBeNull();

    // A collection in it, with the optional fields; the name is checked as the server checks it.
    await openModel(page, server.url);
    await page.getByRole('button', { name: 'Create collection' }).first().click();
    dialog = page.getByRole('dialog', { name: 'Create a collection' });
    const name = dialog.getByLabel('Name', { exact: true });
    await name.fill('9 posts');
    await dialog.getByRole('button', { name: 'Create collection' }).click();
    await dialog.getByText('Start with a letter or an underscore.').waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('svc_posts');
    await dialog.getByText('Names starting with "svc_" belong to the system.').waitFor();
    await name.fill('posts');
    await dialog.getByLabel('In folder').selectOption('blog');
    for (const label of ['Status', 'Sort', 'Date created', 'Created by']) await dialog.getByRole('checkbox', { name: new RegExp(`^${label}`) }).check();
    await checkScreen(page, 'data-model-create-collection');
    await dialog.getByRole('button', { name: 'Create collection' }).click();
    await page.waitForURL(/\/data-model\/posts$/);
    const posts = await api(server, 'GET', '/collections/posts');
    expect(posts.meta).toMatchObject({ group: 'blog', archive_field: 'status', archive_value: 'archived', unarchive_value: 'draft', sort_field: 'sort' });
    const postFields = await api(server, 'GET', '/fields/posts');
    expect(postFields.map((f: any) => f.field)).toEqual(['id', 'status', 'sort', 'date_created', 'user_created']);
    expect(postFields.find((f: any) => f.field === 'id').schema).toMatchObject({ is_primary_key: true, has_auto_increment: true });
    expect(postFields.find((f: any) => f.field === 'date_created').meta.special).toContain('date-created');
    expect(await api(server, 'GET', '/relations/posts/user_created')).toMatchObject({ related_collection: 'svc_users' });
    await page.getByRole('list', { name: 'Fields of posts' }).waitFor();
    await checkScreen(page, 'data-model-collection');

    // A singleton, and a collection whose key is a generated UUID.
    for (const [collection, set] of [['homepage', 'singleton'], ['authors', 'uuid']] as const) {
      await openModel(page, server.url);
      await page.getByRole('button', { name: 'Create collection' }).first().click();
      dialog = page.getByRole('dialog', { name: 'Create a collection' });
      await dialog.getByLabel('Name', { exact: true }).fill(collection);
      if (set === 'singleton') await dialog.getByRole('checkbox', { name: /^Singleton/ }).check();
      else await dialog.getByRole('radio', { name: /Generated UUID/ }).check();
      await dialog.getByRole('button', { name: 'Create collection' }).click();
      await page.waitForURL(new RegExp(`/data-model/${collection}$`));
    }
    expect((await api(server, 'GET', '/collections/homepage')).meta.singleton).toBe(true);
    const authorKey = await api(server, 'GET', '/fields/authors/id');
    expect(authorKey).toMatchObject({ type: 'uuid', schema: { is_primary_key: true } });
    const created = await api(server, 'POST', '/items/authors', {});
    expect(String(typeof created === 'object' ? created.id : created)).toMatch(/^[0-9a-f]{8}-[0-9a-f-]{27}$/);
  });

  it('refuses a taken name with the server’s words on the name box', async () => {
    await page.goto(`${server.url}/admin/data-model/posts/+`);
    const key = page.getByLabel('Key', { exact: true });
    await key.waitFor();
    // Someone else adds "title" meanwhile: the Studio's copy of the schema does not know it yet.
    await api(server, 'POST', '/fields/posts', { field: 'title', type: 'string' });
    await key.fill('title');
    await page.getByRole('button', { name: 'Create field' }).first().click();
    const error = page.getByText('Field "title" already exists in collection "posts".');
    await error.waitFor();
    expect(await key.getAttribute('aria-invalid')).toBe('true');
    expect(await key.getAttribute('aria-describedby')).toContain(await error.getAttribute('id'));
    // What was typed stays.
    expect(await key.inputValue()).toBe('title');
    await checkScreen(page, 'data-model-field-name-taken');
    await api(server, 'DELETE', '/fields/posts/title');
  });

  it('creates a field of every type with its interface and options, shown by the item editor', async () => {
    await createFieldInUi(page, server.url, 'posts', { key: 'headline', type: 'String', length: '120', required: true, note: 'The title readers see.' }, async () => {
      await checkScreen(page, 'data-model-field-new');
    });
    await createFieldInUi(page, server.url, 'posts', { key: 'summary', type: 'Text', iface: 'Textarea' });
    await createFieldInUi(page, server.url, 'posts', { key: 'body', type: 'Text', iface: 'Markdown', width: 'Full' });
    await createFieldInUi(page, server.url, 'posts', { key: 'word_count', type: 'Integer', indexed: true });
    await createFieldInUi(page, server.url, 'posts', { key: 'views', type: 'Big integer' });
    await createFieldInUi(page, server.url, 'posts', { key: 'rating', type: 'Float' });
    await createFieldInUi(page, server.url, 'posts', { key: 'price', type: 'Decimal', precision: '8', scale: '2' });
    await createFieldInUi(page, server.url, 'posts', { key: 'featured', type: 'Boolean', defaultOn: true });
    await createFieldInUi(page, server.url, 'posts', { key: 'publish_on', type: 'Date' });
    await createFieldInUi(page, server.url, 'posts', { key: 'publish_at', type: 'Time' });
    await createFieldInUi(page, server.url, 'posts', { key: 'event_at', type: 'Date and time' });
    await createFieldInUi(page, server.url, 'posts', { key: 'edited_at', type: 'Timestamp', automatic: 'Date updated' });
    await createFieldInUi(page, server.url, 'posts', { key: 'ref', type: 'UUID', unique: true });
    await createFieldInUi(page, server.url, 'posts', { key: 'settings', type: 'JSON' });
    await createFieldInUi(page, server.url, 'posts', { key: 'keywords', type: 'CSV (tags)' });
    await createFieldInUi(page, server.url, 'posts', { key: 'pin', type: 'Hash' });
    await createFieldInUi(page, server.url, 'posts', {
      key: 'tone', type: 'String', iface: 'Dropdown', choices: [['calm', 'Calm'], ['loud', 'Loud']], defaultChoice: 'Calm', display: 'Labels',
    }, async () => {
      await checkScreen(page, 'data-model-field-dropdown');
    });

    const fields: any[] = await api(server, 'GET', '/fields/posts');
    const by = (f: string) => fields.find((x) => x.field === f);
    expect(by('headline')).toMatchObject({ type: 'string', schema: { max_length: 120 }, meta: { required: true, note: 'The title readers see.', interface: 'input' } });
    expect(by('summary')).toMatchObject({ type: 'text', meta: { interface: 'input-multiline' } });
    expect(by('body')).toMatchObject({ type: 'text', meta: { interface: 'input-rich-text-md', width: 'full' } });
    expect(by('word_count')).toMatchObject({ type: 'integer', schema: { is_indexed: true, is_unique: false } });
    expect(by('views').type).toBe('bigInteger');
    expect(by('rating').type).toBe('float');
    expect(by('price')).toMatchObject({ type: 'decimal', schema: { numeric_precision: 8, numeric_scale: 2 } });
    expect(by('featured')).toMatchObject({ type: 'boolean', schema: { default_value: true }, meta: { interface: 'boolean' } });
    expect(by('publish_on')).toMatchObject({ type: 'date', meta: { interface: 'datetime' } });
    expect(by('publish_at').type).toBe('time');
    expect(by('event_at').type).toBe('dateTime');
    expect(by('edited_at')).toMatchObject({ type: 'timestamp' });
    expect(by('edited_at').meta.special).toContain('date-updated');
    expect(by('ref')).toMatchObject({ type: 'uuid', schema: { is_unique: true } });
    expect(by('settings')).toMatchObject({ type: 'json', meta: { interface: 'input-code' } });
    expect(by('keywords')).toMatchObject({ type: 'csv', meta: { interface: 'tags' } });
    expect(by('pin')).toMatchObject({ type: 'hash', meta: { interface: 'input-hash' } });
    expect(by('tone')).toMatchObject({
      type: 'string', schema: { default_value: 'calm' },
      meta: { interface: 'select-dropdown', display: 'labels', options: { choices: [{ text: 'Calm', value: 'calm' }, { text: 'Loud', value: 'loud' }] } },
    });

    // The content module's form renders them: the dropdown with its choices, the decimal, the tags, the switch on.
    await page.goto(`${server.url}/admin/content/posts/+`);
    await page.getByLabel(/^Headline/).waitFor();
    expect(await page.getByLabel(/^Headline/).getAttribute('maxlength')).toBe('120');
    expect(await page.getByLabel('Tone', { exact: true }).locator('option').allTextContents()).toEqual(['—', 'Calm', 'Loud']);
    expect(await page.getByRole('switch', { name: 'Featured' }).isChecked()).toBe(true);
    await page.getByRole('textbox', { name: 'Keywords' }).fill('calm');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Remove calm' }).waitFor();
    await page.getByRole('group', { name: 'Markdown view' }).waitFor();
  });

  it('reorders collections into a folder with the keyboard and by dragging', async () => {
    await openModel(page, server.url);
    const list = page.getByRole('list', { name: 'Collections and folders' });
    await list.waitFor();
    // Top level: blog (with posts), homepage, authors. authors moves up above homepage, then into blog.
    const handle = page.getByRole('button', { name: 'Move authors' });
    await handle.focus();
    await page.keyboard.press('ArrowUp');
    await expect.poll(async () => (await api(server, 'GET', '/collections/authors')).meta.sort, { timeout: 8_000 }).toBe(2);
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await api(server, 'GET', '/collections/authors')).meta.group, { timeout: 8_000 }).toBe('blog');
    expect(await page.getByRole('status').filter({ hasText: 'authors moved into blog.' }).count()).toBe(1);
    // Focus stayed on the moved row's handle.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Move authors');

    // homepage dragged into blog too, before posts.
    const source = list.locator('[draggable="true"]').filter({ hasText: 'homepage' });
    const target = list.locator('[draggable="true"]').filter({ hasText: 'posts' });
    const box = await target.boundingBox();
    await source.dragTo(target, { targetPosition: { x: 40, y: 2 } });
    expect(box).not.toBeNull();
    await expect.poll(async () => (await api(server, 'GET', '/collections/homepage')).meta.group, { timeout: 8_000 }).toBe('blog');
    const order = (await api(server, 'GET', '/collections') as any[]).filter((c) => c.meta?.group === 'blog').sort((a, b) => a.meta.sort - b.meta.sort).map((c) => c.collection);
    expect(order.indexOf('homepage')).toBe(order.indexOf('posts') - 1);
    await checkScreen(page, 'data-model-collections');
  });
});
