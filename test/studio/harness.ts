/** Browser journeys through the Studio: a real server (the standalone app over a clone of the test database, on a
 * free port), Debian's Chromium driven by playwright-core, axe-core on every screen, and a screenshot of every
 * screen in light and dark (test/.artifacts/studio/). Without Chromium the journeys are skipped locally and fail in
 * CI (.ci/run installs it). The Studio is built by the test run's global setup (scripts/build-studio.mjs). */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { attachRealtime, type RealtimeServer } from '../../container/realtime/server.ts';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import { freePort } from '../helpers/free-port.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/template.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM && process.env.CI) throw new Error(`Chromium is missing at ${CHROMIUM}: the Studio's browser journeys need it in CI (apt-get install chromium).`);
/** Whether the browser journeys run: Chromium is there, and the run did not leave them out (STUDIO_JOURNEYS=skip:
 * .ci/run's plain-Postgres pass, as the journeys already run on the embedded engine and on Postgres with Redis). */
export const JOURNEYS = HAS_CHROMIUM && process.env.STUDIO_JOURNEYS !== 'skip';

export const ARTIFACTS = join(import.meta.dirname, '..', '.artifacts', 'studio');
export { ADMIN_EMAIL, ADMIN_PASSWORD };

export interface StudioServer {
  url: string;
  t: TestApp;
  close(): Promise<void>;
}

/** The standalone app on a free port, with PUBLIC_URL pointing at it (mail links open this Studio). With
 * `realtime`, /websocket is attached to the HTTP server as the standalone process and the container do
 * (container/main.ts); without it the server has no WebSocket endpoint, as the functions deployment. */
export async function startStudioServer(opts: TestAppOptions & { realtime?: boolean } = {}): Promise<StudioServer> {
  const { realtime, ...appOpts } = opts;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ ...appOpts, env: { PUBLIC_URL: url, ...appOpts.env } });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: t.app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const sockets: RealtimeServer | null = realtime ? attachRealtime(server as Server, t.services) : null;
  return {
    url,
    t,
    async close() {
      if (sockets) {
        await sockets.close();
        (server as Server).closeAllConnections();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** A fresh browser context (its own cookies) at a desktop size, failing the test on any uncaught page error or
 * Content-Security-Policy violation. */
export async function newPage(browser: Browser, opts: { colorScheme?: 'light' | 'dark' } = {}): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, colorScheme: opts.colorScheme ?? 'light' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(`CSP: ${msg.text()}`);
  });
  return { context, page, problems };
}

export async function signIn(page: Page, base: string, email = ADMIN_EMAIL, password = ADMIN_PASSWORD): Promise<void> {
  await page.goto(`${base}/admin/login`);
  await fillSignIn(page, email, password);
}

/** Fills and sends the sign-in form on the page as it is (keeps a ?next= the page was sent with). */
export async function fillSignIn(page: Page, email = ADMIN_EMAIL, password = ADMIN_PASSWORD): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const axeSource: string = (() => {
  const require = createRequire(import.meta.url);
  return require('node:fs').readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
})();

/** axe-core over the page as it is now: no serious or critical violation. Evaluated through the DevTools
 * protocol, which the page's CSP does not govern (a <script> tag would be refused, as it should be). */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  const violations = await page.evaluate(async (source) => {
    // eslint-disable-next-line no-eval
    (0, eval)(source);
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  }, axeSource);
  expect(violations, `accessibility of ${screen}`).toEqual([]);
}

/** A screenshot of the screen in the page's current theme, then in the other one. */
export async function shoot(page: Page, screen: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const theme = await page.evaluate(() => document.documentElement.dataset.theme ?? 'light');
  await page.screenshot({ path: join(ARTIFACTS, `${screen}-${theme}.png`) });
  const other = theme === 'dark' ? 'light' : 'dark';
  await page.evaluate((t) => { document.documentElement.dataset.theme = t; }, other);
  await page.screenshot({ path: join(ARTIFACTS, `${screen}-${other}.png`) });
  await page.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
}

/** Accessible and photographed: what every screen of a journey goes through. */
export async function checkScreen(page: Page, screen: string): Promise<void> {
  await expectAccessible(page, screen);
  await shoot(page, screen);
}

/** An API call as the test's admin (or the token given), expecting success; answers the body's `data`. */
export async function api(server: StudioServer, method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const res = await server.t.req(method, path, body, token === undefined ? {} : { token });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body?.data;
}

/** Main-thread work on the page, from the Performance API: long tasks (over 50 ms of uninterrupted script, layout or
 * paint) and the Event Timing entries of interactions (the handlers' processing time, and the whole time from input
 * to the next paint). Installed before any script of the page runs, on every document the page loads. */
export async function watchMainThread(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __mainThread: { longTasks: number[]; events: { name: string; processing: number; duration: number }[] } };
    w.__mainThread = { longTasks: [], events: [] };
    try {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__mainThread.longTasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: true });
      new PerformanceObserver((list) => {
        for (const e of list.getEntries() as PerformanceEventTiming[]) {
          w.__mainThread.events.push({ name: e.name, processing: e.processingEnd - e.processingStart, duration: e.duration });
        }
      }).observe({ type: 'event', buffered: true, durationThreshold: 16 } as PerformanceObserverInit);
    } catch {
      // An engine without these entry types: the report stays empty and the caller's expectation says so.
    }
  });
}

/** What watchMainThread saw since the last reset: the longest long task and the longest interaction (ms). */
export async function mainThreadReport(page: Page, reset = true): Promise<{ longestTask: number; longestProcessing: number; longestInteraction: number; tasks: number; events: number }> {
  return page.evaluate((doReset) => {
    const w = window as unknown as { __mainThread?: { longTasks: number[]; events: { processing: number; duration: number }[] } };
    const m = w.__mainThread ?? { longTasks: [], events: [] };
    const out = {
      longestTask: Math.max(0, ...m.longTasks),
      longestProcessing: Math.max(0, ...m.events.map((e) => e.processing)),
      longestInteraction: Math.max(0, ...m.events.map((e) => e.duration)),
      tasks: m.longTasks.length,
      events: m.events.length,
    };
    if (doReset) { m.longTasks.length = 0; m.events.length = 0; }
    return out;
  }, reset);
}

/** A new page (newPage) signed in as `email` (the admin by default) and on the content module: what most journeys
 * start from. Controls are waited for up to `timeout` ms. */
export async function signedInPage(browser: Browser, server: StudioServer, opts: { timeout?: number; email?: string; password?: string } = {}): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const opened = await newPage(browser);
  opened.page.setDefaultTimeout(opts.timeout ?? 8_000);
  await signIn(opened.page, server.url, opts.email, opts.password);
  await opened.page.waitForURL(/\/admin\/content/);
  return opened;
}
