/** The notification bell for every user, in a real browser: a user who is no admin first sees a calm empty panel;
 * then in-app notifications reach them (POST /notifications from the admin, and a template sent to them through
 * POST /notify/trigger on the in-app channel); they see the count on the bell, open the panel with the keyboard,
 * find the newest first, follow one to the item it concerns, archive one, look at the archived ones, and archive
 * the rest. The panel closes with Escape and gives focus back to the bell. Screens pass axe-core and are
 * photographed in both themes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { run } from '../../core/db/database.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { api, checkScreen, JOURNEYS, launchBrowser, newPage, signIn, startStudioServer, type StudioServer } from './harness.ts';

describe.skipIf(!JOURNEYS)('Studio: the notification bell', () => {
  let server: StudioServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let user: string;

  const bell = () => page.getByRole('button', { name: /^Notifications/ });
  const panel = () => page.getByRole('dialog', { name: 'Notifications' });

  async function inboxOf(): Promise<{ subject: string; status: string }[]> {
    return run<{ subject: string; status: string }>(server.t.services.database.db, 'select subject, status from svc_notifications where recipient = $1 order by id', [user]);
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([startStudioServer(), launchBrowser()]);
    await createContentModel(server.t.services, { seed: true });
    ({ user } = await createPrincipal(server.t.services, {
      token: 'bell-editor', appAccess: true, permissions: ['posts', 'authors'].map((collection) => ({ collection, action: 'read' as const })),
    }));
    await api(server, 'PATCH', `/users/${user}`, { password: 'bell-editor-password-1', require_password_change: false, first_name: 'Bea' });
    ({ page, problems } = await newPage(browser));
    page.setDefaultTimeout(8_000);
    await signIn(page, server.url, 'bell-editor@example.com', 'bell-editor-password-1');
    await page.waitForURL(/\/admin\/content/);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows a calm empty panel to a user without notifications, and Escape gives focus back to the bell', async () => {
    await expect.poll(() => bell().getAttribute('aria-expanded')).toBe('false');
    expect(await bell().textContent()).not.toMatch(/unread/);
    await bell().focus();
    await page.keyboard.press('Enter');
    await panel().waitFor();
    await panel().getByText('You are all caught up').waitFor();
    // Focus is in the panel, on the selected tab.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('tab');
    await checkScreen(page, 'bell-empty');
    await page.keyboard.press('Escape');
    await expect.poll(() => panel().count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('title'))).toBe('Notifications');
  });

  it('counts the notifications that arrive, lists them newest first and leads to their item', async () => {
    // A template sent on the in-app channel, as a workflow or the API sends one.
    const inapp = await api(server, 'POST', '/notify/providers', { name: 'In-app', channel: 'inapp', type: null, config: {}, is_primary: true });
    await api(server, 'POST', '/notify/templates', { id: 'digest', name: 'Digest', channels: ['inapp'], status: 'published' });
    await api(server, 'POST', '/notify/templates/digest/contents', { provider_id: inapp, subject: 'Your weekly digest', content: '<p>3 posts <b>changed</b> this week.</p>' });
    await api(server, 'POST', '/notify/trigger', { template_id: 'digest', recipients: [user] });
    // And notifications about items, written directly; the newest is the last.
    for (const [subject, item] of [['Comment on "Hello world"', '1'], ['Review "Second post"', '2']]) {
      await api(server, 'POST', '/notifications', { recipient: user, subject, message: 'Ada Lovelace asked for your review.', collection: 'posts', item });
    }
    // Someone else's notification is not counted.
    const { user: other } = await createPrincipal(server.t.services, { token: 'bell-other', appAccess: true, permissions: [] });
    await api(server, 'POST', '/notifications', { recipient: other, subject: 'Not for Bea' });

    await page.reload();
    await expect.poll(() => bell().textContent(), { timeout: 8_000 }).toMatch(/3 unread/);
    await bell().click();
    const items = panel().getByRole('list', { name: 'Inbox' }).getByRole('listitem');
    await expect.poll(() => items.count()).toBe(3);
    const texts = await items.allTextContents();
    expect(texts[0]).toContain('Review "Second post"');
    expect(texts[1]).toContain('Comment on "Hello world"');
    expect(texts[2]).toContain('Your weekly digest');
    // The template's HTML is shown as words.
    expect(texts[2]).toContain('3 posts changed this week.');
    expect(texts.join()).not.toContain('Not for Bea');
    await expect.poll(() => panel().getByRole('tab', { name: /Inbox/ }).textContent()).toContain('(3)');
    await checkScreen(page, 'bell-panel');

    await panel().getByRole('link', { name: 'Review "Second post"' }).click();
    await page.waitForURL(/\/admin\/content\/posts\/2$/);
    await expect.poll(() => panel().count()).toBe(0);
    // Following it does not archive it.
    expect((await inboxOf()).filter((n) => n.status === 'inbox')).toHaveLength(3);
  });

  it('archives one, shows it among the archived, and archives the rest', async () => {
    // (The read-only item page behind the panel is the item editor's to check; the list is the backdrop here.)
    await page.goto(`${server.url}/admin/content/posts`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await bell().click();
    await panel().getByRole('button', { name: 'Archive: Comment on "Hello world"' }).click();
    await expect.poll(() => panel().getByRole('list', { name: 'Inbox' }).getByRole('listitem').count()).toBe(2);
    await expect.poll(() => bell().textContent()).toMatch(/2 unread/);
    expect((await inboxOf()).find((n) => n.subject === 'Comment on "Hello world"')?.status).toBe('archived');

    // The archived tab, reached with the arrow keys.
    await panel().getByRole('tab', { name: /Inbox/ }).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => panel().getByRole('tab', { name: 'Archived' }).getAttribute('aria-selected')).toBe('true');
    const archived = panel().getByRole('list', { name: 'Archived notifications' }).getByRole('listitem');
    await expect.poll(() => archived.count()).toBe(1);
    expect(await archived.first().textContent()).toContain('Comment on "Hello world"');
    await checkScreen(page, 'bell-archived');

    await panel().getByRole('tab', { name: /Inbox/ }).click();
    await panel().getByRole('button', { name: 'Archive all' }).click();
    await panel().getByText('You are all caught up').waitFor();
    await expect.poll(() => bell().textContent()).not.toMatch(/unread/);
    expect((await inboxOf()).map((n) => n.status)).toEqual(['archived', 'archived', 'archived']);
    // The other user's notification is untouched.
    const [{ status }] = await run<{ status: string }>(server.t.services.database.db, "select status from svc_notifications where subject = 'Not for Bea'");
    expect(status).toBe('inbox');

    // A click elsewhere closes the panel.
    await page.getByRole('heading', { level: 1 }).first().click();
    await expect.poll(() => panel().count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
