/** Drafts in the item editor, in a real browser: a draft of an item made from unsaved edits (the item unchanged),
 * edited with plain and relational fields (only the delta saved, checked through the API), opened again by its
 * address, switched with the main item, compared in words, refused submits shown in plain words, submitted (read
 * only with the reason), promoted (the item changed) and deleted; drafts of new content with a client-chosen uuid
 * (no row until promote) and with an auto-increment key (a placeholder row); and an editor without
 * versioning:manage, who sees no promote or delete where the API would refuse them. Every screen passes axe-core
 * and is photographed in both themes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, checkScreen, JOURNEYS, launchBrowser, newPage, signIn, startStudioServer, type StudioServer, signedInPage } from './harness.ts';
import { createModel, keyOf, type Model } from './item-editor-schema.ts';

const EDITOR = 'drafts-editor@example.com';
const EDITOR_PASSWORD = 'editor-pass-word-1';

describe.skipIf(!JOURNEYS)('Studio: drafts (versions) in the item editor', () => {
  let server: StudioServer;
  let browser: Browser;
  let model: Model;
  let page: Page;
  let problems: string[];
  let article: number;

  beforeAll(async () => {
    server = await startStudioServer();
    [browser, model] = await Promise.all([launchBrowser(), createModel(server)]);
    await api(server, 'PATCH', '/collections/articles', { meta: { versioning: true } });
    // New content with keys the client chooses.
    await api(server, 'POST', '/collections', {
      collection: 'notes', meta: { versioning: true, display_template: '{{title}}' }, schema: {},
      fields: [
        { field: 'id', type: 'uuid', schema: { is_primary_key: true }, meta: { special: ['uuid'], hidden: true, readonly: true } },
        { field: 'title', type: 'string', meta: { interface: 'input', required: true, width: 'full' } },
        { field: 'body', type: 'text', meta: { interface: 'input-multiline', width: 'full' } },
      ],
    });
    article = keyOf(await api(server, 'POST', '/items/articles', {
      title: 'Lighthouse keepers', slug: 'lighthouse', status: 'draft', summary: 'Life on the rock.',
      chapters: [model.chapters.Opening, model.chapters.Middle], tags: [{ tags_id: model.tags.science }],
    }));
    // An editor: items of the model, drafts created and submitted, but not versioning:manage.
    const policy = await api(server, 'POST', '/policies', { name: 'Draft writers', app_access: true, admin_access: false });
    const policyId = policy.id ?? policy;
    const role = await api(server, 'POST', '/roles', { name: 'Draft writer', policies: [policyId] });
    for (const collection of ['articles', 'chapters', 'tags', 'articles_tags', 'authors']) {
      for (const action of ['read', 'create', 'update']) await api(server, 'POST', '/permissions', { policy: policyId, collection, action, fields: ['*'] });
    }
    for (const permission of ['versioning:view', 'versioning:create']) await api(server, 'POST', '/app-permissions', { policy: policyId, permission });
    await api(server, 'POST', '/users', { email: EDITOR, password: EDITOR_PASSWORD, role: role.id ?? role, require_password_change: false });

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

  const versionButton = () => page.getByRole('button', { name: /^Version/ });
  const draftStrip = () => page.getByRole('region', { name: 'Draft' });
  const versionsOf = async (collection: string, item: string | number) =>
    api(server, 'GET', `/versions?filter[collection][_eq]=${collection}&filter[item][_eq]=${item}&fields=id,key,name,status,delta&sort=date_created`);
  const versionId = () => new URL(page.url()).searchParams.get('version');

  it('makes a draft of an item from unsaved edits, edits it (only the delta is saved), reopens it by its address and switches to main and back', async () => {
    await open(`articles/${article}`);
    await versionButton().click();
    const menu = page.getByRole('list', { name: 'Versions of this item' });
    await expect.poll(() => page.getByText('No drafts yet.').count()).toBe(1);
    expect(await menu.getByRole('link', { name: /Main/ }).getAttribute('aria-current')).toBe('page');
    await checkScreen(page, 'versions-menu');
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);

    // Unsaved edits of the item go into the new draft; the item keeps its title.
    await page.getByLabel(/^Title/).fill('Lighthouse keepers of the north');
    await versionButton().click();
    await page.getByRole('button', { name: 'New draft…' }).click();
    const dialog = page.getByRole('dialog', { name: 'New draft' });
    await expect.poll(() => dialog.getByText('Your unsaved changes go into the draft.').count()).toBe(1);
    // The name is required; the key follows the name.
    await dialog.getByRole('button', { name: 'Create draft' }).click();
    await expect.poll(() => dialog.getByText('Give the draft a name.').count()).toBe(1);
    await dialog.getByLabel('Name').fill('Spring copy');
    expect(await dialog.getByLabel('Key').inputValue()).toBe('spring-copy');
    await checkScreen(page, 'versions-new-draft');
    await dialog.getByRole('button', { name: 'Create draft' }).click();
    await page.waitForURL(/\?version=/);
    const spring = versionId()!;
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Draft “Spring copy” created' }).count()).toBe(1);
    expect(await page.getByLabel(/^Title/).inputValue()).toBe('Lighthouse keepers of the north');
    expect(await versionButton().textContent()).toMatch(/Spring copy.*Draft/);
    expect((await api(server, 'GET', `/items/articles/${article}`)).title).toBe('Lighthouse keepers');
    expect((await versionsOf('articles', article))[0]).toMatchObject({ id: spring, key: 'spring-copy', status: 'draft', delta: { title: 'Lighthouse keepers of the north' } });

    // Edit the draft: a plain field, a tag added (M2M), a chapter removed (O2M). The sidebar (the item's own
    // comments and revisions) is not shown on a draft.
    expect(await page.getByRole('complementary', { name: 'Comments and revisions' }).count()).toBe(0);
    await page.getByLabel('Summary', { exact: true }).fill('Life on the rock, in spring.');
    const tags = page.getByRole('group', { name: 'Tags' });
    await tags.getByRole('button', { name: /Add existing/ }).click();
    const pick = page.getByRole('dialog', { name: /Add to tags/ });
    await pick.getByRole('combobox').fill('history');
    await expect.poll(() => pick.getByRole('option').count()).toBe(1);
    await pick.getByRole('combobox').press('Enter');
    await page.getByRole('button', { name: 'Remove Opening' }).click();
    await checkScreen(page, 'versions-draft-editing');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Draft saved' }).count()).toBe(1);

    const [saved] = await versionsOf('articles', article);
    expect(Object.keys(saved.delta).sort()).toEqual(['chapters', 'summary', 'tags', 'title']);
    expect(saved.delta.summary).toBe('Life on the rock, in spring.');
    // Against the item's chapters: Opening let go, Middle now first.
    expect(saved.delta.chapters).toEqual({ create: [], update: [{ id: model.chapters.Middle, sort: 1 }], delete: [model.chapters.Opening] });
    expect(saved.delta.tags).toHaveLength(2);
    expect(saved.delta.tags[1]).toEqual({ tags_id: model.tags.history });
    // The item is untouched.
    const main = await api(server, 'GET', `/items/articles/${article}?fields=title,summary,chapters,tags`);
    expect(main).toMatchObject({ title: 'Lighthouse keepers', summary: 'Life on the rock.' });
    expect(main.chapters).toHaveLength(2);
    expect(main.tags).toHaveLength(1);

    // The address opens the draft again, with its relations named.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Lighthouse keepers of the north' }).waitFor();
    await expect.poll(() => tags.getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('science'), expect.stringContaining('history')]);
    expect(await page.getByRole('group', { name: 'Chapters' }).getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('Middle')]);
    expect(await page.getByLabel('Summary', { exact: true }).inputValue()).toBe('Life on the rock, in spring.');
    await checkScreen(page, 'versions-draft');

    // Main and back, through the switcher.
    await versionButton().click();
    await page.getByRole('list', { name: 'Versions of this item' }).getByRole('link', { name: /Main/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Lighthouse keepers' }).waitFor();
    expect(versionId()).toBeNull();
    expect(await page.getByLabel('Summary', { exact: true }).inputValue()).toBe('Life on the rock.');
    await versionButton().click();
    await page.getByRole('list', { name: 'Versions of this item' }).getByRole('link', { name: /Spring copy/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Lighthouse keepers of the north' }).waitFor();
    expect(versionId()).toBe(spring);
    expect(problems).toEqual([]);
  });

  it('compares the draft with main field by field, relations in words', async () => {
    await open(`articles/${article}?version=${(await versionsOf('articles', article))[0].id}`);
    await draftStrip().getByRole('button', { name: 'Compare with main' }).click();
    const compare = page.getByRole('dialog', { name: 'Compare “Spring copy” with main' });
    const table = compare.getByRole('table');
    await expect.poll(() => table.getByRole('row').count()).toBe(5);
    const row = (name: string) => table.getByRole('row', { name: new RegExp(`^${name}`) });
    expect(await row('Title').textContent()).toMatch(/Lighthouse keepers.*Lighthouse keepers of the north/);
    expect(await row('Summary').textContent()).toMatch(/Life on the rock\..*Life on the rock, in spring\./);
    expect(await row('Tags').textContent()).toContain('Adds 1 tag: history');
    expect(await row('Chapters').textContent()).toMatch(/Opening, Middle.*Removes 1 chapter: Opening/);
    await checkScreen(page, 'versions-compare');
    await compare.getByRole('button', { name: 'Close' }).first().click();
    expect(problems).toEqual([]);
  });

  it('shows the API\'s refusals in plain words: a key taken, a draft with no changes submitted', async () => {
    // A second draft with the key of the first: the key field says so.
    await open(`articles/${article}`);
    await versionButton().click();
    await page.getByRole('button', { name: 'New draft…' }).click();
    const dialog = page.getByRole('dialog', { name: 'New draft' });
    await dialog.getByLabel('Name').fill('Spring copy');
    await dialog.getByRole('button', { name: 'Create draft' }).click();
    await expect.poll(() => dialog.getByText('This item already has a draft with that key. Choose another key.').count()).toBe(1);
    expect(await dialog.getByLabel('Key').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Key').fill('empty-draft');
    await dialog.getByRole('button', { name: 'Create draft' }).click();
    await page.waitForURL(/\?version=/);

    await draftStrip().getByRole('button', { name: 'Submit for review' }).click();
    const confirm = page.getByRole('dialog', { name: 'Submit this draft for review?' });
    await confirm.getByRole('button', { name: 'Submit for review' }).click();
    await expect.poll(() => confirm.getByRole('alert').textContent()).toContain('This draft has no changes yet. Change a field and save the draft, then submit it.');
    await checkScreen(page, 'versions-submit-refused');
    await confirm.getByRole('button', { name: 'Cancel' }).click();

    // A link to a draft that is not there (or of another item) says so, and leads to the item.
    const current = page.url();
    await open(`articles/${article}?version=00000000-0000-4000-8000-000000000000`);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This draft could not be opened. It does not exist, it is a draft of another item, or you may not see drafts of it.');
    await checkScreen(page, 'versions-missing');
    await page.goto(current);
    await page.getByRole('heading', { level: 1 }).waitFor();

    // Deleted (versioning:manage), after a confirmation: the item's main version says so.
    await draftStrip().getByRole('button', { name: 'Delete draft' }).click();
    const del = page.getByRole('dialog', { name: 'Delete this draft?' });
    await checkScreen(page, 'versions-delete');
    await del.getByRole('button', { name: 'Delete draft' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Deleted the draft “Spring copy”' }).count()).toBe(1);
    expect(versionId()).toBeNull();
    expect((await versionsOf('articles', article)).map((v: { key: string }) => v.key)).toEqual(['spring-copy']);
    expect(problems).toEqual([]);
  });

  it('submits the draft (read only while in review, with the reason) and promotes it into the item', async () => {
    const [spring] = await versionsOf('articles', article);
    await open(`articles/${article}?version=${spring.id}`);
    // An unsaved change is saved with the submit.
    await page.getByLabel('Code', { exact: true }).fill('LHK');
    await draftStrip().getByRole('button', { name: 'Submit for review' }).click();
    await page.getByRole('dialog', { name: 'Submit this draft for review?' }).getByRole('button', { name: 'Save and submit' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Submitted “Spring copy” for review' }).count()).toBe(1);
    await expect.poll(() => draftStrip().textContent()).toContain('This draft is waiting for review, so it cannot be changed.');
    expect(await page.getByLabel(/^Title/).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save draft' }).count()).toBe(0);
    expect(await draftStrip().getByRole('button', { name: 'Submit for review' }).count()).toBe(0);
    // In review: not deletable.
    expect(await draftStrip().getByRole('button', { name: 'Delete draft' }).count()).toBe(0);
    await checkScreen(page, 'versions-in-review');
    const [pending] = await versionsOf('articles', article);
    expect(pending).toMatchObject({ status: 'pending', delta: { code: 'LHK' } });

    await draftStrip().getByRole('button', { name: 'Promote' }).click();
    const promote = page.getByRole('dialog', { name: 'Promote this draft?' });
    expect(await promote.textContent()).toContain('skipping the review under way');
    await promote.getByRole('button', { name: 'Promote' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Promoted “Spring copy”' }).count()).toBe(1);
    expect(versionId()).toBeNull();
    await expect.poll(() => page.getByLabel(/^Title/).inputValue()).toBe('Lighthouse keepers of the north');
    const main = await api(server, 'GET', `/items/articles/${article}?fields=title,summary,code,chapters.title,tags.tags_id.label`);
    expect(main).toMatchObject({ title: 'Lighthouse keepers of the north', summary: 'Life on the rock, in spring.', code: 'LHK' });
    expect(main.chapters.map((c: { title: string }) => c.title)).toEqual(['Middle']);
    expect(main.tags.map((t: { tags_id: { label: string } }) => t.tags_id.label).sort()).toEqual(['history', 'science']);
    expect((await versionsOf('articles', article))[0].status).toBe('approved');
    await versionButton().click();
    await expect.poll(() => page.getByRole('link', { name: /Spring copy.*Approved/ }).count()).toBe(1);
    await page.keyboard.press('Escape');
    expect(problems).toEqual([]);
  });

  it('drafts new content: a uuid key with no row until promote, an auto-increment key with a placeholder row', async () => {
    await open('notes/+');
    await page.getByLabel(/^Title/).fill('Harbour opening hours');
    await page.getByRole('button', { name: 'Save as draft…' }).click();
    const dialog = page.getByRole('dialog', { name: 'New draft' });
    await expect.poll(() => dialog.getByText(/is created when the draft is promoted/).count()).toBe(1);
    await dialog.getByLabel('Name').fill('Opening hours');
    await dialog.getByRole('button', { name: 'Create draft' }).click();
    await page.waitForURL(/\/notes\/[0-9a-f-]{36}\?version=/);
    const item = new URL(page.url()).pathname.split('/').pop()!;
    await expect.poll(() => draftStrip().textContent()).toContain('A new item');
    expect(await page.getByLabel(/^Title/).inputValue()).toBe('Harbour opening hours');
    // No row yet: the item itself cannot be read.
    expect((await server.t.req('GET', `/items/notes/${item}`)).status).toBe(403);
    await page.getByLabel('Body', { exact: true }).fill('Open daily from nine.');
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Draft saved' }).count()).toBe(1);
    await checkScreen(page, 'versions-new-content');

    // The new-item page lists drafts of new items.
    await open('notes/+');
    await versionButton().click();
    await page.getByRole('list', { name: 'Drafts of new items' }).getByRole('link', { name: /Opening hours/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Harbour opening hours' }).waitFor();

    await draftStrip().getByRole('button', { name: 'Compare with main' }).click();
    const compare = page.getByRole('dialog', { name: /Compare/ });
    await expect.poll(() => compare.getByText('This draft creates a new item').count()).toBe(1);
    await compare.getByRole('button', { name: 'Close' }).first().click();
    await draftStrip().getByRole('button', { name: 'Promote' }).click();
    const promote = page.getByRole('dialog', { name: 'Promote this draft?' });
    expect(await promote.textContent()).toContain('The new item is created');
    await promote.getByRole('button', { name: 'Promote' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Promoted' }).count()).toBe(1);
    expect(await api(server, 'GET', `/items/notes/${item}`)).toMatchObject({ id: item, title: 'Harbour opening hours', body: 'Open daily from nine.' });

    // Articles number their items: a placeholder row (status Draft) holds the number, the content stays in the draft.
    await open('articles/+');
    await page.getByLabel(/^Title/).fill('Fog signals');
    await page.getByRole('button', { name: 'Save as draft…' }).click();
    const second = page.getByRole('dialog', { name: 'New draft' });
    await expect.poll(() => second.getByText(/an empty placeholder item is saved now/).count()).toBe(1);
    await second.getByLabel('Name').fill('Fog');
    await second.getByRole('button', { name: 'Create draft' }).click();
    await page.waitForURL(/\/articles\/\d+\?version=/);
    const placeholder = new URL(page.url()).pathname.split('/').pop()!;
    expect(await api(server, 'GET', `/items/articles/${placeholder}?fields=title,status`)).toEqual({ title: null, status: 'draft' });
    expect((await versionsOf('articles', placeholder))[0].delta).toEqual({ title: 'Fog signals' });
    await expect.poll(() => page.getByLabel(/^Title/).inputValue()).toBe('Fog signals');
    expect(problems).toEqual([]);
  });

  it('an editor without versioning:manage: no promote or delete of someone else\'s draft, nor of their own in review', async () => {
    const theirs = await api(server, 'POST', '/versions', { key: 'admins-idea', name: 'Admin’s idea', collection: 'articles', item: String(article), delta: { summary: 'An idea.' } });
    const editor = await newPage(browser);
    try {
      const p = editor.page;
      p.setDefaultTimeout(8_000);
      await signIn(p, server.url, EDITOR, EDITOR_PASSWORD);
      await p.waitForURL(/\/admin\/content/);
      await p.goto(`${server.url}/admin/content/articles/${article}?version=${theirs}`);
      const strip = p.getByRole('region', { name: 'Draft' });
      await expect.poll(() => strip.textContent()).toContain('Only the person who created this draft, or an administrator, can change it.');
      expect(await strip.getByRole('button').allTextContents()).toEqual(['Compare']);
      expect(await p.getByLabel('Summary', { exact: true }).isDisabled()).toBe(true);
      await checkScreen(p, 'versions-someone-elses');

      // Their own draft: they may submit and (while not in review) promote it, never delete it.
      await p.goto(`${server.url}/admin/content/articles/${article}`);
      await p.getByRole('button', { name: /^Version/ }).click();
      await p.getByRole('button', { name: 'New draft…' }).click();
      const dialog = p.getByRole('dialog', { name: 'New draft' });
      await dialog.getByLabel('Name').fill('Editor’s take');
      await dialog.getByRole('button', { name: 'Create draft' }).click();
      await p.waitForURL(/\?version=/);
      await expect.poll(() => strip.getByRole('button').allTextContents()).toEqual(['Compare', 'Submit for review', 'Promote']);
      await p.getByLabel('Summary', { exact: true }).fill('The editor’s summary.');
      await p.getByRole('button', { name: 'Save draft' }).click();
      await expect.poll(() => p.getByRole('status').filter({ hasText: 'Draft saved' }).count()).toBe(1);
      await strip.getByRole('button', { name: 'Submit for review' }).click();
      await p.getByRole('dialog', { name: 'Submit this draft for review?' }).getByRole('button', { name: 'Submit for review' }).click();
      await expect.poll(() => strip.textContent()).toContain('This draft is waiting for review');
      expect(await strip.getByRole('button').allTextContents()).toEqual(['Compare']);
      expect(editor.problems).toEqual([]);
    } finally {
      await editor.context.close();
    }
  });
});
