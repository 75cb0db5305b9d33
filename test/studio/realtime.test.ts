/** The Studio live, in a real browser against a server with /websocket attached (as the standalone process and the
 * container serve it): the content list shows items created, changed and deleted through REST by someone else
 * without a reload, keeping the user's selection and focus and never showing the list busy; the notification bell
 * counts a notification the moment it is written; the review badge counts a task the moment a draft is submitted
 * for review. Then a server where realtime is switched off (WEBSOCKETS_ENABLED=false, as a deployment without
 * it): the Studio works as before, shows no error, and does not keep knocking. Screens pass axe-core and are
 * photographed in light and dark. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, checkScreen, JOURNEYS, launchBrowser, signedInPage, startStudioServer, type StudioServer } from './harness.ts';

/** Well within the minute the Studio polls at without realtime: a change seen this fast came over the socket. */
const LIVE_MS = 6_000;

const pk = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true, readonly: true } };

/** A small collection to watch: stories with a title and a desk. */
async function seedStories(server: StudioServer): Promise<void> {
  await api(server, 'POST', '/collections', {
    collection: 'stories', meta: { display_template: '{{title}}', icon: 'article' }, schema: {},
    fields: [pk, { field: 'title', type: 'string', meta: { interface: 'input', sort: 1 } }, { field: 'desk', type: 'string', meta: { interface: 'input', sort: 2 } }],
  });
  await api(server, 'POST', '/items/stories', [
    { title: 'Harbour lights', desk: 'City' }, { title: 'Tide tables', desk: 'Coast' }, { title: 'Gulls of the pier', desk: 'Nature' },
    { title: 'Ferry timetable', desk: 'City' }, { title: 'Lighthouse keeper', desk: 'Coast' },
  ]);
}

/** From the next document the page loads on: every WebSocket it creates, kept for `socketsOf`. */
async function instrumentSockets(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __sockets: WebSocket[]; WebSocket: typeof WebSocket };
    w.__sockets = [];
    const Native = w.WebSocket;
    w.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        w.__sockets.push(this);
      }
    };
  });
}

/** The sockets the current document created: their path and state (0 connecting, 1 open, 2 closing, 3 closed). */
function socketsOf(page: Page): Promise<{ path: string; state: number }[]> {
  return page.evaluate(() => (window as unknown as { __sockets: WebSocket[] }).__sockets
    .map((ws) => ({ path: new URL(ws.url).pathname, state: ws.readyState })));
}

/** Counts every moment the list table shows itself busy (aria-busy="true": dimmed rows and a progress bar). */
async function countBusy(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __busy: number; __marker: string };
    w.__busy = 0;
    w.__marker = 'still the same document';
    const table = document.querySelector('.list-table');
    if (!table) throw new Error('no list table');
    new MutationObserver(() => { if (table.getAttribute('aria-busy') === 'true') w.__busy++; })
      .observe(table, { attributes: true, attributeFilter: ['aria-busy'] });
  });
}

describe.skipIf(!JOURNEYS)('Studio: live updates over realtime', () => {
  let server: StudioServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let admin: string;

  const rows = () => page.getByRole('table', { name: 'Stories' }).getByRole('row');
  const bell = () => page.getByRole('button', { name: /^Notifications/ });
  const review = () => page.getByRole('navigation', { name: 'Modules' }).getByRole('link', { name: /^Review/ });

  beforeAll(async () => {
    [server, browser] = await Promise.all([startStudioServer({ realtime: true }), launchBrowser()]);
    await seedStories(server);
    admin = (await api(server, 'GET', '/users/me')).id;
    // A versioned collection with a review workflow whose approval step is the admin's.
    await api(server, 'POST', '/collections', {
      collection: 'articles', meta: { display_template: '{{title}}', versioning: true }, schema: {},
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true, readonly: true } },
        { field: 'title', type: 'string', meta: { interface: 'input', sort: 1 } }],
    });
    const workflow = (await api(server, 'POST', '/workflows', { name: 'Desk review', collection: 'articles', trigger_event: 'versions.submit' })).id;
    const steps: string[] = [];
    for (const [i, s] of [
      { key: 'start', name: 'Start', type: 'start' },
      { key: 'review', name: 'Desk check', type: 'approval', assign_type: 'user', assign_value: admin, approval_mode: 'any' },
      { key: 'done', name: 'Done', type: 'end' },
    ].entries()) steps.push((await api(server, 'POST', `/workflows/${workflow}/steps`, { sort_order: i, ...s })).id);
    await api(server, 'POST', `/workflows/${workflow}/transitions`, { from_step_id: steps[0], to_step_id: steps[1], trigger: 'always' });
    await api(server, 'POST', `/workflows/${workflow}/transitions`, { from_step_id: steps[1], to_step_id: steps[2], trigger: 'approve' });
    await api(server, 'POST', `/workflows/${workflow}/activate`);

    ({ page, problems } = await signedInPage(browser, server));
    await instrumentSockets(page);
    await page.goto(`${server.url}/admin/content/stories`);
    await page.getByRole('row').filter({ hasText: 'Lighthouse keeper' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows items written through REST in the open list, keeping the selection and focus, never busy', async () => {
    expect(await rows().count()).toBe(6); // the header and five stories
    await expect.poll(() => socketsOf(page), { timeout: LIVE_MS }).toEqual([{ path: '/websocket', state: 1 }]);
    await countBusy(page);
    const second = page.getByRole('checkbox', { name: 'Select Tide tables' });
    await second.check();
    await second.focus();

    const created = await api(server, 'POST', '/items/stories', { title: 'Live from the wire', desk: 'Wire' });
    const row = page.getByRole('row').filter({ hasText: 'Live from the wire' });
    await row.waitFor({ timeout: LIVE_MS });
    await page.getByText('1–6 of 6').waitFor({ timeout: LIVE_MS });
    expect(await second.isChecked()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Select Tide tables');
    await page.getByRole('group', { name: 'Selected items' }).getByRole('button', { name: 'Delete 1 selected' }).waitFor();
    await checkScreen(page, 'realtime-list');

    await api(server, 'PATCH', `/items/stories/${created}`, { title: 'Live, corrected' });
    await page.getByRole('row').filter({ hasText: 'Live, corrected' }).waitFor({ timeout: LIVE_MS });
    await expect.poll(() => row.count()).toBe(0);

    // Someone else deletes the selected item: it leaves the list and the selection.
    await api(server, 'DELETE', '/items/stories/2');
    await expect.poll(() => second.count(), { timeout: LIVE_MS }).toBe(0);
    await expect.poll(() => page.getByRole('group', { name: 'Selected items' }).count()).toBe(0);
    await page.getByText('1–5 of 5').waitFor();

    expect(await page.evaluate(() => (window as unknown as { __marker: string }).__marker)).toBe('still the same document');
    expect(await page.evaluate(() => (window as unknown as { __busy: number }).__busy), 'the list never showed itself busy').toBe(0);
    // One socket for the tab, however many subscriptions (the list, the bell, the review badge).
    expect(await socketsOf(page)).toEqual([{ path: '/websocket', state: 1 }]);
    expect(problems).toEqual([]);
  });

  it('moves the bell when a notification is written for the user', async () => {
    expect(await bell().textContent()).not.toMatch(/unread/);
    await api(server, 'POST', '/notifications', { recipient: admin, subject: 'Proofs are back', message: 'Page 3 needs a look.' });
    await expect.poll(() => bell().textContent(), { timeout: LIVE_MS }).toMatch(/, 1 unread/);
    // Someone else's notification leaves the count alone.
    const other = await api(server, 'POST', '/users', { email: 'other-live@example.com', password: 'other-live-pass-1', status: 'active' });
    await api(server, 'POST', '/notifications', { recipient: other, subject: 'Not for the admin' });
    await api(server, 'POST', '/notifications', { recipient: admin, subject: 'Second proofs' });
    await expect.poll(() => bell().textContent(), { timeout: LIVE_MS }).toMatch(/, 2 unread/);
    await checkScreen(page, 'realtime-bell');
    expect(problems).toEqual([]);
  });

  it('moves the review badge when a draft is submitted for the user\'s review', async () => {
    expect(await review().textContent()).not.toMatch(/waiting/);
    const item = await api(server, 'POST', '/items/articles', { title: 'Harbour lights' });
    const version = await api(server, 'POST', '/versions', { key: 'live-1', name: 'Evening copy', collection: 'articles', item: String(item), delta: { title: 'Harbour lights at dusk' } });
    await api(server, 'POST', `/versions/${version}/submit`);
    await expect.poll(() => review().textContent(), { timeout: LIVE_MS }).toMatch(/1 task waiting/);
    await checkScreen(page, 'realtime-review-badge');
    expect(await socketsOf(page)).toEqual([{ path: '/websocket', state: 1 }]);
    expect(problems).toEqual([]);
  });
});

describe.skipIf(!JOURNEYS)('Studio: without realtime', () => {
  let server: StudioServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startStudioServer({ realtime: true, env: { WEBSOCKETS_ENABLED: 'false' } }), launchBrowser()]);
    await seedStories(server);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('works as before: no error shown, the list and the bell read through REST, and the socket is not retried in a loop', async () => {
    const { page, problems } = await signedInPage(browser, server);
    await instrumentSockets(page);
    const admin = (await api(server, 'GET', '/users/me')).id;
    await api(server, 'POST', '/notifications', { recipient: admin, subject: 'Polled, not pushed' });
    await page.goto(`${server.url}/admin/content/stories`);
    await expect.poll(() => page.getByRole('table', { name: 'Stories' }).getByRole('row').count(), { timeout: 8_000 }).toBe(6);
    await expect.poll(() => page.getByRole('button', { name: /^Notifications/ }).textContent()).toMatch(/, 1 unread/);
    // The socket was tried and refused (503), and is not tried again and again: two quick attempts, then one every
    // few minutes.
    const refused = [{ path: '/websocket', state: 3 }, { path: '/websocket', state: 3 }];
    await expect.poll(() => socketsOf(page), { timeout: 8_000 }).toEqual(refused);
    await page.waitForTimeout(5_000);
    expect(await socketsOf(page)).toEqual(refused);
    // Nothing tells the user about it.
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.locator('.notice, .error-notice').count()).toBe(0);
    // A write is there on the next read, as before realtime.
    await api(server, 'POST', '/items/stories', { title: 'Read on reload' });
    await page.reload();
    await page.getByRole('row').filter({ hasText: 'Read on reload' }).waitFor();
    await checkScreen(page, 'realtime-off-list');
    expect(problems).toEqual([]);
  }, 60_000);
});
