/** The Messaging module in a real browser, against real protocol peers: an SMTP server (smtp-server) and an HTTP mail
 * gateway that answers message ids and whose delivery reports are posted to the webhook as the gateway would.
 * Providers: an SMTP provider added, a test send that arrives and one the server refuses, made primary, its password
 * kept when the mask is sent back; a gateway with delivery reports. Layouts and templates: a layout and a template
 * with contents per locale, edited beside the live preview, which follows the typing, uses sample variables from
 * the schema and tells a syntax error on its line; the provider's delete refused while contents use it. Logs: sends
 * triggered through the API found with their stats, filtered, one's delivery events in time order, a scheduled send
 * cancelled. Settings: a secret kept masked. Every screen and dialog passes axe-core and is photographed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { run } from '../../core/db/database.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startReceiver, type Receiver } from '../notify/outbox-helpers.ts';
import { gatewaySign } from '../notify/webhook-helpers.ts';
import { api, checkScreen, JOURNEYS, launchBrowser, startStudioServer, type StudioServer, signedInPage } from './harness.ts';

describe.skipIf(!JOURNEYS)('Studio: messaging', () => {
  let server: StudioServer;
  let browser: Browser;
  let smtp: TestSmtp;
  let gateway: Receiver;
  let page: Page;
  let problems: string[];
  const HOOK_SECRET = 'gateway-hook-secret';

  const db = () => server.t.services.database.db;
  const providerRow = async (name: string) => (await run<{ id: number; is_primary: boolean; config: any }>(db(),
    'select id, is_primary, config from svc_notify_providers where name = $1', [name]))[0];
  const dialog = (name: string | RegExp) => page.getByRole('dialog', { name });
  const frame = () => page.getByTitle('Rendered message', { exact: true }).contentFrame();

  async function open(path: string, heading: string | RegExp): Promise<void> {
    await page.goto(`${server.url}/admin/messaging${path}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  beforeAll(async () => {
    [smtp, gateway] = await Promise.all([startSmtp(), startReceiver((_r, n) => ({ status: 202, body: { id: `gw-${n}` } }))]);
    [server, browser] = await Promise.all([startStudioServer({ env: { NOTIFY_SCAN_INTERVAL: '200ms' } }), launchBrowser()]);
    ({ page, problems } = await signedInPage(browser, server));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
    await gateway?.close();
  });

  it('adds an SMTP provider, test-sends through it (the mail arrives; a refusal is told), makes it primary and keeps its masked password', async () => {
    await open('/providers', 'Providers');
    await page.getByText('No email provider').waitFor();
    await checkScreen(page, 'messaging-providers-empty');

    await page.getByRole('button', { name: 'Add email provider' }).click();
    const add = dialog('Add email provider');
    await add.getByLabel(/^Name/).fill('Main SMTP');
    expect(await add.getByLabel('Type').inputValue()).toBe('smtp');
    await add.getByLabel(/^Host/).fill('127.0.0.1');
    await add.getByLabel(/^Port/).fill(String(smtp.port));
    await add.getByLabel(/^From/).fill('News <news@example.com>');
    await checkScreen(page, 'messaging-provider-dialog');
    // A required setting left out is told on its field, and what was typed stays.
    await add.getByLabel(/^Host/).fill('');
    await add.getByRole('button', { name: 'Add provider' }).click();
    await add.getByText(/"config.host" is required/).waitFor();
    expect(await add.getByLabel(/^From/).inputValue()).toBe('News <news@example.com>');
    await add.getByLabel(/^Host/).fill('127.0.0.1');
    await add.getByRole('button', { name: 'Add provider' }).click();
    await expect.poll(() => add.count()).toBe(0);
    const row = page.getByRole('row', { name: /Main SMTP/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('SMTP server');

    await row.getByRole('button', { name: 'Test send through Main SMTP' }).click();
    const test = dialog('Test send through Main SMTP');
    await test.getByLabel('Recipients').fill('ann@example.com');
    await test.getByRole('button', { name: 'Send test' }).click();
    await test.getByText('Sent.').waitFor();
    const mail = await smtp.next('ann@example.com');
    expect(mail.subject).toBe('Test message');
    expect(mail.from).toBe('news@example.com');
    await checkScreen(page, 'messaging-test-send');
    await test.getByLabel('Recipients').fill('refused@example.com');
    await test.getByRole('button', { name: 'Send test' }).click();
    await test.getByText(/Not sent\..*The provider answered: .*550/).waitFor();
    await test.getByRole('button', { name: 'Close', exact: true }).first().click();

    await row.getByRole('button', { name: 'Make primary: Main SMTP' }).click();
    await row.getByText('Primary', { exact: true }).waitFor();
    await expect.poll(async () => (await providerRow('Main SMTP')).is_primary).toBe(true);

    // A password: stored encrypted, shown masked, kept when the mask is sent back.
    await row.getByRole('button', { name: 'Edit Main SMTP' }).click();
    const edit = dialog('Edit Main SMTP');
    await edit.getByLabel('User name').fill('mailer');
    await edit.getByLabel('Password').fill('s3cret-pass');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => edit.count()).toBe(0);
    const stored = (await providerRow('Main SMTP')).config;
    expect(String(stored.pass)).toMatch(/^enc:v1:/);
    await row.getByRole('button', { name: 'Edit Main SMTP' }).click();
    expect(await edit.getByLabel('Password').inputValue()).toBe('********');
    await edit.getByText('Stored and hidden.').waitFor();
    await checkScreen(page, 'messaging-provider-edit');
    await edit.getByLabel('User name').fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => edit.count()).toBe(0);
    const kept = (await providerRow('Main SMTP')).config;
    expect(kept.pass).toBe(stored.pass);
    expect(kept.user).toBeNull();

    // A mail gateway that reports deliveries to our webhook.
    await page.getByRole('button', { name: 'Add email provider' }).click();
    await add.getByLabel(/^Name/).fill('Gateway');
    await add.getByLabel('Type').selectOption({ label: 'Mail gateway (HTTP API)' });
    await add.getByLabel('Base URL').fill(gateway.url);
    await add.getByLabel('API key').fill('gw-key');
    await add.getByLabel(/^From/).fill('receipts@example.com');
    await add.getByLabel('Accept delivery reports from this provider').check();
    await add.getByLabel('Webhook secret').fill(HOOK_SECRET);
    await add.getByText('/notify/webhooks/gateway_mail').waitFor();
    await add.getByRole('button', { name: 'Add provider' }).click();
    await expect.poll(() => add.count()).toBe(0);
    await page.getByRole('row', { name: /Gateway/ }).getByText('On').waitFor();
    await checkScreen(page, 'messaging-providers');
    expect(problems).toEqual([]);
  });

  it('edits a layout and a template\'s contents per locale beside a live preview that follows the typing and tells syntax errors', async () => {
    await open('/layouts', 'Layouts');
    await page.getByRole('button', { name: 'New layout' }).click();
    const create = dialog('New layout');
    await create.getByLabel('Name').fill('Base');
    await create.getByLabel('Id').fill('base');
    await create.getByRole('button', { name: 'Create layout' }).click();
    await page.getByRole('heading', { level: 1, name: 'Base' }).waitFor();
    const layoutText = page.getByLabel('Layout (HTML)');
    await layoutText.fill('<html><body><header style="color:#5a3">{{brand}}</header>{{{content}}}</body></html>');
    await page.getByLabel('Variables (JSON schema)').fill('{"type":"object","properties":{"brand":{"type":"string","default":"Acme"}}}');
    await page.getByRole('button', { name: 'Reset samples' }).click();
    await frame().getByText('Acme').waitFor();
    await frame().getByText('A sample message').waitFor();
    // A syntax error is told on its line; the fix clears it.
    await layoutText.fill('<html><body>\n{{#if brand}}<header>{{brand}}</header>\n{{{content}}}</body></html>');
    await page.getByText('Line 2: Block "if" is not closed (missing {{/if}}).').waitFor();
    await layoutText.fill('<html><body>\n{{#if brand}}<header>{{brand}}</header>{{/if}}\n{{{content}}}</body></html>');
    await expect.poll(() => page.getByText(/Block "if" is not closed/).count()).toBe(0);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await checkScreen(page, 'messaging-layout');

    await open('/templates', 'Templates');
    await page.getByText('No templates yet').waitFor();
    await page.getByRole('button', { name: 'New template' }).click();
    const newTemplate = dialog('New template');
    await newTemplate.getByLabel('Name').fill('Welcome');
    await newTemplate.getByLabel('Id').fill('welcome');
    await newTemplate.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
    await page.getByLabel('Status').selectOption('published');
    await page.getByLabel('Layout').selectOption({ label: 'Base' });
    await page.getByLabel('Variables (JSON schema)').fill('{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect(await api(server, 'GET', '/notify/templates/welcome')).toMatchObject({ status: 'published', layout_id: 'base' });

    await page.getByRole('link', { name: 'Add content' }).click();
    await page.getByRole('heading', { level: 1, name: 'New content' }).waitFor();
    expect(await page.getByLabel('Provider').locator('option:checked').textContent()).toContain('Main SMTP');
    await page.getByLabel('Subject').fill('Welcome {{name}}');
    const content = page.getByLabel(/^Content/);
    await content.fill('<p style="color:#274">Hello {{name}}</p>');
    // Sample variables from the template's schema (name) and its layout's (brand).
    await expect.poll(() => page.getByRole('status', { name: 'Rendered subject' }).textContent()).toBe('Welcome Ada Lovelace');
    await frame().getByText('Hello Ada Lovelace').waitFor();
    await frame().getByText('Acme').waitFor();
    // The preview follows the typing.
    await content.pressSequentially(' and welcome aboard');
    await frame().getByText(/Hello Ada Lovelace and welcome aboard/).waitFor();
    // Variables edited as JSON.
    await page.getByLabel('Sample variables').fill('{"name": "Grace", "brand": "Harbour"}');
    await frame().getByText(/Hello Grace and welcome aboard/).waitFor();
    await frame().getByText('Harbour').waitFor();
    await checkScreen(page, 'messaging-content-editor');
    // A variable the schema requires, left out: told, and still rendered.
    await page.getByLabel('Sample variables').fill('{"brand": "Harbour"}');
    await page.getByText(/a send would be refused: .*name/).waitFor();
    await page.getByLabel('Sample variables').fill('{"name": "Grace", "brand": "Harbour"}');
    // A syntax error on its line.
    await content.fill('<p>Hello {{name}}</p>\n<ul>{{#each items}}<li>{{this}}</li>\n</ul>');
    await page.getByText('Line 2: Block "each" is not closed (missing {{/each}}).').waitFor();
    expect(await content.getAttribute('aria-invalid')).toBe('true');
    await checkScreen(page, 'messaging-content-error');
    await content.fill('<p style="color:#274">Hello {{name}}</p>');
    await expect.poll(() => content.getAttribute('aria-invalid')).toBeNull();
    await page.getByRole('button', { name: 'Add content' }).click();
    await page.waitForURL(/\/templates\/welcome\/contents\/\d+$/);
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();

    // A French content beside the default one.
    await page.getByRole('link', { name: 'Welcome' }).click();
    await page.getByRole('link', { name: 'Add content' }).click();
    await page.getByLabel('Locale').fill('fr');
    await page.getByLabel('Subject').fill('Bienvenue {{name}}');
    await page.getByLabel(/^Content/).fill('<p>Bonjour {{name}}</p>');
    await frame().getByText('Bonjour Ada Lovelace').waitFor();
    await page.getByRole('button', { name: 'Add content' }).click();
    await page.waitForURL(/\/contents\/\d+$/);
    await page.getByRole('link', { name: 'Welcome' }).click();
    const contents = page.getByRole('table', { name: 'Contents' }).getByRole('row');
    await expect.poll(() => contents.count()).toBe(3);
    // The active flag switches in the list.
    await page.getByRole('checkbox', { name: 'Active: Main SMTP, fr' }).uncheck();
    await expect.poll(async () => (await api(server, 'GET', '/notify/templates/welcome')).contents.find((c: any) => c.locale === 'fr').active).toBe(false);
    await page.getByRole('checkbox', { name: 'Active: Main SMTP, fr' }).check();
    await expect.poll(async () => (await api(server, 'GET', '/notify/templates/welcome')).contents.find((c: any) => c.locale === 'fr').active).toBe(true);
    await checkScreen(page, 'messaging-template');

    // The provider cannot be deleted while these contents use it: said in plain words, in the dialog.
    await open('/providers', 'Providers');
    await page.getByRole('button', { name: 'Delete Main SMTP' }).click();
    const confirm = dialog('Delete Main SMTP?');
    await confirm.getByRole('button', { name: 'Delete provider' }).click();
    await confirm.getByRole('alert').filter({ hasText: 'Main SMTP is still used by the contents of the template "welcome".' }).waitFor();
    await checkScreen(page, 'messaging-provider-delete-refused');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await providerRow('Main SMTP')).toBeDefined();
    expect(problems).toEqual([]);
  });

  it('finds sends in the logs with their stats and filters, a log\'s delivery events in time order, and cancels a scheduled send', async () => {
    // A French send through the primary SMTP provider, arriving for real.
    const [french] = (await api(server, 'POST', '/notify/trigger', { template_id: 'welcome', recipients: ['ann@example.com'], variables: { name: 'Ann' }, locale: 'fr' })).log_ids;
    expect((await smtp.next('ann@example.com', 10_000)).subject).toBe('Bienvenue Ann');
    // A receipt through the gateway, which then reports delivery and an opening, the later one first.
    const gatewayId = (await providerRow('Gateway')).id;
    await api(server, 'POST', '/notify/templates', { id: 'receipt', name: 'Receipt', channels: ['email'], status: 'published' });
    await api(server, 'POST', '/notify/templates/receipt/contents', { provider_id: gatewayId, subject: 'Your receipt', content: '<p>Paid: {{amount}}</p>' });
    const [receipt] = (await api(server, 'POST', '/notify/trigger', { template_id: 'receipt', recipients: ['bob@example.com'], variables: { amount: '12 EUR' } })).log_ids;
    await expect.poll(async () => (await api(server, 'GET', `/notify/logs/${receipt}`)).status, { timeout: 8_000 }).toBe('sent');
    expect(gateway.requests.at(-1)?.body).toMatchObject({ to: ['bob@example.com'], subject: 'Your receipt' });
    const messageId = (await api(server, 'GET', `/notify/logs/${receipt}`)).provider_message_id;
    const report = JSON.stringify({ events: [
      { id: 'evt-open', type: 'opened', message_id: messageId, timestamp: new Date(Date.now() - 60_000).toISOString() },
      { id: 'evt-delivered', type: 'delivered', message_id: messageId, timestamp: new Date(Date.now() - 120_000).toISOString() },
    ] });
    const hook = await fetch(`${server.url}/notify/webhooks/gateway_mail`, { method: 'POST', headers: { 'content-type': 'application/json', ...gatewaySign(HOOK_SECRET, report) }, body: report });
    expect(hook.status).toBe(200);
    // A send scheduled for tomorrow.
    const [scheduled] = (await api(server, 'POST', '/notify/trigger', {
      template_id: 'welcome', recipients: ['cleo@example.com'], variables: { name: 'Cleo' }, scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
    })).log_ids;

    await open('/logs', 'Send logs');
    const stats = page.getByRole('region', { name: 'Logs per status' });
    await expect.poll(() => stats.textContent()).toMatch(/3\s*Total/);
    expect(await stats.getByRole('button', { name: /Pending/ }).textContent()).toMatch(/^1/);
    expect(await stats.getByRole('button', { name: /Delivered/ }).textContent()).toMatch(/^1/);
    expect(await stats.getByRole('button', { name: /^\d+\s*Sent$/ }).textContent()).toMatch(/^1/);
    const rows = page.getByRole('table', { name: 'Send logs' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(4);
    await checkScreen(page, 'messaging-logs');

    // Filters on the server: template, recipient, status (from the stats).
    await page.getByLabel('Template').selectOption({ label: 'Welcome' });
    await expect.poll(() => rows.count()).toBe(3);
    await page.getByRole('searchbox', { name: 'Recipient' }).fill('cleo');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).textContent()).toContain('cleo@example.com');
    expect(page.url()).toMatch(/template=welcome.*q=cleo|q=cleo.*template=welcome/);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBe(4);
    // A date range with nothing in it.
    await page.getByLabel('From').fill('2099-01-01');
    await page.getByRole('heading', { name: 'No logs match these filters' }).waitFor();
    const now = new Date(); // the browser's day, which is this machine's
    await page.getByLabel('From').fill(`${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`);
    await expect.poll(() => rows.count()).toBe(4);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await stats.getByRole('button', { name: /Delivered/ }).click();
    await expect.poll(() => rows.count()).toBe(2);

    // The delivered receipt: its message and its delivery events in the order they happened.
    await page.getByRole('link', { name: `Log ${receipt}` }).click();
    await page.getByRole('heading', { level: 1, name: `Log #${receipt}` }).waitFor();
    const events = page.getByRole('table', { name: 'Delivery events' }).getByRole('row');
    await expect.poll(() => events.count()).toBe(3);
    expect(await events.nth(1).getByRole('rowheader').textContent()).toBe('Delivered');
    expect(await events.nth(2).getByRole('rowheader').textContent()).toBe('Opened');
    await page.getByTitle(`Message of log ${receipt}`).contentFrame().getByText('Paid: 12 EUR').waitFor();
    expect(await page.getByText('bob@example.com').count()).toBeGreaterThan(0);
    await checkScreen(page, 'messaging-log');

    // The scheduled send, cancelled from the list after a confirmation.
    await open('/logs', 'Send logs');
    await page.getByRole('button', { name: `Cancel send ${scheduled}` }).click();
    const confirm = dialog(`Cancel send #${scheduled}?`);
    await confirm.getByText(/cleo@example.com, scheduled for/).waitFor();
    await checkScreen(page, 'messaging-cancel-send');
    await confirm.getByRole('button', { name: 'Cancel the send' }).click();
    await expect.poll(() => confirm.count()).toBe(0);
    await expect.poll(async () => (await api(server, 'GET', `/notify/logs/${scheduled}`)).status).toBe('cancelled');
    await expect.poll(() => page.getByRole('row', { name: new RegExp(`Log ${scheduled}`) }).textContent()).toContain('Cancelled');
    await expect.poll(() => stats.getByRole('button', { name: /Cancelled/ }).textContent()).toMatch(/^1/);
    expect(french).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('keeps the settings\' secrets masked', async () => {
    await open('/settings', 'Settings');
    await page.getByLabel('SMTP host').fill('mail.example.com');
    await page.getByLabel('SMTP password').fill('settings-pass');
    await page.getByLabel('Admin addresses').fill('ops@example.com, boss@example.com');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect(await api(server, 'GET', '/notify/settings')).toMatchObject({ smtp_host: 'mail.example.com', smtp_pass: '********', admin_emails: ['ops@example.com', 'boss@example.com'] });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    expect(await page.getByLabel('SMTP password').inputValue()).toBe('********');
    await checkScreen(page, 'messaging-settings');
    // Saved again untouched, the stored password stays.
    const [before] = await run<{ smtp_pass: string }>(db(), 'select smtp_pass from svc_notify_settings where id = 1');
    await page.getByLabel('SMTP host').fill('mail2.example.com');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const [after] = await run<{ smtp_pass: string }>(db(), 'select smtp_pass from svc_notify_settings where id = 1');
    expect(after.smtp_pass).toBe(before.smtp_pass);
    expect(after.smtp_pass).toMatch(/^enc:v1:/);
    expect(problems).toEqual([]);
  });
});
