/** The Access module in a real browser: a policy made and given permissions in the matrix (read with a row filter and
 * a field list, update with validation, create with presets), app permissions and IP ranges (a bad range told on its
 * line); a role with policies; users invited (the mail goes out) and created, suspended and reactivated, their
 * two-factor reset; the built-in role's deletion refused as the server says; each change checked through the API, then
 * the user signed in in a second browser and the content module following what was granted; and View as for that
 * user. Every screen and dialog passes axe-core and is photographed in light and dark. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { run } from '../../core/db/database.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { api, checkScreen, JOURNEYS, launchBrowser, newPage, signIn, startStudioServer, type StudioServer, signedInPage } from './harness.ts';

const WRITER = { email: 'wendy@example.com', password: 'wendy-pass-word-1' };

describe.skipIf(!JOURNEYS)('Studio: access', () => {
  let server: StudioServer;
  let smtp: TestSmtp;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let policy = '';
  let officePolicy = '';
  let role = '';
  let writer = '';

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startStudioServer({ env: { ...smtp.env } });
    const db = server.t.services.database.db;
    await run(db, `create table stories (id serial primary key, title varchar(255), status varchar(32), body text, views integer);
      insert into stories (title, status, body, views) values ('Harbour opens', 'published', 'Long body', 10), ('Storm warning', 'published', 'Wind', 3),
        ('Secret plan', 'draft', 'Not yet', 0);
      insert into svc_collections (collection, accountability) values ('stories', 'all');`);
    await server.t.services.schema.invalidate();
    browser = await launchBrowser();
    ({ page, problems } = await signedInPage(browser, server));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
  });

  const dialog = (name: string | RegExp) => page.getByRole('dialog', { name });
  const section = (name: string) => page.getByRole('navigation', { name: 'Access' }).getByRole('link', { name, exact: true });
  const cell = (collection: string, action: string, state?: string) => page.getByRole('button', { name: state ? `${collection}: ${action}, ${state}` : new RegExp(`^${collection}: ${action}, `) });
  const rows = async (): Promise<any[]> => api(server, 'GET', `/permissions?filter[policy][_eq]=${policy}&fields=collection,action,fields,permissions,validation,presets&sort=id`);

  async function saveCell(d: Locator): Promise<void> {
    await d.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => d.count()).toBe(0);
  }

  it('creates a policy and grants it permissions in the matrix: read with a row filter and fields, update with validation, create with presets', async () => {
    await page.getByRole('link', { name: 'Access' }).click();
    await page.waitForURL(/\/admin\/access\/users/);
    await section('Policies').click();
    await page.getByRole('heading', { name: 'Policies', level: 1 }).waitFor();
    await checkScreen(page, 'access-policies');
    await page.getByRole('button', { name: 'Create policy' }).click();
    const create = dialog('Create policy');
    await create.getByRole('button', { name: 'Create policy' }).click();
    await expect.poll(() => create.getByText('Give the policy a name.').count()).toBe(1);
    await checkScreen(page, 'access-create-policy');
    await create.getByLabel('Name').fill('Story desk');
    await create.getByRole('button', { name: 'Create policy' }).click();
    await page.waitForURL(/\/admin\/access\/policies\/[0-9a-f-]+\/permissions/);
    policy = /policies\/([0-9a-f-]+)\//.exec(page.url())![1];
    await cell('Stories', 'read', 'no access').waitFor();
    // The system collections wait folded in their own group.
    expect(await cell('Users', 'read').count()).toBe(0);
    expect(await page.getByRole('checkbox', { name: /Show system collections/ }).isChecked()).toBe(false);
    await checkScreen(page, 'access-matrix');

    // Read: custom, only published stories, three fields.
    await cell('Stories', 'read').click();
    const read = dialog('Stories: read');
    await read.getByRole('radio', { name: 'Custom' }).check();
    await read.getByRole('tab', { name: 'Items' }).click();
    await read.getByRole('button', { name: '+ Add condition' }).click();
    const c1 = read.getByRole('group', { name: 'Condition 1' });
    await c1.getByLabel('Field').selectOption({ label: 'Status' });
    await c1.getByLabel('Operator').selectOption({ label: 'equals' });
    await c1.getByLabel('Value', { exact: true }).fill('published');
    await read.getByRole('tab', { name: 'Fields' }).click();
    await read.getByRole('checkbox', { name: 'All fields' }).uncheck();
    for (const f of ['Id', 'Title', 'Status']) await read.getByRole('checkbox', { name: new RegExp(`^${f} `) }).check();
    await checkScreen(page, 'access-cell-read');
    await saveCell(read);
    await cell('Stories', 'read', 'custom access').waitFor();

    // Update: every item, two fields, validated.
    await cell('Stories', 'update').click();
    const update = dialog('Stories: update');
    await update.getByRole('radio', { name: 'Custom' }).check();
    await update.getByRole('tab', { name: 'Fields' }).click();
    await update.getByRole('checkbox', { name: 'All fields' }).uncheck();
    for (const f of ['Title', 'Body']) await update.getByRole('checkbox', { name: new RegExp(`^${f} `) }).check();
    await update.getByRole('tab', { name: 'Validation' }).click();
    await update.getByRole('button', { name: '+ Add condition' }).click();
    const v1 = update.getByRole('group', { name: 'Condition 1' });
    await v1.getByLabel('Field').selectOption({ label: 'Title' });
    await v1.getByLabel('Operator').selectOption({ label: 'is not empty' });
    await checkScreen(page, 'access-cell-validation');
    await saveCell(update);

    // Create: with a preset status.
    await cell('Stories', 'create').click();
    const create2 = dialog('Stories: create');
    await create2.getByRole('radio', { name: 'Custom' }).check();
    await create2.getByRole('tab', { name: 'Presets' }).click();
    await create2.getByRole('button', { name: '+ Add preset' }).click();
    await create2.getByLabel('Preset 1: field').selectOption({ label: 'Status' });
    await create2.getByLabel('Preset 1: value').fill('draft');
    await checkScreen(page, 'access-cell-presets');
    await saveCell(create2);

    // Delete: all, then back to none (the row goes).
    await cell('Stories', 'delete').click();
    await dialog('Stories: delete').getByRole('radio', { name: 'Every item' }).check();
    await saveCell(dialog('Stories: delete'));
    await cell('Stories', 'delete', 'all access').waitFor();
    await cell('Stories', 'delete').click();
    await dialog('Stories: delete').getByRole('radio', { name: 'No access' }).check();
    await saveCell(dialog('Stories: delete'));
    await cell('Stories', 'delete', 'no access').waitFor();

    expect(await rows()).toEqual([
      { collection: 'stories', action: 'read', fields: ['id', 'status', 'title'], permissions: { _and: [{ status: { _eq: 'published' } }] }, validation: null, presets: null },
      { collection: 'stories', action: 'update', fields: ['body', 'title'], permissions: null, validation: { _and: [{ title: { _nempty: true } }] }, presets: null },
      { collection: 'stories', action: 'create', fields: ['*'], permissions: null, validation: null, presets: { status: 'draft' } },
    ]);
    await cell('Stories', 'update', 'custom access').waitFor();
    await cell('Stories', 'create', 'custom access').waitFor();

    // The keyboard walks the matrix: from Stories read, right to update.
    await cell('Stories', 'read').focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Stories: update, custom access');
    expect(problems).toEqual([]);
  });

  it('grants app permissions and limits a policy to IP ranges, telling a bad range on its line', async () => {
    await page.getByRole('navigation', { name: 'Parts of Story desk' }).getByRole('link', { name: 'App permissions' }).click();
    await page.getByRole('checkbox', { name: 'View versions' }).check();
    await expect.poll(async () => (await api(server, 'GET', `/app-permissions?filter[policy][_eq]=${policy}&fields=module,action`))).toEqual([{ module: 'versioning', action: 'view' }]);
    expect(await page.getByRole('checkbox', { name: 'View versions' }).isChecked()).toBe(true);
    await checkScreen(page, 'access-app-permissions');

    // A second policy, limited to an office network, with the delete the first one does not grant.
    officePolicy = await api(server, 'POST', '/policies', { name: 'Office network', permissions: [{ collection: 'stories', action: 'delete' }] });
    await page.goto(`${server.url}/admin/access/policies/${officePolicy}`);
    await page.getByRole('heading', { name: 'Office network', level: 1 }).waitFor();
    await page.getByRole('button', { name: '+ Add IP range' }).click();
    await page.getByLabel('IP range 1', { exact: true }).fill('10.0.0.0/33');
    await page.getByRole('button', { name: '+ Add IP range' }).click();
    await page.getByLabel('IP range 2', { exact: true }).fill('192.168.7.300');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByText('The prefix length after "/" must be a number from 0 to 32.').count()).toBe(1);
    await expect.poll(() => page.getByText('"192.168.7.300" is not an IP address.', { exact: false }).count()).toBe(1);
    expect(await page.getByLabel('IP range 1', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await checkScreen(page, 'access-policy-ip-error');
    expect((await api(server, 'GET', `/policies/${officePolicy}?fields=ip_access`)).ip_access).toBeNull();
    await page.getByLabel('IP range 1', { exact: true }).fill('10.0.0.0/8');
    await page.getByRole('button', { name: 'Remove IP range 2' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    expect((await api(server, 'GET', `/policies/${officePolicy}?fields=ip_access`)).ip_access).toEqual(['10.0.0.0/8']);
    await checkScreen(page, 'access-policy');
  });

  it('creates a role with both policies and Studio access; the built-in role cannot be deleted, as the server says', async () => {
    await section('Roles').click();
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Create role' }).click();
    await dialog('Create role').getByLabel('Name').fill('Reporter');
    await dialog('Create role').getByRole('button', { name: 'Create role' }).click();
    await page.waitForURL(/\/admin\/access\/roles\/[0-9a-f-]+$/);
    role = /roles\/([0-9a-f-]+)$/.exec(page.url())![1];
    await page.getByRole('heading', { name: 'Reporter', level: 1 }).waitFor();
    await page.getByLabel('Description').fill('Writes the stories.');
    await page.getByRole('checkbox', { name: 'Studio access' }).check();
    for (const name of ['Story desk', 'Office network']) {
      await page.getByLabel('Add a policy').selectOption({ label: name });
      await page.getByRole('button', { name: 'Add policy' }).click();
    }
    await expect.poll(() => page.getByRole('list', { name: 'Attached policies' }).getByRole('listitem').count()).toBe(2);
    await checkScreen(page, 'access-role');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    expect(await api(server, 'GET', `/roles/${role}?fields=name,description,app_access,admin_access,policies`))
      .toEqual({ name: 'Reporter', description: 'Writes the stories.', app_access: true, admin_access: false, policies: [policy, officePolicy] });

    await section('Roles').click();
    const roles = page.getByRole('table', { name: 'Roles' });
    await expect.poll(async () => (await roles.getByRole('row', { name: /Reporter/ }).textContent()) ?? '').toMatch(/Reporter.*Studio access.*0/);
    await checkScreen(page, 'access-roles');
    await page.getByRole('link', { name: 'Administrator', exact: true }).click();
    await page.getByRole('heading', { name: 'Administrator', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete role' }).click();
    const del = dialog('Delete the role Administrator?');
    await del.getByLabel(/Type/).fill('Administrator');
    await del.getByRole('button', { name: 'Delete role' }).click();
    await expect.poll(() => del.getByRole('alert').textContent()).toContain('Cannot delete a protected role');
    await checkScreen(page, 'access-role-protected');
    await del.getByRole('button', { name: 'Cancel' }).click();
    expect((await api(server, 'GET', '/roles?filter[name][_eq]=Administrator&fields=id')).length).toBe(1);
  });

  it('invites a user by mail and shows them invited', async () => {
    await section('Users').click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await checkScreen(page, 'access-users');
    await page.getByRole('button', { name: 'Invite users' }).click();
    const invite = dialog('Invite users');
    await invite.getByLabel('Email addresses').fill('not-an-address');
    await invite.getByRole('button', { name: 'Send invitations' }).click();
    await expect.poll(() => invite.getByText('Not an email address: not-an-address.').count()).toBe(1);
    await expect.poll(() => invite.getByText('Choose the role they join.').count()).toBe(1);
    await checkScreen(page, 'access-invite');
    await invite.getByLabel('Email addresses').fill('rita@example.com');
    await invite.getByLabel('Role').selectOption({ label: 'Reporter' });
    await invite.getByRole('button', { name: 'Send invitations' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Invitation sent to rita@example.com.' }).count()).toBe(1);
    const mail = await smtp.next('rita@example.com');
    expect(smtp.linkOf(mail)).toContain('/admin/accept-invite?token=');

    await page.getByLabel('Status').selectOption({ label: 'Invited' });
    const table = page.getByRole('table', { name: 'Users' });
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    const row = table.getByRole('row', { name: /rita@example.com/ });
    expect(await row.textContent()).toMatch(/Reporter.*Invited/);
    await page.getByLabel('Status').selectOption({ label: 'Any status' });
  });

  it('creates a user (a taken email told on its field), suspends and reactivates them, and resets their two-factor', async () => {
    await page.getByRole('button', { name: 'Create user' }).click();
    const create = dialog('Create user');
    await create.getByLabel('First name').fill('Wendy');
    await create.getByLabel('Last name').fill('Writer');
    await create.getByLabel('Email').fill('admin@example.com');
    await create.getByLabel('Password', { exact: true }).fill(WRITER.password);
    await create.getByLabel('Role').selectOption({ label: 'Reporter' });
    await create.getByRole('checkbox', { name: 'Ask for a new password at the first sign-in' }).uncheck();
    await create.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(() => create.getByText('Another account uses this email address.').count()).toBe(1);
    expect(await create.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    expect(await create.getByLabel('First name').inputValue()).toBe('Wendy');
    await checkScreen(page, 'access-create-user-error');
    await create.getByLabel('Email').fill(WRITER.email);
    await create.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('heading', { name: 'Wendy Writer', level: 1 }).waitFor();
    writer = /users\/([0-9a-f-]+)$/.exec(page.url())![1];
    await checkScreen(page, 'access-user');

    await page.getByRole('button', { name: 'Suspend' }).click();
    await checkScreen(page, 'access-suspend');
    await dialog('Suspend Wendy Writer?').getByRole('button', { name: 'Suspend' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Wendy Writer is suspended.' }).count()).toBe(1);
    expect((await api(server, 'GET', `/users/${writer}?fields=status`)).status).toBe('suspended');
    expect((await server.t.req('POST', '/auth/login', WRITER, { token: null })).status).not.toBe(200);
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'is active again' }).count()).toBe(1);
    expect((await api(server, 'GET', `/users/${writer}?fields=status`)).status).toBe('active');

    // Two-factor turned on by the user, then reset by the admin.
    const login = await server.t.req('POST', '/auth/login', WRITER, { token: null });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    await api(server, 'POST', '/users/me/tfa/enable', { password: WRITER.password }, login.body.data.access_token);
    await page.reload();
    await page.getByRole('button', { name: 'Reset two-factor' }).click();
    await checkScreen(page, 'access-reset-tfa');
    await dialog('Reset two-factor for Wendy Writer?').getByRole('button', { name: 'Reset two-factor' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Two-factor is off for Wendy Writer' }).count()).toBe(1);
    expect((await api(server, 'GET', `/users/${writer}?fields=tfa_enabled`)).tfa_enabled).toBe(false);
    expect(await page.getByRole('button', { name: 'Reset two-factor' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('the user signs in elsewhere and the content module follows the permissions: published stories, three fields, no delete', async () => {
    const other = await newPage(browser);
    other.page.setDefaultTimeout(8_000);
    await signIn(other.page, server.url, WRITER.email, WRITER.password);
    await other.page.waitForURL(/\/admin\/content/);
    await other.page.getByRole('navigation', { name: 'Collections' }).getByRole('link', { name: 'Stories', exact: true }).click();
    const table = other.page.getByRole('table');
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    const text = await table.textContent();
    expect(text).toContain('Harbour opens');
    expect(text).toContain('Storm warning');
    expect(text).not.toContain('Secret plan');
    const headers = await table.getByRole('columnheader').allTextContents();
    expect(headers.join('|')).toMatch(/Title/);
    expect(headers.join('|')).not.toMatch(/Body|Views/);
    // Only admins are offered the Access module.
    expect(await other.page.getByRole('navigation', { name: 'Modules' }).getByRole('link', { name: 'Access' }).count()).toBe(0);

    // A change in the matrix reaches them at their next load: reading every story's views too.
    await page.goto(`${server.url}/admin/access/policies/${policy}/permissions`);
    await cell('Stories', 'read').click();
    const read = dialog('Stories: read');
    await read.getByRole('tab', { name: /^Fields/ }).click();
    await read.getByRole('checkbox', { name: /^Views / }).check();
    await saveCell(read);
    await other.page.reload();
    await expect.poll(async () => (await other.page.getByRole('table').getByRole('columnheader').allTextContents()).join('|')).toMatch(/Views/);
    expect(other.problems).toEqual([]);
    await other.context.close();
  });

  it('views as the user: their role, policies (the office one not applying from here), app permissions and resolved permissions', async () => {
    await section('View as').click();
    await page.getByRole('heading', { name: 'View as', level: 1 }).waitFor();
    await checkScreen(page, 'access-view-as-empty');
    await page.getByLabel('Find a user').fill('wendy');
    await page.getByRole('list', { name: 'Matching users' }).getByRole('button', { name: /Wendy Writer/ }).click();
    await page.getByRole('heading', { name: 'Wendy Writer', level: 2 }).waitFor();
    const who = page.getByRole('region', { name: 'Wendy Writer' });
    expect(await who.textContent()).toContain('Reporter');
    expect(await who.textContent()).toContain('versioning:view');
    const policies = page.getByRole('table', { name: 'Their policies' });
    expect(await policies.getByRole('row', { name: /Story desk/ }).textContent()).toContain('Yes');
    expect(await policies.getByRole('row', { name: /Office network/ }).textContent()).toMatch(/No, not from/);
    const resolved = page.getByRole('table', { name: 'What they may do, by collection' });
    const readRow = resolved.getByRole('row', { name: /Read/ }).filter({ hasText: 'published' });
    expect(await readRow.textContent()).toContain('Status equals “published”');
    expect(await readRow.textContent()).toContain('id, status, title, views');
    expect(await resolved.getByRole('row', { name: /Delete/ }).count()).toBe(0);
    await checkScreen(page, 'access-view-as');

    // From inside the office network the delete applies (the server's own resolver for that address).
    await page.getByLabel('Requests from address').fill('10.1.2.3');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => resolved.getByRole('row', { name: /Delete/ }).count()).toBe(1);
    expect(await policies.getByRole('row', { name: /Office network/ }).textContent()).toContain('Yes');
    // What the page shows is what the user's own /permissions/me answers.
    const login = await server.t.req('POST', '/auth/login', WRITER, { token: null });
    const me = await api(server, 'GET', '/permissions/me', undefined, login.body.data.access_token);
    expect(me.stories.read).toMatchObject({ access: 'partial', fields: ['id', 'status', 'title', 'views'] });
    expect(me.stories.delete).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it('deletes a user after their email is typed', async () => {
    await section('Users').click();
    await page.getByRole('link', { name: 'rita@example.com' }).click();
    await page.getByRole('button', { name: 'Delete user' }).click();
    const del = dialog('Delete rita@example.com?');
    expect(await del.getByRole('button', { name: 'Delete user' }).isDisabled()).toBe(true);
    await del.getByLabel(/Type/).fill('rita@example.com');
    await checkScreen(page, 'access-delete-user');
    await del.getByRole('button', { name: 'Delete user' }).click();
    await page.waitForURL(/\/admin\/access\/users$/);
    expect(await api(server, 'GET', '/users?filter[email][_eq]=rita@example.com&fields=id')).toEqual([]);
    expect(problems).toEqual([]);
  });
});
