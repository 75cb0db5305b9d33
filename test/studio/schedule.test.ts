/** Scheduled publishing in a real browser, with the scheduler running in the server's process (every 250 ms): on an
 * item, a draft's publishing scheduled a few seconds ahead happens while the editor is open (the form shows the new
 * values); unpublishing is scheduled, rescheduled and cancelled, then runs; a time in the past and one the server
 * refuses show their errors on the time field. The calendar (/admin/review/schedule) shows upcoming and past
 * schedules by day with the reason of a failed run, filters by status and collection, pages on the server and
 * cancels. Every screen passes axe-core and is photographed in both themes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startPublishSchedules } from '../../core/publishing/runner.ts';
import { api, checkScreen, JOURNEYS, launchBrowser, startStudioServer, type StudioServer, signedInPage } from './harness.ts';

const pk = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true, readonly: true } };
const STATUS = {
  field: 'status', type: 'string', schema: { default_value: 'draft' },
  meta: { interface: 'select-dropdown', width: 'half', sort: 2, options: { choices: [{ text: 'Draft', value: 'draft' }, { text: 'Published', value: 'published' }] } },
};

describe.skipIf(!JOURNEYS)('Studio: scheduled publishing', () => {
  let server: StudioServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let stopScheduler: () => Promise<void>;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    server = await startStudioServer();
    browser = await launchBrowser();
    await api(server, 'POST', '/collections', {
      collection: 'stories', meta: { display_template: '{{title}}' }, schema: {},
      fields: [pk, { field: 'title', type: 'string', meta: { interface: 'input', width: 'half', sort: 1 } }, STATUS,
        { field: 'body', type: 'text', meta: { interface: 'input-multiline', width: 'full', sort: 3 } }],
    });
    for (const [key, title] of [['harbour', 'Harbour lights'], ['tides', 'Tide tables'], ['gulls', 'Gulls of the pier']] as const) {
      ids[key] = await api(server, 'POST', '/items/stories', { title, status: 'published', body: 'Once upon a shore.' });
    }
    stopScheduler = startPublishSchedules(server.t.services, 250);
    ({ page, problems } = await signedInPage(browser, server));
  }, 120_000);

  afterAll(async () => {
    await stopScheduler?.();
    await browser?.close();
    await server?.close();
  });

  async function openItem(id: number): Promise<void> {
    await page.goto(`${server.url}/admin/content/stories/${id}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
  }

  /** A datetime-local value `ms` from now in the browser's zone (seconds included). */
  const inBrowser = (ms: number) => page.evaluate((offset) => {
    const d = new Date(Date.now() + offset);
    const p = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  }, ms);

  const dialog = () => page.getByRole('dialog', { name: 'Publishing schedule' });

  it('schedules a draft\'s publishing a few seconds ahead and shows it happen on the item', async () => {
    const version = await api(server, 'POST', '/versions', { key: 'dawn', name: 'Dawn rewrite', collection: 'stories', item: String(ids.harbour), delta: { title: 'Harbour lights at dawn' } });
    await openItem(ids.harbour);
    await page.getByRole('button', { name: 'Schedule…' }).click();
    const d = dialog();
    await d.getByText('Nothing is scheduled for this item.').waitFor();
    expect(await d.getByText(/Times are in your time zone, \S+/).count()).toBe(1);
    expect(await d.getByLabel('Draft to publish').inputValue()).toBe(version);
    await checkScreen(page, 'schedule-item-dialog');

    // A time that has passed is refused before anything is sent; one the server refuses shows its words.
    const publishAt = d.getByLabel(/^Publish at/);
    await publishAt.fill(await inBrowser(-60_000));
    await d.getByRole('button', { name: 'Schedule publishing' }).click();
    await d.getByText('This time has passed; choose a later one.').waitFor();
    expect(await publishAt.getAttribute('aria-invalid')).toBe('true');
    await publishAt.fill('2099-01-01T09:00');
    await d.getByRole('button', { name: 'Schedule publishing' }).click();
    await d.getByText(/must be within ten years/).waitFor();
    await checkScreen(page, 'schedule-item-error');

    await publishAt.fill(await inBrowser(4000));
    await d.getByRole('button', { name: 'Schedule publishing' }).click();
    await d.getByRole('status').filter({ hasText: /Publishing of “Dawn rewrite” is scheduled for/ }).waitFor();
    const upcoming = d.getByRole('region', { name: 'Upcoming' });
    await upcoming.getByText('Publish “Dawn rewrite”').waitFor();
    await d.getByRole('button', { name: 'Done' }).click();
    const trigger = page.getByRole('button', { name: /^◷?\s*Publishes / });
    await trigger.waitFor();
    await checkScreen(page, 'schedule-item-upcoming');

    // The scheduler promotes it; the editor reloads the item by itself.
    await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue(), { timeout: 20_000 }).toBe('Harbour lights at dawn');
    await page.getByRole('button', { name: /Schedule…/ }).waitFor();
    const [row] = await api(server, 'GET', `/schedules?filter[version][_eq]=${version}&fields=status,ran_at`);
    expect(row.status).toBe('done');
    expect((await api(server, 'GET', `/versions/${version}?fields=status`)).status).toBe('approved');
    await page.getByRole('button', { name: /Schedule…/ }).click();
    const recent = dialog().getByRole('region', { name: 'Recent' });
    await recent.getByText('Publish “Dawn rewrite”').waitFor();
    expect(await recent.getByText('Done', { exact: true }).count()).toBe(1);
    await dialog().getByRole('button', { name: 'Done' }).click();
    expect(problems).toEqual([]);
  });

  it('schedules unpublishing, reschedules it, cancels it, and lets one run', async () => {
    await openItem(ids.tides);
    await page.getByRole('button', { name: 'Schedule…' }).click();
    const d = dialog();
    await d.getByText('Sets status to “draft”.', { exact: false }).waitFor();
    await d.getByRole('button', { name: 'Schedule unpublishing' }).click();
    const upcoming = d.getByRole('region', { name: 'Upcoming' });
    const row = upcoming.getByRole('listitem').filter({ hasText: 'Unpublish' });
    await row.waitFor();
    const before = await row.getByRole('time').getAttribute('datetime');

    await row.getByRole('button', { name: 'Reschedule' }).click();
    const newTime = row.getByLabel(/^New time to unpublish/);
    // The time field takes the button's place and the focus; keyboard users land where the work is.
    await expect.poll(() => newTime.evaluate((el) => el === document.activeElement)).toBe(true);
    await newTime.fill(await inBrowser(2 * 24 * 3600_000));
    await checkScreen(page, 'schedule-item-reschedule');
    await row.getByRole('button', { name: 'Save time' }).click();
    await expect.poll(() => row.getByRole('time').getAttribute('datetime')).not.toBe(before);
    await expect.poll(() => row.getByRole('button', { name: 'Reschedule' }).evaluate((el) => el === document.activeElement)).toBe(true);
    const moved = Date.parse((await row.getByRole('time').getAttribute('datetime'))!);
    expect(Math.abs(moved - (Date.now() + 2 * 24 * 3600_000))).toBeLessThan(60_000);

    await row.getByRole('button', { name: 'Cancel schedule' }).click();
    await d.getByText('Nothing is scheduled for this item.').waitFor();
    const recent = d.getByRole('region', { name: 'Recent' });
    await recent.getByText('Cancelled', { exact: true }).waitFor();

    // Now one that runs while the editor is open: the status field follows.
    const chosen = () => page.getByLabel('Status', { exact: true }).evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent);
    expect(await chosen()).toBe('Published');
    await d.getByLabel(/^Unpublish at/).fill(await inBrowser(3000));
    await d.getByRole('button', { name: 'Schedule unpublishing' }).click();
    await upcoming.getByText('Unpublish').waitFor();
    await d.getByRole('button', { name: 'Done' }).click();
    await expect.poll(chosen, { timeout: 20_000 }).toBe('Draft');
    expect((await api(server, 'GET', `/items/stories/${ids.tides}?fields=status`)).status).toBe('draft');
    expect(problems).toEqual([]);
  });

  it('the calendar: upcoming and past by day, a failed run\'s reason, filters, cancel, server paging', async () => {
    // A run that fails: its draft is deleted before its time.
    const doomed = await api(server, 'POST', '/versions', { key: 'doomed', name: 'Doomed draft', collection: 'stories', item: String(ids.gulls), delta: { title: 'Never' } });
    const failing = await api(server, 'POST', '/schedules', { action: 'publish', version: doomed, scheduled_at: new Date(Date.now() + 1500).toISOString() });
    await api(server, 'DELETE', `/versions/${doomed}`);
    const tomorrow = await api(server, 'POST', '/versions', { key: 'tomorrow', name: 'Tomorrow’s take', collection: 'stories', item: String(ids.gulls), delta: { title: 'Gulls, tomorrow' } });
    await api(server, 'POST', '/schedules', { action: 'publish', version: tomorrow, scheduled_at: new Date(Date.now() + 26 * 3600_000).toISOString() });
    await api(server, 'POST', '/schedules', { action: 'unpublish', collection: 'stories', item: String(ids.gulls), scheduled_at: new Date(Date.now() + 3 * 24 * 3600_000).toISOString() });
    await expect.poll(async () => (await api(server, 'GET', `/schedules/${failing}?fields=status`)).status, { timeout: 15_000 }).toBe('failed');

    await page.goto(`${server.url}/admin/review/schedule`);
    const upcoming = page.getByRole('region', { name: /^Upcoming/ });
    const past = page.getByRole('region', { name: /^Past/ });
    await upcoming.getByRole('link', { name: 'Gulls of the pier' }).first().waitFor();
    expect(await upcoming.getByText('Publish “Tomorrow’s take”').count()).toBe(1);
    expect(await upcoming.getByRole('rowheader', { name: /^Tomorrow, / }).or(upcoming.getByRole('columnheader', { name: /^Tomorrow, / })).count()).toBe(1);
    await past.getByText('Why it failed: The version was deleted before its time came.').waitFor();
    expect(await past.getByRole('link', { name: 'Harbour lights at dawn' }).count()).toBe(1);
    expect(await past.getByText('Publish “Dawn rewrite”').count()).toBe(1);
    expect(await page.getByText(/^Times in \S+/).count()).toBe(1);
    await checkScreen(page, 'schedule-calendar');

    // Filter: failed only; then a collection with nothing in it.
    await page.getByLabel('Status').selectOption({ label: 'Failed' });
    await page.waitForURL(/status=failed/);
    const failed = page.getByRole('region', { name: /^Failed/ });
    await expect.poll(() => failed.getByRole('row').filter({ hasText: 'Publish a deleted draft' }).count()).toBe(1);
    expect(await page.getByRole('region', { name: /^Upcoming/ }).count()).toBe(0);
    await expect.poll(() => failed.getByText('Done', { exact: true }).count()).toBe(0);
    await page.getByLabel('Status').selectOption({ label: 'All statuses' });
    await page.getByLabel('Collection').selectOption({ label: 'Stories' });
    await page.waitForURL(/collection=stories/);
    await upcoming.getByText('Publish “Tomorrow’s take”').waitFor();

    // Cancel from the calendar.
    await upcoming.getByRole('button', { name: /^Cancel: Publish “Tomorrow’s take”/ }).click();
    const confirm = page.getByRole('dialog', { name: 'Cancel this schedule?' });
    await confirm.getByText(/will not happen at/).waitFor();
    expect(await confirm.getByRole('button', { name: 'Keep it' }).count()).toBe(1);
    await checkScreen(page, 'schedule-calendar-cancel');
    await confirm.getByRole('button', { name: 'Cancel schedule' }).click();
    await expect.poll(() => upcoming.getByText('Publish “Tomorrow’s take”').count()).toBe(0);
    await expect.poll(() => past.getByRole('row').filter({ hasText: 'Publish “Tomorrow’s take”' }).filter({ hasText: 'Cancelled' }).count()).toBe(1);

    // Server paging: 27 more upcoming schedules page 25 at a time.
    for (let i = 0; i < 27; i++) {
      await api(server, 'POST', '/schedules', { action: 'unpublish', collection: 'stories', item: String(ids.harbour), scheduled_at: new Date(Date.now() + (5 + i) * 24 * 3600_000).toISOString() });
    }
    await page.reload();
    const pager = upcoming.getByRole('navigation', { name: 'Upcoming pages' });
    await pager.getByText('1–25 of 28').waitFor();
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('26–28 of 28').waitFor();
    await expect.poll(() => upcoming.getByRole('row').filter({ has: page.getByRole('link') }).count()).toBe(3);
    expect(problems).toEqual([]);
  });
});
