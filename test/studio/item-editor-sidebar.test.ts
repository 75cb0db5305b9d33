/** The item editor's sidebar in a real browser: revisions after two edits, who and when, the field-by-field diff of
 * one against the item now, and "Revert to this" (checked through the API); comments added, edited and deleted;
 * and a second user with read-only permission on the collection, who sees disabled inputs and no Save or Delete.
 * Screens pass axe-core and are photographed in both themes (item-editor.test.ts has the form's journeys). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createPrincipal } from '../helpers/principals.ts';
import { checkScreen, JOURNEYS, launchBrowser, newPage, signIn, startStudioServer, type StudioServer, signedInPage } from './harness.ts';
import { createModel, keyOf, ok, type Model } from './item-editor-schema.ts';

describe.skipIf(!JOURNEYS)('Studio: the item sidebar and read-only access', () => {
  let server: StudioServer;
  let browser: Browser;
  let model: Model;
  let page: Page;
  let problems: string[];
  let id: number;

  beforeAll(async () => {
    server = await startStudioServer();
    [browser, model] = await Promise.all([launchBrowser(), createModel(server)]);
    id = keyOf(await ok(server, 'POST', '/items/articles', {
      title: 'Lighthouse keepers', slug: 'lighthouse', status: 'draft', count: 3, author: model.authors['Ada Lovelace'], chapters: [model.chapters.Opening],
    }));
    ({ page, problems } = await signedInPage(browser, server));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(path: string): Promise<void> {
    await page.goto(`${server.url}/admin/content/${path}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
  }

  async function saveAndStay(): Promise<void> {
    await page.getByRole('button', { name: 'Save and stay' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
  }

  it('lists revisions after two edits, shows the diff of one against now, and reverts to it', async () => {
    await open(`articles/${id}`);
    const sidebar = page.getByRole('complementary', { name: 'Comments and revisions' });
    await page.getByLabel('Summary', { exact: true }).fill('First edit.');
    await saveAndStay();
    await page.getByLabel(/^Title/).fill('Lighthouse keepers of the north');
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Published' });
    await saveAndStay();

    await sidebar.getByRole('tab', { name: 'Revisions' }).click();
    const revisions = sidebar.getByRole('list', { name: 'Revisions' }).getByRole('button');
    await expect.poll(() => revisions.count()).toBe(3);
    const texts = await revisions.allTextContents();
    expect(texts[0]).toMatch(/Updated.*You/);
    expect(texts[0]).toContain('Title');
    expect(texts[1]).toMatch(/Updated.*Summary/);
    expect(texts[2]).toMatch(/Created/);

    // The revision of the first edit: the title and status differ from now, the summary does not.
    await revisions.nth(1).click();
    const diff = page.getByRole('dialog', { name: /Revision of/ });
    const rows = diff.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await diff.getByRole('row', { name: /Title/ }).textContent()).toContain('Lighthouse keepers');
    expect(await diff.getByRole('row', { name: /Title/ }).textContent()).toContain('Lighthouse keepers of the north');
    expect(await diff.getByRole('row', { name: /Status/ }).textContent()).toMatch(/Draft.*Published/);
    expect(await diff.getByRole('row', { name: /Summary/ }).count()).toBe(0);
    await checkScreen(page, 'item-revision-diff');

    await diff.getByRole('button', { name: 'Revert to this' }).click();
    await page.getByRole('dialog', { name: 'Revert to this revision?' }).getByRole('button', { name: 'Revert' }).click();
    await expect.poll(() => diff.isVisible()).toBe(false);
    const now = await ok(server, 'GET', `/items/articles/${id}`);
    expect(now).toMatchObject({ title: 'Lighthouse keepers', status: 'draft', summary: 'First edit.', count: 3, author: model.authors['Ada Lovelace'] });
    // The form reloads with the reverted values, and the revert is a revision of its own.
    await expect.poll(() => page.getByLabel(/^Title/).inputValue()).toBe('Lighthouse keepers');
    await expect.poll(() => revisions.count()).toBe(4);
    expect(problems).toEqual([]);
  });

  it('adds, edits and deletes a comment', async () => {
    await open(`articles/${id}`);
    const sidebar = page.getByRole('complementary', { name: 'Comments and revisions' });
    await sidebar.getByRole('tab', { name: 'Comments' }).click();
    await expect.poll(() => sidebar.getByText('No comments yet.').count()).toBe(1);
    await sidebar.getByLabel('New comment').fill('Can we get a photo of the lamp room?');
    await sidebar.getByRole('button', { name: 'Post comment' }).click();
    const comments = sidebar.getByRole('list', { name: 'Comments' }).getByRole('listitem');
    await expect.poll(() => comments.count()).toBe(1);
    expect(await comments.first().textContent()).toMatch(/admin@example.com|Admin/i);
    expect(await comments.first().textContent()).toContain('Can we get a photo of the lamp room?');
    expect(await comments.first().locator('time').getAttribute('datetime')).toBeTruthy();
    await sidebar.getByLabel('New comment').fill('Second thought: two photos.');
    await sidebar.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(() => comments.count()).toBe(2);
    // Newest first.
    expect(await comments.first().textContent()).toContain('Second thought');
    await checkScreen(page, 'item-comments');

    await comments.first().getByRole('button', { name: 'Edit comment' }).click();
    await sidebar.getByLabel('Comment text').fill('Second thought: three photos.');
    await sidebar.getByRole('button', { name: 'Save comment' }).click();
    await expect.poll(() => comments.first().textContent()).toContain('three photos');
    // The list shows the edit as soon as it is sent; the server's copy follows when the PATCH has committed (a loaded
    // CI machine read it before once).
    await expect.poll(async () => (await ok(server, 'GET', `/comments?filter[item][_eq]=${id}&sort=-date_created`)).map((c: { comment: string }) => c.comment))
      .toEqual(['Second thought: three photos.', 'Can we get a photo of the lamp room?']);

    await comments.first().getByRole('button', { name: 'Delete comment' }).click();
    await page.getByRole('dialog', { name: 'Delete this comment?' }).getByRole('button', { name: 'Delete comment' }).click();
    await expect.poll(() => comments.count()).toBe(1);
    expect((await ok(server, 'GET', `/comments?filter[item][_eq]=${id}`)).length).toBe(1);

    // The sidebar folds away and comes back.
    await sidebar.getByRole('button', { name: 'Hide comments and revisions' }).click();
    await expect.poll(() => sidebar.getByRole('tab').count()).toBe(0);
    await sidebar.getByRole('button', { name: 'Show comments and revisions' }).click();
    await expect.poll(() => sidebar.getByRole('tab').count()).toBe(2);
    expect(problems).toEqual([]);
  });

  it('edits a singleton in place (GET and PATCH /items/{collection})', async () => {
    await ok(server, 'POST', '/collections', {
      collection: 'site_settings', meta: { singleton: true }, schema: {},
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true } },
        { field: 'site_name', type: 'string', meta: { interface: 'input', required: true } }, { field: 'maintenance', type: 'boolean', schema: { default_value: false } }],
    });
    await open('site_settings');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Site settings');
    expect(await page.getByRole('link', { name: /^Back to/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await page.getByLabel(/^Site name/).fill('Harbour Press');
    await page.getByRole('switch', { name: 'Maintenance' }).check();
    await saveAndStay();
    expect(await ok(server, 'GET', '/items/site_settings')).toMatchObject({ site_name: 'Harbour Press', maintenance: true });
    expect(problems).toEqual([]);
  });

  it('shows a read-only user disabled inputs and no Save or Delete', async () => {
    const read = ['articles', 'authors', 'tags', 'chapters', 'articles_tags'].map((collection) => ({ collection, action: 'read' as const }));
    const { user } = await createPrincipal(server.t.services, { token: 'reader', appAccess: true, permissions: [...read, { collection: 'svc_files', action: 'read' }] });
    await ok(server, 'PATCH', `/users/${user}`, { password: 'reader-password-1', require_password_change: false });
    const reader = await newPage(browser);
    reader.page.setDefaultTimeout(8_000);
    await signIn(reader.page, server.url, 'reader@example.com', 'reader-password-1');
    await reader.page.waitForURL(/\/admin\/content/);
    await reader.page.goto(`${server.url}/admin/content/articles/${id}`);
    await reader.page.getByRole('heading', { level: 1, name: 'Lighthouse keepers' }).waitFor();
    for (const label of ['Slug', 'Summary', 'Count', 'Status']) expect(await reader.page.getByLabel(label, { exact: true }).isDisabled(), label).toBe(true);
    expect(await reader.page.getByLabel(/^Title/).isDisabled()).toBe(true);
    expect(await reader.page.getByRole('switch', { name: 'Published' }).isDisabled()).toBe(true);
    for (const name of ['Save', 'Save and stay', 'Save as copy', 'Delete']) expect(await reader.page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    expect(await reader.page.getByRole('button', { name: /Add existing|Choose|Remove/ }).count()).toBe(0);
    expect(await reader.page.getByText('Read only', { exact: true }).count()).toBe(1);
    // Without permissions on svc_comments and svc_revisions there is no sidebar to show.
    expect(await reader.page.getByRole('complementary', { name: 'Comments and revisions' }).count()).toBe(0);
    await checkScreen(reader.page, 'item-read-only');
    expect(reader.problems).toEqual([]);
    await reader.context.close();
  });
});
