/** The Data model module in a real browser: a folder and collections of each key kind (numbered, UUID, typed text;
 * a single item) made from the overview, a bad name refused on its field and the server's refusal shown; a field
 * of every type, a dropdown with choices and a default, validation with its message, a condition, unique and
 * indexed; each relation wizard (many to one, one to many, many to many with its junction, many to any), and a
 * failing wizard that leaves nothing half-made; the fields reordered; the settings saved; the content module's
 * editor following; a field and a collection deleted once their names are typed. Checked through the API; every
 * screen passes axe-core and is photographed in light and dark. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, checkScreen, HAS_CHROMIUM, launchBrowser, newPage, signIn, startStudioServer, type StudioServer } from './harness.ts';

const TYPES = ['Text (short)', 'Text (long)', 'Whole number', 'Big whole number', 'Decimal (approximate)', 'Decimal (exact)', 'Yes / no', 'Date', 'Time',
  'Date and time', 'Timestamp', 'UUID', 'JSON', 'Tags (comma separated)', 'Hashed secret'];
const KEYS = ['f_string', 'f_text', 'f_integer', 'f_big', 'f_float', 'f_decimal', 'f_boolean', 'f_date', 'f_time', 'f_datetime', 'f_timestamp', 'f_uuid', 'f_json', 'f_csv', 'f_hash'];
const WIRE = ['string', 'text', 'integer', 'bigInteger', 'float', 'decimal', 'boolean', 'date', 'time', 'dateTime', 'timestamp', 'uuid', 'json', 'csv', 'hash'];

describe.skipIf(!HAS_CHROMIUM)('Studio: the data model', () => {
  let server: StudioServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    server = await startStudioServer();
    const pk = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
    for (const c of ['authors', 'chapters', 'quotes', 'images']) await api(server, 'POST', '/collections', { collection: c, schema: {}, fields: [pk, { field: 'name', type: 'string' }] });
    browser = await launchBrowser();
    ({ page, problems } = await newPage(browser));
    page.setDefaultTimeout(10_000);
    await signIn(page, server.url);
    await page.waitForURL(/\/admin\/content/);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const dialog = (name: string | RegExp) => page.getByRole('dialog', { name });
  const fieldsOf = async (c: string) => (await api(server, 'GET', `/fields/${c}`)) as { field: string; type: string; meta: any; schema: any }[];

  it('makes a folder and collections of each key kind; a bad name is refused on its field', async () => {
    await page.getByRole('link', { name: 'Data model' }).click();
    await page.getByRole('heading', { name: 'Data model', level: 1 }).waitFor();
    await checkScreen(page, 'data-model-overview');

    await page.getByRole('button', { name: 'Create folder' }).click();
    await dialog('Create folder').getByLabel('Name').fill('editorial');
    await dialog('Create folder').getByRole('button', { name: 'Create folder' }).click();
    await page.getByRole('heading', { name: 'Editorial', level: 1 }).waitFor();

    await page.getByRole('navigation', { name: 'Data model' }).getByRole('link', { name: 'All collections' }).click();
    await page.getByRole('button', { name: 'Create collection' }).click();
    const create = dialog('Create collection');
    await create.getByLabel('Name').fill('2articles');
    await create.getByRole('button', { name: 'Create collection' }).click();
    await expect.poll(() => create.getByText(/not starting with a digit/).count()).toBe(1);
    await checkScreen(page, 'data-model-create-error');
    await create.getByLabel('Name').fill('articles');
    await create.getByLabel('In folder').selectOption({ label: 'Editorial' });
    await create.getByRole('button', { name: 'Create collection' }).click();
    await page.getByRole('heading', { name: 'Articles', level: 1 }).waitFor();

    for (const [name, key, single] of [['tags', 'Generated UUID', false], ['pages', 'Typed by the editor', false], ['home', 'Numbered automatically', true]] as const) {
      await page.getByRole('navigation', { name: 'Data model' }).getByRole('link', { name: 'All collections' }).click();
      await page.getByRole('button', { name: 'Create collection' }).click();
      await dialog('Create collection').getByLabel('Name').fill(name);
      await dialog('Create collection').getByRole('radio', { name: new RegExp(key) }).check();
      if (single) await dialog('Create collection').getByLabel('A single item').check();
      await dialog('Create collection').getByRole('button', { name: 'Create collection' }).click();
      await page.getByRole('heading', { level: 1, name: new RegExp(`^${name}$`, 'i') }).waitFor();
    }
    // The server's own refusal (a name taken meanwhile) is shown in the dialog.
    await page.getByRole('navigation', { name: 'Data model' }).getByRole('link', { name: 'All collections' }).click();
    await page.getByRole('button', { name: 'Create collection' }).click();
    await dialog('Create collection').getByLabel('Name').fill('late');
    await api(server, 'POST', '/collections', { collection: 'late', schema: null });
    await dialog('Create collection').getByRole('button', { name: 'Create collection' }).click();
    await expect.poll(() => dialog('Create collection').getByRole('alert').textContent()).toMatch(/Not created/);
    await dialog('Create collection').getByRole('button', { name: 'Cancel' }).click();

    const all = (await api(server, 'GET', '/collections')) as { collection: string; meta: any; schema: any }[];
    const by = (n: string) => all.find((c) => c.collection === n)!;
    expect(by('editorial').schema).toBeNull();
    expect(by('articles').meta.group).toBe('editorial');
    expect(by('home').meta.singleton).toBe(true);
    expect((await fieldsOf('tags')).find((f) => f.field === 'id')).toMatchObject({ type: 'uuid', schema: { is_primary_key: true } });
    expect((await fieldsOf('pages')).find((f) => f.field === 'id')).toMatchObject({ type: 'string', schema: { is_primary_key: true } });
    expect((await fieldsOf('articles')).find((f) => f.field === 'id')).toMatchObject({ type: 'integer', schema: { has_auto_increment: true } });
    await checkScreen(page, 'data-model-collections');
    expect(problems).toEqual([]);
  });

  it('adds a field of every type, then a dropdown with a default, validation, a condition, unique and indexed', async () => {
    await page.getByRole('navigation', { name: 'Data model' }).getByRole('link', { name: 'Articles' }).click();
    await page.getByRole('heading', { name: 'Articles', level: 1 }).waitFor();
    for (const [i, label] of TYPES.entries()) {
      await page.getByRole('button', { name: 'Add field' }).click();
      const add = dialog('Add field');
      await add.getByLabel('Key').fill(KEYS[i]);
      await add.getByLabel('Type').selectOption({ label });
      if (i === 0) await checkScreen(page, 'data-model-field-new');
      await add.getByRole('button', { name: 'Add field' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'added' }).count()).toBe(1);
    }
    const made = await fieldsOf('articles');
    for (const [i, key] of KEYS.entries()) expect(made.find((f) => f.field === key)?.type, key).toBe(WIRE[i]);

    await page.getByRole('button', { name: 'Add field' }).click();
    const status = dialog('Add field');
    await status.getByLabel('Key').fill('status');
    await status.getByLabel('Interface').selectOption({ label: 'Dropdown' });
    for (const [text, value] of [['Draft', 'draft'], ['Published', 'published']]) {
      await status.getByRole('button', { name: 'Add choice' }).click();
      const n = await status.getByLabel(/^Label of choice/).count();
      await status.getByLabel(`Label of choice ${n}`).fill(text);
      await status.getByLabel(`Value of choice ${n}`).fill(value);
    }
    await status.getByLabel('Default value').fill('draft');
    await status.getByLabel('Required').check();
    await status.getByLabel('Indexed').check();
    await status.getByRole('tab', { name: 'Conditions' }).click();
    await status.getByRole('button', { name: 'Add condition' }).click();
    await status.getByLabel('Name of condition 1').fill('Locked once published');
    await status.getByRole('button', { name: '+ Add condition' }).click();
    const rule = status.getByRole('group', { name: 'Condition 1', exact: true });
    await rule.getByLabel('Field').selectOption({ label: 'F boolean' });
    await rule.getByLabel('Value').selectOption('true');
    await status.getByLabel('Hidden under condition 1').selectOption('keep');
    await status.getByLabel('Read only under condition 1').selectOption('yes');
    await checkScreen(page, 'data-model-field-conditions');
    await status.getByRole('tab', { name: 'Field' }).click();
    await status.getByRole('button', { name: 'Add field' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Field “Status” added.' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Edit F integer' }).click();
    const views = dialog('Edit field “F integer”');
    await views.getByRole('tab', { name: 'Validation' }).click();
    await views.getByRole('button', { name: '+ Add condition' }).click();
    await views.getByRole('group', { name: 'Condition 1' }).getByLabel('Field').selectOption({ label: 'F integer' });
    await views.getByRole('group', { name: 'Condition 1' }).getByLabel('Operator').selectOption({ label: 'is greater than or equal to' });
    await views.getByRole('group', { name: 'Condition 1' }).getByLabel('Value').fill('0');
    await views.getByLabel('Message when it does not match').fill('No negative numbers.');
    await checkScreen(page, 'data-model-field-validation');
    await views.getByRole('tab', { name: 'Field' }).click();
    await views.getByLabel('Unique').check();
    await views.getByRole('button', { name: 'Save field' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'saved' }).count()).toBe(1);

    const now = await fieldsOf('articles');
    const s = now.find((f) => f.field === 'status')!;
    expect(s.meta).toMatchObject({ interface: 'select-dropdown', required: true, options: { choices: [{ text: 'Draft', value: 'draft' }, { text: 'Published', value: 'published' }] } });
    expect(s.meta.conditions).toEqual([{ name: 'Locked once published', rule: { _and: [{ f_boolean: { _eq: true } }] }, readonly: true }]);
    expect(s.schema).toMatchObject({ default_value: 'draft', is_indexed: true });
    const v = now.find((f) => f.field === 'f_integer')!;
    expect(v.meta).toMatchObject({ validation: { _and: [{ f_integer: { _gte: '0' } }] }, validation_message: 'No negative numbers.' });
    expect(v.schema.is_unique).toBe(true);
    // The rule holds: a negative number is refused with the message.
    const refused = await server.t.req('POST', '/items/articles', { status: 'draft', f_integer: -1 });
    expect(JSON.stringify(refused.body)).toContain('No negative numbers.');
    await checkScreen(page, 'data-model-fields');
  });

  it('runs each relation wizard, and takes a failing one back', async () => {
    const wizard = async (kind: string, fill: (d: ReturnType<typeof dialog>) => Promise<void>, title: RegExp) => {
      await page.getByRole('group', { name: 'Add a relation' }).getByRole('button', { name: kind }).click();
      const d = dialog(title);
      await fill(d);
      await d.getByRole('button', { name: 'Create relation' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: /Relation .* added/ }).count()).toBe(1);
    };
    await wizard('Many to one', async (d) => { await d.getByLabel('Points at').selectOption({ label: 'Authors' }); await d.getByLabel('Field in Articles').fill('author'); }, /many-to-one/);
    await wizard('One to many', async (d) => {
      await d.getByLabel('Items of').selectOption({ label: 'Chapters' });
      await d.getByLabel('Field in Articles').fill('chapters');
      await d.getByLabel('Editors order them').check();
    }, /one-to-many/);
    await wizard('Many to many', async (d) => { await d.getByLabel('Linked with').selectOption({ label: 'Tags' }); await checkScreen(page, 'data-model-wizard-m2m'); }, /many-to-many/);
    await wizard('Many to any', async (d) => {
      await d.getByLabel('Field in Articles').fill('blocks');
      await d.getByRole('checkbox', { name: 'Quotes' }).check();
      await d.getByRole('checkbox', { name: 'Images' }).check();
    }, /many-to-any/);

    const relations = (await api(server, 'GET', '/relations')) as { collection: string; field: string; related_collection: string | null; meta: any }[];
    const find = (c: string, f: string) => relations.find((r) => r.collection === c && r.field === f);
    expect(find('articles', 'author')).toMatchObject({ related_collection: 'authors' });
    expect(find('chapters', 'articles_id')).toMatchObject({ related_collection: 'articles', meta: { one_field: 'chapters', sort_field: 'sort' } });
    expect(find('articles_tags', 'tags_id')).toMatchObject({ related_collection: 'tags', meta: { junction_field: 'articles_id' } });
    expect(find('articles_tags', 'articles_id')).toMatchObject({ related_collection: 'articles', meta: { one_field: 'tags', junction_field: 'tags_id' } });
    expect(find('articles_blocks', 'item')).toMatchObject({ related_collection: null, meta: { one_allowed_collections: ['quotes', 'images'], one_collection_field: 'collection' } });
    expect((await fieldsOf('articles_tags')).find((f) => f.field === 'tags_id')?.type).toBe('uuid');

    // A one-to-many whose last step fails (its field name taken meanwhile): the key field made in Authors goes again.
    await page.getByRole('group', { name: 'Add a relation' }).getByRole('button', { name: 'One to many' }).click();
    const failing = dialog(/one-to-many/);
    await failing.getByLabel('Items of').selectOption({ label: 'Authors' });
    await failing.getByLabel('Field in Articles').fill('writers');
    await api(server, 'POST', '/fields/articles', { field: 'writers', type: 'string' });
    await failing.getByRole('button', { name: 'Create relation' }).click();
    await expect.poll(() => failing.getByRole('alert').textContent()).toMatch(/Nothing was created/);
    await checkScreen(page, 'data-model-wizard-failed');
    expect((await fieldsOf('authors')).map((f) => f.field)).not.toContain('articles_id');
    await failing.getByRole('button', { name: 'Cancel' }).click();
    await api(server, 'DELETE', '/fields/articles/writers');
  });

  it('reorders fields, saves the settings, and the content editor follows', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Articles', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Move Status up' }).click();
    await expect.poll(async () => {
      const list = (await fieldsOf('articles')).sort((a, b) => (a.meta?.sort ?? 0) - (b.meta?.sort ?? 0)).map((f) => f.field);
      return list.indexOf('status') < list.indexOf('f_hash');
    }).toBe(true);
    // Dragging a row onto another moves it there (once the list has taken the move in: its buttons are enabled again).
    await expect.poll(() => page.getByRole('button', { name: 'Move Status up' }).isEnabled()).toBe(true);
    await page.getByRole('row', { name: /Status/ }).dragTo(page.getByRole('row', { name: /F string/ }));
    await expect.poll(async () => (await fieldsOf('articles')).find((f) => f.field === 'status')?.meta?.sort, { timeout: 8000 }).toBeLessThanOrEqual(2);

    await page.getByRole('navigation', { name: 'Collection' }).getByRole('link', { name: 'Settings' }).click();
    const settings = page.getByRole('form', { name: 'Settings of Articles' });
    await settings.getByLabel('Display template').fill('{{f_string}}');
    await settings.getByLabel('Preview URL').fill('not a url');
    await settings.getByLabel('Drafts (content versioning)').check();
    await settings.getByLabel('Activity and revisions').selectOption('activity');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => settings.getByText(/A web address starting with/).count()).toBe(1);
    await settings.getByLabel('Preview URL').fill('https://www.example.com/articles/{{id}}');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => settings.getByRole('status').textContent()).toContain('Saved.');
    await checkScreen(page, 'data-model-settings');
    const meta = ((await api(server, 'GET', '/collections/articles')) as { meta: any }).meta;
    expect(meta).toMatchObject({ display_template: '{{f_string}}', preview_url: 'https://www.example.com/articles/{{id}}', versioning: true, accountability: 'activity' });

    await page.getByRole('link', { name: 'Open in Content' }).click();
    await page.getByRole('link', { name: 'Create item' }).click();
    await page.getByRole('heading', { name: 'New item in Articles' }).waitFor();
    expect(await page.getByLabel(/^Status/).count()).toBe(1);
    expect(await page.getByText('Tags', { exact: true }).count()).toBeGreaterThan(0);
    expect(await page.getByText('Chapters', { exact: true }).count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('deletes a field and a collection once their names are typed', async () => {
    await page.goto(`${server.url}/admin/data-model/articles`);
    await page.getByRole('button', { name: 'Delete F hash' }).click();
    const confirm = dialog('Delete the field “F hash”?');
    await confirm.getByLabel(/Type f_hash to confirm/).fill('f_has');
    expect(await confirm.getByRole('button', { name: 'Delete field' }).isDisabled()).toBe(true);
    await confirm.getByLabel(/Type f_hash to confirm/).fill('f_hash');
    await checkScreen(page, 'data-model-delete-field');
    await confirm.getByRole('button', { name: 'Delete field' }).click();
    await expect.poll(async () => (await fieldsOf('articles')).some((f) => f.field === 'f_hash')).toBe(false);

    await page.getByRole('navigation', { name: 'Data model' }).getByRole('link', { name: 'Home' }).click();
    await page.getByRole('button', { name: 'Delete collection' }).click();
    const drop = dialog(/Delete the collection “Home”/);
    await drop.getByLabel(/Type home to confirm/).fill('home');
    await drop.getByRole('button', { name: 'Delete collection' }).click();
    await page.getByRole('heading', { name: 'Data model', level: 1 }).waitFor();
    expect(((await api(server, 'GET', '/collections')) as { collection: string }[]).some((c) => c.collection === 'home')).toBe(false);
    expect(problems).toEqual([]);
  });
});
