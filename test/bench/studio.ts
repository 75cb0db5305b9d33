/** `npm run bench:studio`: the Studio's speed budgets, measured in a real browser against the real server.
 *
 * 1. builds the Studio when stale (scripts/build-studio.mjs) and starts the server as `npm start` runs it
 *    (scripts/start.mjs, compiled dist/) on a free port: on the embedded database in a fresh DATA_DIR, or, when
 *    BENCH_DATABASE_URL (else DATABASE_URL) is set, on a fresh database `svc_bench_studio` of that Postgres server
 *    (dropped at the end);
 * 2. seeds through the API: `authors` (BENCH_STUDIO_AUTHORS, 1,000) and `articles` (BENCH_STUDIO_ROWS, 10,000) with an
 *    M2O `articles.author -> authors` shown by the author's name;
 * 3. launches Debian's Chromium (CHROMIUM_PATH, default /usr/bin/chromium) through playwright-core and, BENCH_STUDIO_REPS
 *    times (5), each time in new browser contexts (empty HTTP cache):
 *    - opens /admin/login, signs in, then moves inside the app: the nav link to Articles, a switch to Authors and back,
 *      a row's editor, the file library, the profile, the content overview;
 *    - in a second context with the first one's cookies and local storage (a reload of the signed-in Studio, its
 *      HTTP cache empty at first): loads /admin/content/articles, /admin/content, an item, /admin/files and
 *      /admin/profile, then signs out (the sign-in page after an in-app navigation);
 * 4. measures, all in the page (resource timing, requestAnimationFrame; never Node's clock):
 *    (1) the JavaScript each route loads: the precompressed .gz size of every script requested (what a gzip-only
 *        client receives) and the bytes on the wire (encodedBodySize: Chromium accepts brotli);
 *    (2) from the end of the GET /items/<collection> response (its responseEnd) to the 25 rows in the DOM (a
 *        MutationObserver) and painted (the task after the next requestAnimationFrame);
 *    (3) a collection switch: from the click on the other collection's nav link (the click event's timeStamp) to its
 *        rows painted;
 *    (4) the request waterfall of each screen: over the API requests of the page's resource timing (fetches to the
 *        server, not the Studio's own files) from the navigation to the screen shown and the network quiet for
 *        800 ms, round(r) = 1 + max(round(q) for q that ended before r started); after a fresh load and after an
 *        in-app navigation. PATCH /users/me/track/page (the last page, written 1.5 s after a page change, not
 *        waited on) is left out and named;
 *    (5) the API alone: the list's own GET /items/articles request (as the Studio sent it) from Node with a bearer
 *        token, BENCH_STUDIO_API_N (50) times after 5 warm-ups.
 * 5. prints a markdown table and writes test/bench/studio-results.md.
 *
 * The machine is shared: the figures move with its load (reported). Run: `npm run bench:studio`; BENCH_STUDIO_DEBUG=1
 * also logs each screen's requests with their times (start/request sent/first byte-end) and the files a reload loads. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { ensureStudio } from '../../scripts/build-studio.mjs';
import { freePort } from '../helpers/free-port.ts';
import { logTail, startServer, type ServerProcess } from './processes.ts';
import { fmt, query, withDatabase } from './shared.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const assetsDir = join(root, 'studio', 'dist', 'assets');

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

const REPS = envInt('BENCH_STUDIO_REPS', 5);
const API_N = envInt('BENCH_STUDIO_API_N', 50);
const ROWS = envInt('BENCH_STUDIO_ROWS', 10_000);
const AUTHORS = envInt('BENCH_STUDIO_AUTHORS', 1_000);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || null;
const DB_NAME = 'svc_bench_studio';
const ADMIN_EMAIL = 'studio-bench@example.com';
const ADMIN_PASSWORD = `bench-${randomBytes(9).toString('hex')}`;
const QUIET_MS = 800;

const BUDGET = { jsKb: 300, rowsPaintMs: 150, switchMs: 300, rounds: 2 };

const log = (message: string) => console.log(`[studio-bench] ${message}`);

// ---------------------------------------------------------------------------------------------------------------
// The page's side: installed in every document before the Studio's scripts run.

interface RowsEvent { collection: string; count: number; dom: number; painted: number | null }
interface BenchWindow { __bench: { rows: RowsEvent[]; click: number | null; sig: string } }

/** Resource timing kept whole; the last click's time; every time a list shows 25+ rows of a collection: when they
 * entered the DOM and when the frame that shows them had been painted. */
function pageProbe(): void {
  performance.setResourceTimingBufferSize(100_000);
  const b: BenchWindow['__bench'] = { rows: [], click: null, sig: '' };
  (window as unknown as BenchWindow).__bench = b;
  addEventListener('click', (e) => { b.click = e.timeStamp; }, true);
  const check = (): void => {
    const rows = document.querySelectorAll('tbody tr.list-row');
    const href = rows[0]?.querySelector('a')?.getAttribute('href') ?? '';
    const sig = rows.length >= 25 ? `${href}|${rows.length}` : '';
    if (sig === b.sig) return;
    b.sig = sig;
    if (!sig) return;
    const event: RowsEvent = { collection: href.split('/')[3] ?? '', count: rows.length, dom: performance.now(), painted: null };
    b.rows.push(event);
    // rAF runs just before the frame is drawn; the task posted from it runs once that frame is painted.
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { event.painted = performance.now(); };
      channel.port2.postMessage(null);
    });
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
}

interface Entry { path: string; start: number; end: number; duration: number; encoded: number; initiator: string; requestStart: number; responseStart: number }

async function entries(page: Page): Promise<Entry[]> {
  return page.evaluate(() => (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
    .filter((e) => e.name.startsWith(location.origin))
    .map((e) => {
      const url = new URL(e.name);
      return {
        path: url.pathname + url.search, start: e.startTime, end: e.responseEnd, duration: e.duration, encoded: e.encodedBodySize, initiator: e.initiatorType,
        requestStart: e.requestStart, responseStart: e.responseStart,
      };
    }));
}

const isApi = (e: Entry): boolean => !e.path.startsWith('/admin') && (e.initiator === 'fetch' || e.initiator === 'xmlhttprequest');
const NOT_WAITED_ON = /^\/users\/me\/track\/page/;

// ---------------------------------------------------------------------------------------------------------------
// Node's side: waiting for the network to settle (not a measurement), reading what the page recorded.

function trackNetwork(page: Page): (quietMs?: number) => Promise<void> {
  const inflight = new Set<Request>();
  let last = Date.now();
  page.on('request', (r) => { inflight.add(r); last = Date.now(); });
  const done = (r: Request) => { inflight.delete(r); last = Date.now(); };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return async (quietMs = QUIET_MS) => {
    const deadline = Date.now() + 30_000;
    while (inflight.size > 0 || Date.now() - last < quietMs) {
      if (Date.now() > deadline) throw new Error(`the network did not settle: ${[...inflight].map((r) => r.url()).join(', ')}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
}

interface Waterfall { depth: number; chain: string; excluded: string[]; timeline?: string }

/** round(r) = 1 + max(round(q) for q that ended before r started); the chain names each round's requests. */
export function waterfall(list: Entry[]): Waterfall {
  const api = list.filter(isApi);
  const excluded = api.filter((e) => NOT_WAITED_ON.test(e.path)).map((e) => e.path.split('?')[0]);
  const sorted = api.filter((e) => !NOT_WAITED_ON.test(e.path)).sort((a, b) => a.start - b.start);
  const round = new Map<Entry, number>();
  for (const e of sorted) {
    let r = 1;
    for (const [q, qr] of round) if (q.end <= e.start) r = Math.max(r, qr + 1);
    round.set(e, r);
  }
  const depth = Math.max(0, ...round.values());
  const byRound: string[][] = Array.from({ length: depth }, () => []);
  for (const [e, r] of round) {
    const name = e.path.split('?')[0].replace(/^\//, '');
    if (!byRound[r - 1].includes(name)) byRound[r - 1].push(name);
  }
  const timeline = process.env.BENCH_STUDIO_DEBUG ? sorted.map((e) => `${e.path.split('?')[0]} ${e.start.toFixed(0)}/${e.requestStart.toFixed(0)}/${e.responseStart.toFixed(0)}-${e.end.toFixed(0)}`).join('; ') : undefined;
  return { depth, chain: byRound.map((names) => names.join(', ')).join(' → ') || '(none)', excluded, timeline };
}

async function since(page: Page): Promise<number> {
  return page.evaluate(() => performance.now());
}

async function rowsEvent(page: Page, collection: string, after: number): Promise<RowsEvent> {
  const handle = await page.waitForFunction(([c, t]) => {
    const e = (window as unknown as BenchWindow).__bench.rows.find((r) => r.collection === c && r.dom >= t && r.painted !== null);
    return e ?? null;
  }, [collection, after] as const, { timeout: 30_000, polling: 20 });
  return (await handle.jsonValue()) as RowsEvent;
}

interface ListTiming { rowsPaint: number | null; rowsDom: number | null; itemsRequest: Entry | null; painted: number; click: number | null }

/** The list of `collection` shown after `after`: its items response's end to its rows painted (null when the rows
 * came from the query cache, without a request). */
async function listTiming(page: Page, collection: string, after: number): Promise<ListTiming> {
  const event = await rowsEvent(page, collection, after);
  const list = await entries(page);
  const items = list.filter((e) => isApi(e) && e.path.startsWith(`/items/${collection}?`) && e.start >= after && e.end <= event.dom)
    .sort((a, b) => a.end - b.end).pop() ?? null;
  const click = await page.evaluate(() => (window as unknown as BenchWindow).__bench.click);
  return {
    rowsPaint: items ? event.painted! - items.end : null, rowsDom: items ? event.dom - items.end : null, itemsRequest: items, painted: event.painted!, click,
  };
}

function required<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`${what}: the list showed its rows without a GET /items request`);
  return value;
}

function scriptsOf(list: Entry[]): { files: string[]; gz: number; wire: number } {
  const scripts = list.filter((e) => e.path.startsWith('/admin/assets/') && e.path.split('?')[0].endsWith('.js'));
  const files = [...new Set(scripts.map((e) => e.path.split('?')[0].slice('/admin/assets/'.length)))];
  let gz = 0;
  for (const f of files) {
    const path = join(assetsDir, `${f}.gz`);
    if (!existsSync(path)) throw new Error(`${f} was loaded but studio/dist/assets has no ${f}.gz`);
    gz += statSync(path).size;
  }
  const wire = scripts.reduce((sum, e) => sum + e.encoded, 0);
  return { files, gz, wire };
}

// ---------------------------------------------------------------------------------------------------------------
// Results

type Key = string;
const samples = new Map<Key, number[]>();
const chains = new Map<Key, Set<string>>();
const notes = new Set<string>();
function record(key: Key, value: number): void {
  if (!samples.has(key)) samples.set(key, []);
  samples.get(key)!.push(value);
}
function recordWaterfall(key: Key, w: Waterfall): void {
  if (process.env.BENCH_STUDIO_DEBUG) log(`${key}: ${w.depth}: ${w.chain}${w.timeline ? `\n    ${w.timeline}` : ''}`);
  record(key, w.depth);
  if (!chains.has(key)) chains.set(key, new Set());
  chains.get(key)!.add(`${w.depth}: ${w.chain}`);
  for (const x of w.excluded) notes.add(`${key}: ${x} left out (not waited on)`);
}
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// ---------------------------------------------------------------------------------------------------------------

async function api(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 400)}`);
  return text ? JSON.parse(text) : null;
}

async function seed(base: string, token: string): Promise<void> {
  const pk = { field: 'id', type: 'integer', meta: { hidden: true, readonly: true }, schema: { is_primary_key: true, has_auto_increment: true } };
  await api(base, token, 'POST', '/collections', {
    collection: 'authors', schema: {}, meta: { sort: 2, icon: 'person', display_template: '{{name}}' },
    fields: [pk, { field: 'name', type: 'string' }, { field: 'email', type: 'string' }],
  });
  await api(base, token, 'POST', '/collections', {
    collection: 'articles', schema: {}, meta: { sort: 1, icon: 'article' },
    fields: [pk, { field: 'title', type: 'string' }, { field: 'status', type: 'string' }, { field: 'views', type: 'integer' },
      { field: 'published', type: 'date' }, { field: 'author', type: 'integer', meta: { interface: 'select-dropdown-m2o', special: ['m2o'] } }],
  });
  await api(base, token, 'POST', '/relations', { collection: 'articles', field: 'author', related_collection: 'authors', schema: {} });
  const batch = 1000;
  for (let i = 0; i < AUTHORS; i += batch) {
    const n = Math.min(batch, AUTHORS - i);
    await api(base, token, 'POST', '/items/authors', Array.from({ length: n }, (_, k) => ({ name: `Author ${String(i + k + 1).padStart(4, '0')}`, email: `author${i + k + 1}@example.com` })));
  }
  const statuses = ['draft', 'review', 'published'];
  for (let i = 0; i < ROWS; i += batch) {
    const n = Math.min(batch, ROWS - i);
    await api(base, token, 'POST', '/items/articles', Array.from({ length: n }, (_, k) => {
      const g = i + k + 1;
      const day = new Date(Date.UTC(2024, 0, 1) + (g % 365) * 86_400_000).toISOString().slice(0, 10);
      return { title: `Article ${String(g).padStart(5, '0')}`, status: statuses[g % 3], views: (g * 37) % 1000, published: day, author: (g % AUTHORS) + 1 };
    }));
  }
}

async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

async function newTab(browser: Browser, storageState?: Awaited<ReturnType<BrowserContext['storageState']>>) {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, storageState });
  // tsx (esbuild) names inner functions through a __name helper that the page does not have.
  await context.addInitScript('globalThis.__name ??= (f) => f;');
  await context.addInitScript(pageProbe);
  if (process.env.BENCH_STUDIO_DEBUG === '2') {
    await context.addInitScript(() => {
      const calls: string[] = [];
      (window as unknown as { __calls: string[] }).__calls = calls;
      const original = window.fetch.bind(window);
      window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
        calls.push(`${String(input instanceof Request ? input.url : input).split('?')[0].replace(location.origin, '')} ${performance.now().toFixed(1)}`);
        return original(input, init);
      };
    });
  }
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const quiet = trackNetwork(page);
  return { context, page, quiet, errors };
}

/** An in-app navigation: clears the resource timing, acts, waits for the screen and the network to settle. */
async function inApp(page: Page, quiet: () => Promise<void>, act: () => Promise<void>, ready: (after: number) => Promise<unknown>): Promise<{ after: number; list: Entry[] }> {
  await quiet();
  await page.evaluate(() => performance.clearResourceTimings());
  const after = await since(page);
  await act();
  await ready(after);
  await quiet();
  return { after, list: await entries(page) };
}

/** A fresh document at `url`: waits for the screen and the network to settle. */
async function load(page: Page, quiet: () => Promise<void>, url: string, ready: () => Promise<unknown>): Promise<Entry[]> {
  await page.goto(url);
  await ready();
  await quiet();
  const list = await entries(page);
  if (process.env.BENCH_STUDIO_DEBUG) {
    log(`${url}: ${list.filter((e) => !isApi(e)).map((e) => `${e.path.split('?')[0].replace('/admin/assets/', '')} ${e.start.toFixed(0)}-${e.end.toFixed(0)}`).join('; ')}`);
    const calls = await page.evaluate(() => (window as unknown as { __calls?: string[] }).__calls ?? []);
    if (calls.length) log(`fetch() called: ${calls.join('; ')}`);
  }
  return list;
}

async function rep(browser: Browser, base: string, firstId: number): Promise<string> {
  // --- Signed out, then in-app navigations after signing in.
  const a = await newTab(browser);
  const { page } = a;
  const modules = () => page.getByRole('navigation', { name: 'Modules' });
  const nav = () => page.getByRole('navigation', { name: 'Collections' });
  const signInButton = () => page.getByRole('button', { name: 'Sign in' }).waitFor();

  let list = await load(page, a.quiet, `${base}/admin/login?next=%2Fcontent`, signInButton);
  const loginJs = scriptsOf(list);
  record('js-login-gz', loginJs.gz);
  record('js-login-wire', loginJs.wire);
  notes.add(`scripts of /admin/login: ${loginJs.files.join(', ')}`);
  recordWaterfall('wf:sign-in:fresh', waterfall(list));

  let step = await inApp(page, a.quiet, async () => {
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, () => page.getByRole('list', { name: 'All collections' }).waitFor());
  recordWaterfall('wf:overview:after-sign-in', waterfall(step.list));

  step = await inApp(page, a.quiet, () => nav().getByRole('link', { name: 'Articles', exact: true }).click(), (after) => rowsEvent(page, 'articles', after));
  recordWaterfall('wf:list:in-app', waterfall(step.list));
  let t = await listTiming(page, 'articles', step.after);
  record('paint:in-app', required(t.rowsPaint, 'Articles from the nav'));
  record('dom', t.rowsDom!);
  record('items-in-browser', t.itemsRequest!.duration);
  const itemsPath = t.itemsRequest!.path;

  for (const [from, to, label] of [['articles', 'authors', 'Authors'], ['authors', 'articles', 'Articles']] as const) {
    step = await inApp(page, a.quiet, () => nav().getByRole('link', { name: label, exact: true }).click(), (after) => rowsEvent(page, to, after));
    t = await listTiming(page, to, step.after);
    if (t.click === null || t.click < step.after) throw new Error('the click was not seen');
    record(`switch:${from}->${to}`, t.painted - t.click);
    // Back to Articles: its first page is still fresh in the query cache (30 s), no request.
    if (t.rowsPaint !== null) {
      record('paint:switch', t.rowsPaint);
      record('dom', t.rowsDom!);
    } else notes.add(`switch ${from} → ${to}: rows from the query cache (no request)`);
    recordWaterfall('wf:list:switch', waterfall(step.list));
  }

  step = await inApp(page, a.quiet, () => page.locator('tbody tr.list-row').first().getByRole('link').click(), () => page.locator('#item-title').waitFor());
  recordWaterfall('wf:item:in-app', waterfall(step.list));
  step = await inApp(page, a.quiet, () => modules().getByRole('link', { name: 'File library' }).click(), () => page.getByRole('heading', { level: 1, name: 'All files' }).waitFor());
  recordWaterfall('wf:files:in-app', waterfall(step.list));
  step = await inApp(page, a.quiet, () => modules().getByRole('link', { name: 'Your profile' }).click(), () => page.getByRole('heading', { level: 1, name: 'Your profile' }).waitFor());
  recordWaterfall('wf:profile:in-app', waterfall(step.list));
  step = await inApp(page, a.quiet, () => modules().getByRole('link', { name: 'Content' }).click(), () => page.getByRole('list', { name: 'All collections' }).waitFor());
  recordWaterfall('wf:overview:in-app', waterfall(step.list));
  const state = await a.context.storageState();
  if (a.errors.length) throw new Error(`page errors: ${a.errors.join('; ')}`);
  await a.context.close();

  // --- Reloads of the signed-in Studio (first with an empty HTTP cache), then signing out.
  const b = await newTab(browser, state);
  const p = b.page;
  list = await load(p, b.quiet, `${base}/admin/content/articles`, () => rowsEvent(p, 'articles', 0));
  const listJs = scriptsOf(list);
  record('js-list-gz', listJs.gz);
  record('js-list-wire', listJs.wire);
  notes.add(`scripts of /admin/content/articles: ${listJs.files.join(', ')}`);
  recordWaterfall('wf:list:fresh', waterfall(list));
  t = await listTiming(p, 'articles', 0);
  record('paint:fresh', required(t.rowsPaint, 'fresh load of the list'));
  record('dom', t.rowsDom!);
  record('fresh:nav-to-rows', t.painted);

  list = await load(p, b.quiet, `${base}/admin/content`, () => p.getByRole('list', { name: 'All collections' }).waitFor());
  recordWaterfall('wf:overview:fresh', waterfall(list));
  list = await load(p, b.quiet, `${base}/admin/content/articles/${firstId}`, () => p.locator('#item-title').waitFor());
  recordWaterfall('wf:item:fresh', waterfall(list));
  list = await load(p, b.quiet, `${base}/admin/files`, () => p.getByRole('heading', { level: 1, name: 'All files' }).waitFor());
  recordWaterfall('wf:files:fresh', waterfall(list));
  list = await load(p, b.quiet, `${base}/admin/profile`, () => p.getByRole('heading', { level: 1, name: 'Your profile' }).waitFor());
  recordWaterfall('wf:profile:fresh', waterfall(list));
  step = await inApp(p, b.quiet, () => p.getByRole('navigation', { name: 'Modules' }).getByRole('button', { name: 'Sign out' }).click(),
    () => p.getByRole('button', { name: 'Sign in' }).waitFor());
  recordWaterfall('wf:sign-in:in-app', waterfall(step.list));
  if (b.errors.length) throw new Error(`page errors: ${b.errors.join('; ')}`);
  await b.context.close();
  return itemsPath;
}

async function apiAlone(base: string, token: string, path: string): Promise<void> {
  const once = async (): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 5; i++) await once();
  for (let i = 0; i < API_N; i++) record('api-alone', await once());
}

// ---------------------------------------------------------------------------------------------------------------

function row(label: string, key: Key, unit: 'ms' | 'kB' | 'rounds', budget: string, ok?: (v: number) => boolean): string {
  const xs = samples.get(key) ?? [];
  if (xs.length === 0) return `| ${label} | ${budget} | – | – | 0 | |`;
  const scale = unit === 'kB' ? 1 / 1000 : 1;
  const digits = unit === 'kB' ? 1 : unit === 'ms' ? 0 : 0;
  const med = median(xs) * scale;
  const max = Math.max(...xs) * scale;
  const verdict = ok ? (ok(max) ? 'yes' : ok(med) ? 'median only' : '**no**') : '';
  return `| ${label} | ${budget} | ${fmt(med, digits)} | ${fmt(max, digits)} | ${xs.length} | ${verdict} |`;
}

const SCREENS: [string, string][] = [
  ['sign-in page', 'sign-in'], ['content overview', 'overview'], ['list (articles)', 'list'], ['item editor', 'item'],
  ['file library', 'files'], ['profile', 'profile'],
];

function waterfallRows(): string[] {
  /** "2" when every repetition gave 2, else each depth with how often: "2 (4×), 3 (1×)". */
  const cell = (key: Key): string => {
    const xs = samples.get(key);
    if (!xs) return '–';
    const counts = new Map<number, number>();
    for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
    if (counts.size === 1) return String(xs[0]);
    return [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([depth, n]) => `${depth} (${n}×)`).join(', ');
  };
  const out = ['| screen | after a fresh load (reload) | after an in-app navigation | met (≤ 2 in every repetition) |', '|---|---:|---:|---|'];
  for (const [label, id] of SCREENS) {
    const inApp = id === 'overview' ? `${cell('wf:overview:in-app')} (right after signing in: ${cell('wf:overview:after-sign-in')})`
      : id === 'list' ? `${cell('wf:list:in-app')} (a switch between collections: ${cell('wf:list:switch')})`
        : id === 'sign-in' ? `${cell('wf:sign-in:in-app')} (after signing out)` : cell(`wf:${id}:in-app`);
    const all = [...samples.entries()].filter(([k]) => k.startsWith(`wf:${id}:`)).flatMap(([, xs]) => xs);
    const verdict = all.every((x) => x <= BUDGET.rounds) ? 'yes'
      : all.filter((x) => x <= BUDGET.rounds).length * 2 > all.length ? '**no** (most repetitions yes)' : '**no**';
    out.push(`| ${label} | ${cell(`wf:${id}:fresh`)} | ${inApp} | ${verdict} |`);
  }
  return out;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  ensureStudio({ log });
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH).`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-studio-bench-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir, ADMIN_EMAIL, ADMIN_PASSWORD, PUBLIC_URL: base, LOG_LEVEL: 'warn', RATE_LIMITER_ENABLED: 'false',
    DATABASE_URL: '',
  };
  if (PG_ADMIN_URL) {
    await query(PG_ADMIN_URL, `drop database if exists ${DB_NAME} with (force)`);
    await query(PG_ADMIN_URL, `create database ${DB_NAME}`);
    env.DATABASE_URL = withDatabase(PG_ADMIN_URL, DB_NAME);
    env.SECRET = randomBytes(32).toString('hex');
  }
  let server: ServerProcess | null = null;
  let browser: Browser | null = null;
  try {
    log(`starting the server on ${PG_ADMIN_URL ? `Postgres (${DB_NAME})` : 'the embedded database'}...`);
    server = await startServer({ name: 'studio', cwd: root, script: 'container/main.ts', port, env });
    const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }) });
    if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
    const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    log(`seeding ${fmt(AUTHORS)} authors and ${fmt(ROWS)} articles...`);
    const t0 = Date.now();
    await seed(base, token);
    log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const firstId = (await api(base, token, 'GET', '/items/articles?fields=id&sort=id&limit=1')).data[0].id as number;

    browser = await launch();
    let itemsPath = '';
    for (let i = 0; i < REPS; i++) {
      log(`repetition ${i + 1}/${REPS} (1-min load ${loadavg()[0].toFixed(2)})`);
      itemsPath = await rep(browser, base, firstId);
    }
    log(`the API alone: ${API_N} x GET ${itemsPath}`);
    await apiAlone(base, token, itemsPath);
    const chromiumVersion = browser.version();

    const loadAfter = loadavg()[0];
    const kb = (v: number) => v <= BUDGET.jsKb * 1000;
    const lines = [
      '| measure | budget | median | max | n | met (at the max) |',
      '|---|---:|---:|---:|---:|---|',
      row('(1) JavaScript for /admin/login, gzip, kB', 'js-login-gz', 'kB', '≤ 300', kb),
      row('(1) JavaScript for /admin/content/articles, gzip, kB', 'js-list-gz', 'kB', '≤ 300', kb),
      row('(1) the same on the wire (brotli), /admin/login, kB', 'js-login-wire', 'kB', ''),
      row('(1) the same on the wire (brotli), /admin/content/articles, kB', 'js-list-wire', 'kB', ''),
      row('(2) items answer → 25 rows painted, list opened from the nav, ms', 'paint:in-app', 'ms', '≤ 150', (v) => v <= BUDGET.rowsPaintMs),
      row('(2) the same, after a collection switch, ms', 'paint:switch', 'ms', '≤ 150', (v) => v <= BUDGET.rowsPaintMs),
      row('(2) the same, fresh load of the list, ms', 'paint:fresh', 'ms', '≤ 150', (v) => v <= BUDGET.rowsPaintMs),
      row('(2) items answer → 25 rows in the DOM (before paint), all of the above, ms', 'dom', 'ms', ''),
      row('(3) switch Articles → Authors: click → rows painted, ms', 'switch:articles->authors', 'ms', '< 300', (v) => v < BUDGET.switchMs),
      row('(3) switch Authors → Articles: click → rows painted, ms', 'switch:authors->articles', 'ms', '< 300', (v) => v < BUDGET.switchMs),
      row('fresh load of /admin/content/articles: navigation start → rows painted, ms', 'fresh:nav-to-rows', 'ms', ''),
      row('(5) GET /items/articles (the list\'s request) in the browser: start → response end, ms', 'items-in-browser', 'ms', ''),
      row(`(5) the API alone: the same request from Node, ms`, 'api-alone', 'ms', ''),
    ];
    const wf = waterfallRows();
    const chainLines = [...chains.entries()].map(([k, set]) => `- ${k.slice(3)}: ${[...set].join(' | ')}`);
    const machine = `Machine: ${cpus()[0]?.model ?? 'cpu'} x ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, Chromium ${chromiumVersion} (headless); the browser, the server and its database share these cores (1-min load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after).`;
    const text = [
      '# Studio speed budgets',
      '',
      'Generated by `npm run bench:studio` (test/bench/studio.ts); do not edit by hand.',
      '',
      ...lines,
      '',
      `(4) Request waterfall depth: rounds of API requests (round(r) = 1 + max(round(q) for q that ended before r started)); budget ≤ ${BUDGET.rounds}; the depth of every repetition (how many times each when they differ).`,
      '',
      ...wf,
      '',
      'Rounds per screen (depth: round 1 → round 2 → ...):',
      '',
      ...chainLines,
      '',
      ...[...notes].map((n) => `- ${n}`),
      '',
      `Run ${new Date().toISOString()}: ${REPS} repetitions, ${fmt(ROWS)} articles, ${fmt(AUTHORS)} authors, ${PG_ADMIN_URL ? 'Postgres (BENCH_DATABASE_URL/DATABASE_URL)' : 'embedded database'}, the server as \`npm start\` runs it; the API alone ${API_N} requests after 5 warm-ups.`,
      machine,
      '',
    ].join('\n');
    console.log(`\n${text}`);
    writeFileSync(join(here, 'studio-results.md'), text);
    log('wrote test/bench/studio-results.md');
  } catch (err) {
    if (server) console.error(`server log (${server.logFile}):\n${logTail(server.logFile)}`);
    throw err;
  } finally {
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (PG_ADMIN_URL) await query(PG_ADMIN_URL, `drop database if exists ${DB_NAME} with (force)`).catch(() => {});
  }
}

await main();
