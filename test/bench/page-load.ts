/** Row pl of `npm run bench`: the API part of the Studio's screens on the bench's 100k posts, as the Studio asks for
 * them (the same requests, in the same rounds; studio/src/content/schema.ts, presets.ts, list/ListPage.tsx,
 * item/ItemPage.tsx, item/sidebar/Revisions.tsx). One user, one page load at a time: each measure is the wall time
 * from the first request of a load to the last byte of its last answer, requests of one round in parallel.
 *
 *   - collection switch: the list of the other collection (its first page with its counts and a relational
 *     column); the schema, permissions and presets are cached for the session by then. Target: p50 < 20 ms.
 *   - list view, fresh load: round 1 of the content module (collections, fields, relations, permissions/me,
 *     presets) and the list together.
 *   - item editor: the item with its relations, and the first page of its revisions.
 *
 * There is no raw reference for these rows: the target is absolute. */
import { fmt } from './shared.ts';
import type { ScenarioContext } from './scenarios.ts';

const WARMUP = 10;
const LOADS = 100;
export const PAGE_LOAD_TARGET_MS = 20;

/** The Studio's list request: the columns (a relational one among them), the first page, both counts. */
function listPath(collection: 'posts' | 'authors'): string {
  const fields = collection === 'posts' ? 'id,title,status,views,published_on,author.id,author.name' : 'id,name,email';
  return `/items/${collection}?fields=${fields}&limit=25&page=1&meta=total_count,filter_count`;
}

const PRESETS = '/presets?fields=id,bookmark,user,role,collection,layout,layout_query,layout_options,filter,search,icon,color&limit=-1&sort=id'
  + `&filter=${encodeURIComponent(JSON.stringify({ _or: [{ user: { _eq: '$CURRENT_USER' } }, { role: { _eq: '$CURRENT_ROLE' }, user: { _null: true } }, { role: { _null: true }, user: { _null: true } }] }))}`;

function itemPaths(id: number): string[] {
  const revisions = `/revisions?filter=${encodeURIComponent(JSON.stringify({ collection: { _eq: 'posts' }, item: { _eq: String(id) } }))}`
    + '&fields=id,data,delta,activity.timestamp,activity.user,activity.action&sort=-id&limit=20&page=1';
  return [`/items/posts/${id}?fields=*,author.*`, revisions];
}

export interface PageLoadRow { name: string; requests: number; p50Ms: number; p90Ms: number; p99Ms: number; loads: number }

async function round(baseUrl: string, token: string, paths: string[]): Promise<void> {
  await Promise.all(paths.map(async (path) => {
    const res = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`page load: GET ${path} answered ${res.status}: ${body.slice(0, 300)}`);
  }));
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function timeLoads(name: string, load: (i: number) => string[][], baseUrl: string, token: string): Promise<PageLoadRow> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + LOADS; i++) {
    const rounds = load(i);
    const started = performance.now();
    for (const paths of rounds) await round(baseUrl, token, paths);
    if (i >= WARMUP) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const requests = load(0).reduce((n, r) => n + r.length, 0);
  return { name, requests, p50Ms: quantile(times, 0.5), p90Ms: quantile(times, 0.9), p99Ms: quantile(times, 0.99), loads: LOADS };
}

export async function measurePageLoads(baseUrl: string, token: string, ctx: ScenarioContext): Promise<PageLoadRow[]> {
  const schema = ['/collections', '/fields', '/relations', '/permissions/me', PRESETS];
  const post = (i: number) => ctx.postIds[(i * 7919) % ctx.postIds.length];
  return [
    // Alternating as a user clicking between the two collections does; the posts list is the one on 100k rows.
    await timeLoads('collection switch → posts (list with counts and author.name)', () => [[listPath('posts')]], baseUrl, token),
    await timeLoads('collection switch → authors (list with counts)', () => [[listPath('authors')]], baseUrl, token),
    await timeLoads('list view, fresh load (schema, permissions, presets and the posts list)', () => [[...schema, listPath('posts')]], baseUrl, token),
    await timeLoads('item editor (the post with its author, its revisions)', (i) => [itemPaths(post(i))], baseUrl, token),
  ];
}

export function renderPageLoads(rows: PageLoadRow[]): string {
  return [
    `| Studio page load (API part, 1 user, ${LOADS} loads) | requests | p50 ms | p90 ms | p99 ms |`,
    '|---|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.requests} | ${fmt(r.p50Ms, 1)} | ${fmt(r.p90Ms, 1)} | ${fmt(r.p99Ms, 1)} |`),
  ].join('\n');
}
