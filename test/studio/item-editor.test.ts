/** The item editor in a real browser, on a collection with a field of every type (item-editor-schema.ts): a new
 * item filled through every input and checked through the API; a unique violation and a failed validation shown on
 * their fields with nothing typed lost; a condition hiding a field live; an M2O picked through the search dialog;
 * O2M rows added and reordered with the keyboard buttons; M2M rows added; save as copy; delete after a
 * confirmation; the unsaved-changes guard. Each distinct screen passes axe-core and is photographed in both
 * themes. The sidebar (revisions, comments) and a read-only user: item-editor-sidebar.test.ts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { checkScreen, JOURNEYS, launchBrowser, startStudioServer, type StudioServer, signedInPage } from './harness.ts';
import { createModel, keyOf, ok, type Model } from './item-editor-schema.ts';

describe.skipIf(!JOURNEYS)('Studio: the item editor', () => {
  let server: StudioServer;
  let browser: Browser;
  let model: Model;
  let page: Page;
  let problems: string[];
  let articleId: number;

  beforeAll(async () => {
    server = await startStudioServer();
    [browser, model] = await Promise.all([launchBrowser(), createModel(server)]);
    ({ page, problems } = await signedInPage(browser, server));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const field = (name: string) => page.locator(`[data-field="${name}"]`);

  async function open(path: string): Promise<void> {
    await page.goto(`${server.url}/admin/content/${path}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
  }

  it('creates an item through every kind of input, and the API has every value', async () => {
    await open('articles/+');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('New item in Articles');
    // Hidden fields are absent, read-only ones disabled (with their default), notes described.
    expect(await page.getByLabel('Internal', { exact: true }).count()).toBe(0);
    await expect.poll(() => page.getByLabel('Legacy code', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Legacy code', { exact: true }).inputValue()).toBe('L-001');
    expect(await page.getByLabel(/^Title/).getAttribute('aria-describedby')).toBeTruthy();
    expect(await page.getByText('The headline readers see first.').count()).toBe(1);
    await checkScreen(page, 'item-new');

    // Required is checked before anything is sent.
    await page.getByRole('button', { name: 'Save and stay' }).click();
    await expect.poll(() => field('title').getByText('This field is required.').count()).toBe(1);
    expect(await page.getByLabel(/^Title/).getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel(/^Title/).fill('The harbour at dawn');
    expect(await page.getByLabel(/^Title/).getAttribute('aria-invalid')).toBeNull();
    await page.getByLabel('Slug', { exact: true }).fill('harbour-at-dawn');
    await page.getByLabel('Code', { exact: true }).fill('HAD');
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'In review' });
    await page.getByLabel('Summary', { exact: true }).fill('Boats come in.\nGulls follow.');
    await page.getByLabel('Body', { exact: true }).fill('# Morning\n\nThe **tide** turns at _six_.\n\n- nets\n- ropes');
    await field('body').getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => field('body').getByRole('heading', { name: 'Morning' }).count()).toBe(1);
    expect(await field('body').locator('strong').textContent()).toBe('tide');
    await field('body').getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Notes', { exact: true }).fill('Check the photo credit.');

    // The condition: Embargo is hidden while Published is on, live.
    await page.getByLabel('Embargo', { exact: true }).fill('2025-03-04');
    await page.getByRole('switch', { name: 'Published' }).check();
    await expect.poll(() => page.getByLabel('Embargo', { exact: true }).count()).toBe(0);
    await page.getByRole('switch', { name: 'Published' }).uncheck();
    await expect.poll(() => page.getByLabel('Embargo', { exact: true }).inputValue()).toBe('2025-03-04');
    await page.getByRole('switch', { name: 'Published' }).check();

    await page.getByLabel('Publish time', { exact: true }).fill('10:20:30');
    await page.getByLabel('Event at', { exact: true }).fill('2025-03-04T05:06:07');
    await page.getByLabel('Stamped', { exact: true }).fill('2025-06-07T08:09:10');
    const stampedIso = await page.evaluate(() => new Date('2025-06-07T08:09:10').toISOString());
    await page.getByRole('button', { name: 'Generate a UUID for Ref' }).click();
    const ref = await page.getByLabel('Ref', { exact: true }).inputValue();
    expect(ref).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // The group of number fields.
    expect(await page.getByRole('group', { name: 'Numbers' }).count() + await page.locator('details summary', { hasText: 'Numbers' }).count()).toBeGreaterThan(0);
    await page.getByLabel('Count', { exact: true }).fill('42');
    await page.getByLabel('Views', { exact: true }).fill('9007199254740993');
    await page.getByLabel('Rating', { exact: true }).fill('4.5');
    await page.getByLabel('Price', { exact: true }).fill('19.99');

    // JSON: a clear error while it does not parse, then the value.
    await page.getByLabel('Settings', { exact: true }).fill('{"layout": ');
    await expect.poll(() => field('settings').getByText(/Not valid JSON/).count()).toBe(1);
    await page.getByLabel('Settings', { exact: true }).fill('{"layout": "wide", "columns": [1, 2]}');
    await expect.poll(() => field('settings').getByText(/Not valid JSON/).count()).toBe(0);

    // Tags: Enter adds, a chip goes with the keyboard.
    const keywords = page.getByLabel('Keywords', { exact: true });
    for (const word of ['alpha', 'beta', 'gamma']) {
      await keywords.fill(word);
      await keywords.press('Enter');
    }
    await page.getByRole('button', { name: 'Remove beta' }).focus();
    await page.keyboard.press('Delete');
    await expect.poll(() => page.getByRole('button', { name: 'Remove beta' }).count()).toBe(0);

    await page.getByLabel('Secret', { exact: true }).fill('open sesame');

    // M2O through the search dialog, by keyboard.
    await field('author').getByRole('button', { name: /Choose/ }).click();
    const dialog = page.getByRole('dialog', { name: /Choose author/ });
    await dialog.getByRole('combobox', { name: 'Search Authors' }).fill('Hopper');
    await expect.poll(() => dialog.getByRole('option').allTextContents()).toEqual([expect.stringContaining('Grace Hopper')]);
    await checkScreen(page, 'item-m2o-dialog');
    await dialog.getByRole('combobox').press('Enter');
    await expect.poll(() => field('author').textContent()).toContain('Grace Hopper');

    // The image field: the file library's picker.
    await field('cover').getByRole('button', { name: /Choose file/ }).click();
    const files = page.getByRole('dialog', { name: /Choose an image/ });
    await files.getByRole('option', { name: /Harbour at dawn/ }).click();
    await files.getByRole('button', { name: /Choose “Harbour at dawn”/ }).click();
    await expect.poll(() => field('cover').getByRole('img', { name: 'Harbour at dawn' }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(160);

    // O2M: add two existing chapters, then move the second up with the keyboard buttons.
    for (const title of ['Opening', 'Middle']) {
      await field('chapters').getByRole('button', { name: /Add existing/ }).click();
      const pick = page.getByRole('dialog', { name: /Add to chapters/ });
      await pick.getByRole('option', { name: new RegExp(title) }).click();
    }
    await page.getByRole('button', { name: 'Move Middle up' }).click();
    await expect.poll(() => field('chapters').getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('Middle'), expect.stringContaining('Opening')]);
    expect(await page.getByRole('button', { name: 'Move Middle up' }).isDisabled()).toBe(true);

    // M2M: two tags.
    for (const label of ['science', 'computing']) {
      await field('tags').getByRole('button', { name: /Add existing/ }).click();
      const pick = page.getByRole('dialog', { name: /Add to tags/ });
      await pick.getByRole('combobox').fill(label);
      await expect.poll(() => pick.getByRole('option').count()).toBe(1);
      await pick.getByRole('combobox').press('Enter');
    }
    await expect.poll(() => field('tags').getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('science'), expect.stringContaining('computing')]);
    await checkScreen(page, 'item-filled');

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/admin\/content\/articles$/);

    const [saved] = await ok(server, 'GET', '/items/articles?filter[slug][_eq]=harbour-at-dawn&fields=*,chapters.title,chapters.sort,tags.tags_id.label');
    articleId = saved.id;
    expect(saved).toMatchObject({
      title: 'The harbour at dawn', slug: 'harbour-at-dawn', code: 'HAD', status: 'review', summary: 'Boats come in.\nGulls follow.',
      body: '# Morning\n\nThe **tide** turns at _six_.\n\n- nets\n- ropes', notes: 'Check the photo credit.', published: true,
      embargo: '2025-03-04', publish_time: '10:20:30', event_at: '2025-03-04T05:06:07', stamped: stampedIso, ref,
      count: 42, views: '9007199254740993', rating: 4.5, price: '19.99', settings: { layout: 'wide', columns: [1, 2] },
      keywords: ['alpha', 'gamma'], secret: '**********', legacy_code: 'L-001', internal: null,
      author: model.authors['Grace Hopper'], cover: model.fileId,
    });
    expect(saved.chapters.sort((a: { sort: number }, b: { sort: number }) => a.sort - b.sort).map((c: { title: string }) => c.title)).toEqual(['Middle', 'Opening']);
    expect(saved.tags.map((t: { tags_id: { label: string } }) => t.tags_id.label).sort()).toEqual(['computing', 'science']);
    expect(problems).toEqual([]);
  });

  it('reopens the item with every value in its input', async () => {
    await open(`articles/${articleId}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('The harbour at dawn');
    expect(await page.getByLabel('Slug', { exact: true }).inputValue()).toBe('harbour-at-dawn');
    expect(await page.getByLabel('Status', { exact: true }).locator('option:checked').textContent()).toBe('In review');
    expect(await page.getByRole('switch', { name: 'Published' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Embargo', { exact: true }).count()).toBe(0);
    expect(await page.getByLabel('Publish time', { exact: true }).inputValue()).toBe('10:20:30');
    expect(await page.getByLabel('Event at', { exact: true }).inputValue()).toBe('2025-03-04T05:06:07');
    expect(await page.getByLabel('Stamped', { exact: true }).inputValue()).toBe('2025-06-07T08:09:10');
    expect(await page.getByLabel('Views', { exact: true }).inputValue()).toBe('9007199254740993');
    expect(await page.getByLabel('Price', { exact: true }).inputValue()).toBe('19.99');
    expect(JSON.parse(await page.getByLabel('Settings', { exact: true }).inputValue())).toEqual({ layout: 'wide', columns: [1, 2] });
    expect(await field('keywords').getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('alpha'), expect.stringContaining('gamma')]);
    // The stored hash is never shown: the input is empty, meaning unchanged.
    expect(await page.getByLabel('Secret', { exact: true }).inputValue()).toBe('');
    expect(await field('author').textContent()).toContain('Grace Hopper');
    expect(await field('chapters').getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('Middle'), expect.stringContaining('Opening')]);
    // The "generate" button is for new items only.
    expect(await page.getByRole('button', { name: 'Generate a UUID for Ref' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('shows a unique violation and a failed validation on their fields, keeping what was typed', async () => {
    await ok(server, 'POST', '/items/articles', { title: 'Other', slug: 'taken' });
    await open(`articles/${articleId}`);
    await page.getByLabel(/^Title/).fill('A better headline');
    await page.getByLabel('Slug', { exact: true }).fill('taken');
    await page.getByLabel('Summary', { exact: true }).fill('Typed before the error.');
    await page.getByRole('button', { name: 'Save and stay' }).click();
    await expect.poll(() => page.getByLabel('Slug', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await field('slug').textContent()).toContain('already used by another item');
    expect(await page.getByRole('alert').first().textContent()).toContain('Not saved');
    // Nothing typed is lost.
    expect(await page.getByLabel(/^Title/).inputValue()).toBe('A better headline');
    expect(await page.getByLabel('Summary', { exact: true }).inputValue()).toBe('Typed before the error.');
    await checkScreen(page, 'item-error');

    await page.getByLabel('Slug', { exact: true }).fill('better-headline');
    expect(await page.getByLabel('Slug', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    await page.getByLabel('Code', { exact: true }).fill('had');
    await page.getByRole('button', { name: 'Save and stay' }).click();
    await expect.poll(() => field('code').textContent()).toContain('Use three capital letters, like ABC.');
    expect(await page.getByLabel('Code', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Code', { exact: true }).fill('HBH');
    await page.getByRole('button', { name: 'Save and stay' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    const saved = await ok(server, 'GET', `/items/articles/${articleId}`);
    expect(saved).toMatchObject({ title: 'A better headline', slug: 'better-headline', code: 'HBH', summary: 'Typed before the error.' });
    expect(problems).toEqual([]);
  });

  it('asks before leaving with unsaved changes', async () => {
    await open(`articles/${articleId}`);
    await page.getByLabel('Notes', { exact: true }).fill('Not saved yet.');
    await page.getByRole('link', { name: 'Back to Articles' }).click();
    const guard = page.getByRole('dialog', { name: 'Leave without saving?' });
    await guard.waitFor();
    await checkScreen(page, 'item-unsaved-guard');
    await guard.getByRole('button', { name: 'Keep editing' }).click();
    expect(page.url()).toMatch(new RegExp(`/articles/${articleId}$`));
    expect(await page.getByLabel('Notes', { exact: true }).inputValue()).toBe('Not saved yet.');
    // The browser's Back asks too.
    await page.goBack();
    await guard.waitFor();
    await guard.getByRole('button', { name: 'Keep editing' }).click();
    expect(page.url()).toMatch(new RegExp(`/articles/${articleId}$`));
    expect(await page.getByLabel('Notes', { exact: true }).inputValue()).toBe('Not saved yet.');
    // Closing or reloading the tab asks (beforeunload is armed while the form has edits).
    let asked = false;
    page.once('dialog', (d) => { asked = d.type() === 'beforeunload'; void d.dismiss(); });
    await page.evaluate(() => { location.reload(); }).catch(() => {});
    await expect.poll(() => asked).toBe(true);
    expect(await page.getByLabel('Notes', { exact: true }).inputValue()).toBe('Not saved yet.');
    await page.getByRole('link', { name: 'Back to Articles' }).click();
    await guard.getByRole('button', { name: 'Discard changes' }).click();
    await page.waitForURL(/\/admin\/content\/articles$/);
    expect((await ok(server, 'GET', `/items/articles/${articleId}`)).notes).toBe('Check the photo credit.');

    // Back, then Discard, goes where Back was going; a saved form leaves no extra history entry behind.
    await open(`articles/${articleId}`);
    await page.getByLabel('Notes', { exact: true }).fill('Saved this time.');
    await page.getByRole('button', { name: 'Save and stay' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    await page.getByLabel('Notes', { exact: true }).fill('And edited again.');
    await page.goBack();
    await guard.getByRole('button', { name: 'Discard changes' }).click();
    await page.waitForURL(/\/admin\/content\/articles$/);
    expect((await ok(server, 'GET', `/items/articles/${articleId}`)).notes).toBe('Saved this time.');
    expect(problems).toEqual([]);
  });

  it('saves a copy without the primary key, and deletes after a confirmation', async () => {
    await open(`articles/${articleId}`);
    await page.getByLabel('Slug', { exact: true }).fill('copied-slug');
    await page.getByRole('button', { name: 'Save as copy' }).click();
    await page.waitForURL((url) => /\/articles\/\d+$/.test(url.pathname) && !url.pathname.endsWith(`/${articleId}`));
    const copyId = Number(page.url().split('/').pop());
    const copy = await ok(server, 'GET', `/items/articles/${copyId}?fields=*,tags.tags_id,chapters`);
    expect(copy).toMatchObject({ title: 'A better headline', slug: 'copied-slug', code: 'HBH', author: model.authors['Grace Hopper'], cover: model.fileId });
    expect(copy.tags.map((t: { tags_id: number }) => t.tags_id).sort()).toEqual([model.tags.science, model.tags.computing].sort());
    // The O2M children stay with the original.
    expect(copy.chapters).toEqual([]);
    expect((await ok(server, 'GET', `/items/articles/${articleId}`)).slug).toBe('better-headline');

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this item?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await server.t.req('GET', `/items/articles/${copyId}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/admin\/content\/articles$/);
    expect((await server.t.req('GET', `/items/articles/${copyId}`)).status).not.toBe(200);
    expect(problems).toEqual([]);
  });

  it('orders O2M rows with the buttons and by dragging, removes rows, creates related items in place, and refuses a number that is not one', async () => {
    const id = keyOf(await ok(server, 'POST', '/items/articles', { title: 'Order test', chapters: [model.chapters.Ending] }));
    await open(`articles/${id}`);
    const rows = field('chapters').getByRole('listitem');
    const add = async (title: string) => {
      await field('chapters').getByRole('button', { name: /Add existing/ }).click();
      await page.getByRole('dialog', { name: /Add to chapters/ }).getByRole('option', { name: new RegExp(title) }).click();
    };
    await add('Opening');
    await page.getByRole('button', { name: 'Move Opening up' }).click();
    await page.getByRole('button', { name: 'Remove Ending' }).click();
    await add('Ending');
    await add('Middle');
    expect(await rows.allTextContents()).toEqual([expect.stringContaining('Opening'), expect.stringContaining('Ending'), expect.stringContaining('Middle')]);
    await rows.filter({ hasText: 'Middle' }).dragTo(rows.filter({ hasText: 'Opening' }));
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('Middle'), expect.stringContaining('Opening'), expect.stringContaining('Ending')]);

    // Created in place: a new chapter (O2M) and a new tag (M2M), both sent with the save.
    await field('chapters').getByRole('button', { name: 'Create new' }).click();
    const create = page.getByRole('dialog', { name: 'New item in Chapters' });
    expect(await create.getByLabel('Article').count()).toBe(0);
    await create.getByLabel('Title', { exact: true }).fill('Epilogue');
    await checkScreen(page, 'item-create-related');
    await create.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('Middle'), expect.stringContaining('Opening'), expect.stringContaining('Ending'), expect.stringMatching(/Epilogue.*New/)]);
    await field('tags').getByRole('button', { name: 'Create new' }).click();
    const tag = page.getByRole('dialog', { name: 'New item in Tags' });
    await tag.getByLabel('Label', { exact: true }).fill('maritime');
    await tag.getByLabel('Label', { exact: true }).press('Enter');
    await expect.poll(() => field('tags').getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('maritime')]);

    await page.getByLabel('Count', { exact: true }).fill('4x');
    await expect.poll(() => field('count').getByText('Enter a whole number, like 42.').count()).toBe(1);
    await page.getByRole('button', { name: 'Save and stay' }).click();
    expect(await page.getByRole('alert').first().textContent()).toContain('needs attention');
    await page.getByLabel('Count', { exact: true }).fill('4');
    await page.getByRole('button', { name: 'Save and stay' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    const saved = await ok(server, 'GET', `/items/articles/${id}?fields=count,chapters.title,chapters.sort,tags.tags_id.label`);
    expect(saved.count).toBe(4);
    expect(saved.chapters.sort((a: { sort: number }, b: { sort: number }) => a.sort - b.sort).map((c: { title: string }) => c.title)).toEqual(['Middle', 'Opening', 'Ending', 'Epilogue']);
    expect(saved.tags.map((t: { tags_id: { label: string } }) => t.tags_id.label)).toEqual(['maritime']);
    expect(problems).toEqual([]);
  });
});
