/** The content module in a real browser: the navigation pane (folders, what the caller may read, bookmarks), the
 * overview, and a collection's list over 10,000 rows: paging, sorting, search, a filter with an _or group and a
 * relational path, column choice, batch edit and delete, the view restored after a reload and after signing in
 * again, and a bookmark opened from the navigation. Every screen goes through axe-core and is photographed in
 * light and dark. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { run } from '../../core/db/database.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { checkScreen, JOURNEYS, launchBrowser, newPage, signIn, startStudioServer, type StudioServer } from './harness.ts';

const READER_EMAIL = 'reader-list@example.com';
const READER_PASSWORD = 'reader-pass-1';
const AUTHORS = ['Ada', 'Grace', 'Linus', 'Margaret', 'Ken'];

describe.skipIf(!JOURNEYS)('Studio: content navigation and list', () => {
  let server: StudioServer;
  let browser: Browser;

  async function ok(method: string, path: string, body?: unknown): Promise<any> {
    const res = await server.t.req(method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body?.data;
  }

  const pk = { field: 'id', type: 'integer', meta: { hidden: true, readonly: true }, schema: { is_primary_key: true, has_auto_increment: true } };

  beforeAll(async () => {
    server = await startStudioServer();
    browser = await launchBrowser();
  }, 120_000);

  /** The content model of the journeys (after the empty state has been seen). */
  async function seed(): Promise<void> {
    await ok('POST', '/collections', { collection: 'editorial', schema: null, meta: { icon: 'folder', collapse: 'open', sort: 1, note: 'The newsroom' } });
    await ok('POST', '/collections', {
      collection: 'authors', schema: {}, meta: { group: 'editorial', sort: 2, icon: 'person', color: '#2f855a', display_template: '{{name}}' },
      fields: [pk, { field: 'name', type: 'string' }],
    });
    await ok('POST', '/collections', {
      collection: 'articles', schema: {}, meta: { group: 'editorial', sort: 1, icon: 'article', note: 'Stories' },
      fields: [pk, { field: 'title', type: 'string' }, { field: 'status', type: 'string' }, { field: 'views', type: 'integer' },
        { field: 'published', type: 'date' }, { field: 'author', type: 'integer', meta: { interface: 'select-dropdown-m2o', special: ['m2o'] } },
        { field: 'editor', type: 'uuid', meta: { hidden: true, interface: 'select-dropdown-m2o', special: ['m2o'] } }],
    });
    await ok('POST', '/relations', { collection: 'articles', field: 'author', related_collection: 'authors', schema: {} });
    await ok('POST', '/relations', { collection: 'articles', field: 'editor', related_collection: 'svc_users', schema: {} });
    await ok('POST', '/collections', { collection: 'homepage', schema: {}, meta: { singleton: true, icon: 'home', sort: 2 }, fields: [pk, { field: 'headline', type: 'string' }] });
    await ok('POST', '/collections', { collection: 'secrets', schema: {}, meta: { sort: 3 }, fields: [pk, { field: 'code', type: 'string' }] });
    await ok('POST', '/items/authors', AUTHORS.map((name) => ({ name })));
    await run(server.t.services.database.db, `insert into articles (title, status, views, published, author)
      select 'Article ' || lpad(g::text, 5, '0'), (array['draft', 'review', 'published'])[g % 3 + 1], (g * 37) % 1000,
             date '2024-01-01' + (g % 365), (g % 5) + 1
      from generate_series(1, 10000) g`);

    // A reader whose policy reads one collection only.
    const reader = await createPrincipal(server.t.services, { token: 'reader-list', appAccess: true, permissions: [{ collection: 'articles', action: 'read' }] });
    await ok('PATCH', `/users/${reader.user}`, { email: READER_EMAIL, password: READER_PASSWORD, require_password_change: false });
    readerId = reader.user;
  }

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  let readerId = '';
  const nav = (page: Page) => page.getByRole('navigation', { name: 'Collections' });
  const range = (page: Page) => page.getByRole('navigation', { name: 'Pages' });

  it('shows the collections in their folder, collapses the folder, and hides what a reader may not read', { timeout: 90_000 }, async () => {
    const { page, context, problems } = await newPage(browser);
    await signIn(page, server.url);
    await page.waitForURL(/\/admin\/content$/);
    // Before there is any collection: how an admin creates one.
    await page.getByRole('heading', { name: 'No collections yet' }).waitFor();
    expect(await page.getByText('POST /collections').count()).toBe(1);
    await checkScreen(page, 'content-empty');
    await seed();
    await page.reload();
    const folder = nav(page).getByRole('button', { name: 'Editorial' });
    await expect.poll(() => folder.getAttribute('aria-expanded')).toBe('true');
    for (const name of ['Content', 'Articles', 'Authors', 'Homepage (single item)', 'Secrets']) expect(await nav(page).getByRole('link', { name, exact: true }).count()).toBe(1);
    expect(await nav(page).getByRole('link').count()).toBe(5);
    // In meta.sort order: the folder's Articles (1) and Authors (2), then Homepage (2) and Secrets (3) at the top level.
    const texts = await nav(page).getByRole('link').allTextContents();
    const at = (name: string) => texts.findIndex((t) => t.includes(name));
    expect([at('Articles'), at('Authors'), at('Homepage'), at('Secrets')]).toEqual([1, 2, 3, 4]);
    await expect.poll(() => page.getByRole('list', { name: 'All collections' }).getByRole('link').count()).toBe(4);
    expect(await page.getByText('The newsroom').count()).toBeGreaterThan(0);
    await checkScreen(page, 'content-overview');
    await folder.click();
    await expect.poll(() => nav(page).getByRole('link', { name: 'Articles' }).count()).toBe(0);
    await folder.click();
    await expect.poll(() => nav(page).getByRole('link', { name: 'Articles' }).count()).toBe(1);
    // A singleton opens its one item.
    await nav(page).getByRole('link', { name: 'Homepage (single item)' }).click();
    await page.waitForURL(/\/admin\/content\/homepage$/);
    await expect.poll(() => nav(page).getByRole('link', { name: 'Homepage (single item)' }).getAttribute('aria-current')).toBe('page');
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getByRole('table').count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();

    const reader = await newPage(browser, { colorScheme: 'dark' });
    await signIn(reader.page, server.url, READER_EMAIL, READER_PASSWORD);
    await reader.page.waitForURL(/\/admin\/content$/);
    await expect.poll(() => nav(reader.page).getByRole('link').count()).toBe(2);
    expect(await nav(reader.page).getByRole('link', { name: 'Articles', exact: true }).count()).toBe(1);
    expect(await nav(reader.page).getByRole('button', { name: 'Editorial' }).count()).toBe(1);
    await nav(reader.page).getByRole('link', { name: 'Articles' }).click();
    await expect.poll(() => range(reader.page).textContent(), { timeout: 15_000 }).toContain('of 10,000');
    // No create, edit or delete rights: no create button and no row selection.
    expect(await reader.page.getByRole('link', { name: 'Create item' }).count()).toBe(0);
    expect(await reader.page.getByRole('checkbox', { name: 'Select all items on this page' }).count()).toBe(0);
    // The reader's own view is saved, and saved again after a second change (own presets need no permission).
    const readerTitle = reader.page.getByRole('columnheader', { name: 'Title' });
    const readerSort = async () => (await server.t.req('GET', `/presets?filter[user][_eq]=${readerId}&filter[collection][_eq]=articles`)).body.data[0]?.layout_query?.tabular?.sort;
    await readerTitle.getByRole('button').click();
    await expect.poll(readerSort, { timeout: 10_000 }).toEqual(['title']);
    await readerTitle.getByRole('button').click();
    await expect.poll(readerSort, { timeout: 10_000 }).toEqual(['-title']);
    await reader.page.goto(`${server.url}/admin/content/secrets`);
    await reader.page.getByRole('heading', { name: /^(No access to Secrets|No such collection)$/ }).waitFor();
    expect(reader.problems).toEqual([]);
    await reader.context.close();
  });

  it('pages, sorts, searches, filters, chooses columns, edits and deletes in bulk, and keeps the view', { timeout: 120_000 }, async () => {
    const { page, context, problems } = await newPage(browser);
    await signIn(page, server.url);
    await page.waitForURL(/\/admin\/content$/);
    await nav(page).getByRole('link', { name: 'Articles' }).click();
    await page.waitForURL(/\/admin\/content\/articles$/);
    await expect.poll(() => range(page).textContent(), { timeout: 15_000 }).toContain('1–25 of 10,000');
    expect(await nav(page).getByRole('link', { name: 'Articles' }).getAttribute('aria-current')).toBe('page');
    const rows = page.getByRole('table').getByRole('row');
    expect(await rows.count()).toBe(26);
    // The many-to-one column shows the author's name (its display template).
    const firstAuthor = await rows.nth(1).getByRole('cell').last().textContent();
    expect(AUTHORS).toContain(firstAuthor);
    await checkScreen(page, 'content-list');

    // The folder of the current collection can be closed too.
    const folder = nav(page).getByRole('button', { name: 'Editorial' });
    await folder.click();
    await expect.poll(() => nav(page).getByRole('link', { name: 'Articles' }).count()).toBe(0);
    await folder.click();
    await expect.poll(() => nav(page).getByRole('link', { name: 'Articles' }).count()).toBe(1);

    // A click on a row opens its item, and so does Enter on the row's link.
    const firstId = (await server.t.req('GET', '/items/articles?fields=id&limit=1&sort=id')).body.data[0].id;
    await rows.nth(1).getByRole('cell').nth(2).click();
    await page.waitForURL(new RegExp(`/admin/content/articles/${firstId}$`));
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.goBack();
    await page.waitForURL(/\/admin\/content\/articles$/);
    await rows.nth(1).getByRole('link').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/admin/content/articles/${firstId}$`));
    await page.getByRole('link', { name: 'Back to Articles' }).click();
    await page.waitForURL(/\/admin\/content\/articles$/);
    await expect.poll(() => range(page).textContent(), { timeout: 15_000 }).toContain('1–25 of 10,000');
    await expect.poll(() => page.getByRole('link', { name: 'Create item' }).getAttribute('href')).toBe('/admin/content/articles/+');

    // Paging
    await range(page).getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => range(page).textContent()).toContain('26–50 of 10,000');
    await range(page).getByLabel('Rows per page').selectOption('50');
    await expect.poll(() => range(page).textContent()).toContain('1–50 of 10,000');
    await expect.poll(() => rows.count()).toBe(51);

    // Sorting by a column header (a many-to-one column sorts by the related display field)
    const authorHeader = page.getByRole('columnheader', { name: 'Author' });
    await authorHeader.getByRole('button').click();
    await expect.poll(() => authorHeader.getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(() => rows.nth(1).getByRole('cell').last().textContent()).toBe('Ada');
    const titleHeader = page.getByRole('columnheader', { name: 'Title' });
    const firstTitle = () => rows.nth(1).getByRole('link').textContent();
    await titleHeader.getByRole('button').click();
    await expect.poll(() => titleHeader.getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(firstTitle).toBe('Article 00001');
    await titleHeader.getByRole('button').click();
    await expect.poll(() => titleHeader.getAttribute('aria-sort')).toBe('descending');
    await expect.poll(firstTitle).toBe('Article 10000');

    // Search (debounced)
    await page.getByRole('searchbox', { name: 'Search Articles' }).fill('Article 0999');
    await expect.poll(() => range(page).textContent()).toContain('1–10 of 10');
    await expect.poll(firstTitle).toBe('Article 09999');
    await page.getByRole('searchbox', { name: 'Search Articles' }).fill('');
    await expect.poll(() => range(page).textContent()).toContain('of 10,000');

    // Filter: views >= 500 and (status = draft or author.name = Ada)
    const filterButton = page.getByRole('button', { name: /^Filter/ });
    await filterButton.click();
    const builder = page.getByRole('region', { name: 'Filter' });
    await builder.getByRole('button', { name: '+ Add condition' }).click();
    const c1 = builder.getByRole('group', { name: 'Condition 1' });
    await c1.getByLabel('Field').selectOption('views');
    await c1.getByLabel('Operator').selectOption('_gte');
    await c1.getByLabel('Value', { exact: true }).fill('500');
    await builder.getByRole('button', { name: '+ Add group' }).click();
    const group = builder.getByRole('group', { name: 'Group 2' });
    expect(await group.getByLabel('Group 2: match').inputValue()).toBe('_or');
    const c21 = group.getByRole('group', { name: 'Condition 2.1' });
    await c21.getByLabel('Field').selectOption('status');
    await c21.getByLabel('Operator').selectOption('_eq');
    await c21.getByLabel('Value', { exact: true }).fill('draft');
    await group.getByRole('button', { name: '+ Add condition to group 2' }).click();
    const c22 = group.getByRole('group', { name: 'Condition 2.2' });
    await c22.getByLabel('Field').selectOption('author.name');
    await c22.getByLabel('Operator').selectOption('_eq');
    await c22.getByLabel('Value', { exact: true }).fill('Ada');
    const filter = { _and: [{ views: { _gte: '500' } }, { _or: [{ status: { _eq: 'draft' } }, { author: { name: { _eq: 'Ada' } } }] }] };
    const expected = (await server.t.req('GET', `/items/articles?limit=0&meta=filter_count&filter=${encodeURIComponent(JSON.stringify(filter))}`)).body.meta.filter_count;
    expect(expected).toBeGreaterThan(1000);
    expect(expected).toBeLessThan(5000);
    await expect.poll(() => range(page).textContent()).toContain(`of ${expected.toLocaleString('en-US')}`);
    expect(await range(page).textContent()).toContain('filtered from 10,000');
    expect(await filterButton.textContent()).toContain('3');
    // Dynamic values are offered where they fit.
    await c1.getByLabel('Field').selectOption('published');
    await expect.poll(() => c1.getByLabel('Value: dynamic value').locator('option').allTextContents()).toContain('Now ($NOW)');
    await c1.getByLabel('Field').selectOption('editor');
    await c1.getByLabel('Operator').selectOption('_eq');
    await c1.getByLabel('Value: dynamic value').selectOption('$CURRENT_USER');
    await expect.poll(() => c1.getByLabel('Value: Current user').count()).toBe(1);
    // Nobody is the editor of any article yet: the whole filter matches nothing.
    await expect.poll(() => range(page).textContent()).toContain('No matching items');
    await c1.getByLabel('Field').selectOption('views');
    await c1.getByLabel('Operator').selectOption('_gte');
    await c1.getByLabel('Value', { exact: true }).fill('500');
    await page.waitForTimeout(400);
    expect(await c1.getByLabel('Value', { exact: true }).inputValue()).toBe('500');
    await expect.poll(() => range(page).textContent()).toContain(`of ${expected.toLocaleString('en-US')}`);
    await checkScreen(page, 'content-filter');
    await filterButton.click();

    // Columns: drop Published, add Id.
    await page.getByRole('button', { name: 'Columns' }).click();
    const columns = page.getByRole('dialog', { name: 'Columns' });
    await columns.getByRole('checkbox', { name: /^Published/ }).uncheck();
    await columns.getByRole('checkbox', { name: /^Id/ }).check();
    await checkScreen(page, 'content-columns');
    await columns.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByRole('columnheader', { name: 'Id' }).count()).toBe(1);
    expect(await page.getByRole('columnheader', { name: 'Published' }).count()).toBe(0);

    // Batch edit three rows.
    const boxes = page.getByRole('checkbox', { name: /^Select Article/ });
    const picked: string[] = [];
    for (let i = 0; i < 3; i++) {
      picked.push(((await boxes.nth(i).getAttribute('aria-label')) ?? '').replace('Select ', ''));
      await boxes.nth(i).check();
    }
    await page.getByRole('button', { name: 'Edit 3 selected' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit 3 items' });
    await edit.getByLabel('Field').selectOption('views');
    await edit.getByLabel('New value').fill('4242');
    await checkScreen(page, 'content-batch-edit');
    await edit.getByRole('button', { name: 'Save 3 items' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: '3 items updated.' }).count()).toBe(1);
    const edited = await server.t.req('GET', `/items/articles?fields=title,views&filter=${encodeURIComponent(JSON.stringify({ title: { _in: picked } }))}`);
    expect(edited.body.data.map((r: { views: number }) => r.views)).toEqual([4242, 4242, 4242]);

    // Delete two rows.
    const doomed: string[] = [];
    for (let i = 3; i < 5; i++) {
      doomed.push(((await boxes.nth(i).getAttribute('aria-label')) ?? '').replace('Select ', ''));
      await boxes.nth(i).check();
    }
    await page.getByRole('button', { name: 'Delete 2 selected' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete 2 items?' });
    await confirm.getByRole('button', { name: 'Delete 2 items' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: '2 items deleted.' }).count()).toBe(1);
    const left = await server.t.req('GET', '/items/articles?limit=0&meta=total_count');
    expect(left.body.meta.total_count).toBe(9998);
    const gone = await server.t.req('GET', `/items/articles?fields=id&filter=${encodeURIComponent(JSON.stringify({ title: { _in: doomed } }))}`);
    expect(gone.body.data).toEqual([]);
    await expect.poll(() => range(page).textContent()).toContain('filtered from 9,998');
    const countNow = (await range(page).textContent())!.match(/of ([\d,]+)/)![1];

    // The view is saved (debounced) and restored after a reload.
    const me = (await server.t.req('GET', '/users/me')).body.data.id;
    await expect.poll(async () => {
      const res = await server.t.req('GET', `/presets?filter[user][_eq]=${me}&filter[collection][_eq]=articles&filter[bookmark][_null]=true`);
      return JSON.stringify(res.body.data[0] ?? null);
    }, { timeout: 10_000 }).toContain('"id"');
    const saved = (await server.t.req('GET', `/presets?filter[user][_eq]=${me}&filter[collection][_eq]=articles`)).body.data;
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ layout: 'tabular', layout_query: { tabular: { sort: ['-title'], limit: 50 } }, search: null });
    expect(saved[0].layout_query.tabular.fields).toEqual(['title', 'status', 'views', 'author', 'id']);
    expect(saved[0].filter).toMatchObject({ _and: [{ views: { _gte: '500' } }, { _or: [{ status: { _eq: 'draft' } }, { author: { name: { _eq: 'Ada' } } }] }] });

    await page.reload();
    await expect.poll(() => range(page).textContent(), { timeout: 15_000 }).toContain(`of ${countNow}`);
    expect(await page.getByRole('columnheader', { name: 'Title' }).getAttribute('aria-sort')).toBe('descending');
    expect(await page.getByRole('columnheader', { name: 'Id' }).count()).toBe(1);
    expect(await page.getByRole('columnheader', { name: 'Published' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Filter/ }).textContent()).toContain('3');

    // A failed write keeps the view on screen and says so quietly; "Try again" writes it.
    await page.route('**/presets/*', (route) => (route.request().method() === 'PATCH'
      ? route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ errors: [{ message: 'Unavailable', extensions: { code: 'SERVICE_UNAVAILABLE' } }] }) })
      : route.continue()));
    const savedSort = async () => (await server.t.req('GET', `/presets/${saved[0].id}`)).body.data.layout_query.tabular.sort;
    await page.getByRole('columnheader', { name: 'Title' }).getByRole('button').click();
    const failure = page.getByRole('status').filter({ hasText: 'View not saved' });
    await expect.poll(() => failure.count()).toBe(1);
    expect(await page.getByRole('columnheader', { name: 'Title' }).getAttribute('aria-sort')).toBe('ascending');
    expect(await savedSort()).toEqual(['-title']);
    await page.unroute('**/presets/*');
    await failure.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => failure.count()).toBe(0);
    await expect.poll(savedSort).toEqual(['title']);
    await page.getByRole('columnheader', { name: 'Title' }).getByRole('button').click();
    await expect.poll(savedSort).toEqual(['-title']);

    // ... and after signing out and in again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/admin\/login/);
    await signIn(page, server.url);
    await page.waitForURL(/\/admin\/content/);
    await page.goto(`${server.url}/admin/content/articles`);
    await expect.poll(() => range(page).textContent(), { timeout: 15_000 }).toContain(`of ${countNow}`);
    expect(await page.getByRole('columnheader', { name: 'Title' }).getAttribute('aria-sort')).toBe('descending');

    // A bookmark of this view, listed under Articles and opened from the navigation.
    await page.getByRole('button', { name: 'Save as bookmark' }).click();
    const bookmarkDialog = page.getByRole('dialog', { name: 'Save as bookmark' });
    // Focus starts in the name field; Enter saves.
    await expect.poll(() => bookmarkDialog.getByLabel('Bookmark name').evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('Popular drafts');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/content\/articles\?bookmark=\d+$/);
    const link = nav(page).getByRole('list', { name: 'Bookmarks of Articles' }).getByRole('link', { name: 'Popular drafts' });
    await expect.poll(() => link.getAttribute('aria-current')).toBe('page');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Popular drafts');
    await checkScreen(page, 'content-bookmark');

    await nav(page).getByRole('link', { name: 'Content' }).click();
    await page.waitForURL(/\/admin\/content$/);
    await link.click();
    await page.waitForURL(/\/admin\/content\/articles\?bookmark=\d+$/);
    await expect.poll(() => range(page).textContent(), { timeout: 15_000 }).toContain(`of ${countNow}`);
    expect(await page.getByRole('columnheader', { name: 'Title' }).getAttribute('aria-sort')).toBe('descending');

    // Renamed and deleted from the navigation.
    await link.hover();
    await nav(page).getByRole('button', { name: 'Rename bookmark Popular drafts' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename bookmark' });
    await rename.getByLabel('Bookmark name').fill('Top drafts');
    await rename.getByRole('button', { name: 'Rename' }).click();
    const renamed = nav(page).getByRole('link', { name: 'Top drafts' });
    await expect.poll(() => renamed.count()).toBe(1);
    await expect.poll(async () => (await server.t.req('GET', `/presets?filter[bookmark][_eq]=Top drafts`)).body.data.length).toBe(1);
    await nav(page).getByRole('button', { name: 'Delete bookmark Top drafts' }).click();
    await page.getByRole('dialog', { name: 'Delete bookmark "Top drafts"?' }).getByRole('button', { name: 'Delete bookmark' }).click();
    await expect.poll(() => renamed.count()).toBe(0);
    await page.waitForURL(/\/admin\/content\/articles$/);
    expect(problems).toEqual([]);
    await context.close();
  });
});
