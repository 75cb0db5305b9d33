/** The benchmark scenarios of run.ts: the request each sends, how autocannon varies it, and what a sane answer is. */
import type autocannon from 'autocannon';
import { mulberry32, pick, RARE_SEARCH_WORD, SEARCH_WORD, STATUSES, UNCOMMON_SEARCH_WORD, makePost, type PostInput } from './data.ts';

export interface ScenarioContext {
  postIds: readonly number[];
  authorIds: readonly number[];
  totalPosts: number;
}

/** When a scenario runs: `plain` before the extra indexes exist, `indexed` after they are created, `write` last
 * (writes grow the tables the reads scan, so they come after every read). */
export type Phase = 'plain' | 'indexed' | 'write';

export interface Scenario {
  key: string;
  name: string;
  method: 'GET' | 'POST' | 'PATCH';
  phase: Phase;
  /** autocannon connections; default BENCH_CONNECTIONS. */
  connections?: number;
  /** The request used for the pre-flight check (and the fixed part of the load). */
  path: (ctx: ScenarioContext) => string;
  body?: (ctx: ScenarioContext) => string;
  /** autocannon request list (varies the request where the scenario needs it). */
  requests: (ctx: ScenarioContext, headers: Record<string, string>) => autocannon.Request[];
  /** Throws with a reason when `data` is not a sane answer. */
  check: (data: unknown, ctx: ScenarioContext) => void;
  /** Whether service and raw answers should be equal (after `normalize`). */
  comparable: boolean;
  normalize?: (data: unknown) => unknown;
}

function fail(reason: string): never {
  throw new Error(reason);
}

function asRows(data: unknown): Record<string, unknown>[] {
  if (!Array.isArray(data)) fail(`expected data to be an array, got ${JSON.stringify(data)?.slice(0, 200)}`);
  for (const row of data) if (typeof row !== 'object' || row === null) fail('expected every row to be an object');
  return data as Record<string, unknown>[];
}

function checkPost(row: Record<string, unknown>) {
  for (const key of ['id', 'title', 'body', 'status', 'views', 'published_on', 'author']) {
    if (!(key in row)) fail(`post row lacks "${key}": ${JSON.stringify(row).slice(0, 200)}`);
  }
  if (typeof row.id !== 'number') fail(`post id should be a number, got ${JSON.stringify(row.id)}`);
}

function sampleBody(ctx: ScenarioContext): string {
  const post: PostInput = makePost(mulberry32(4242), ctx.authorIds);
  return JSON.stringify({ ...post, title: `Benchmark insert ${post.title}` });
}

const LIST_FILTERED = '/items/posts?filter[status][_eq]=published&sort=-published_on&limit=25';
const LIST_M2O = '/items/posts?fields=id,title,author.name&limit=25';
const AGGREGATE = '/items/posts?aggregate[count]=*&groupBy[]=status';
const COUNT_SORT = '/items/authors?fields=id,name,count(posts)&sort=-count(posts),id&limit=25';

/** `?search=<word>&limit=25` (no search index: these run before any extra index exists). Rows e, e2, e3: a word in
 * about 1 %, 0.25 % and 0.01 % of the posts; the last has fewer than 25 hits, so every request reads the whole table. */
function searchScenario(key: string, word: string, share: string): Scenario {
  const path = `/items/posts?search=${word}&limit=25`;
  return {
    key,
    phase: 'plain',
    name: `search "${word}" (${share}), limit 25`,
    method: 'GET',
    path: () => path,
    requests: (_ctx, headers) => [{ method: 'GET', path, headers }],
    check: (data) => {
      const rows = asRows(data);
      if (rows.length === 0) fail('search found nothing');
      if (rows.length > 25) fail(`limit 25 not applied (${rows.length} rows)`);
      for (const row of rows) {
        checkPost(row);
        const text = `${row.title} ${row.body} ${row.status}`.toLowerCase();
        if (!text.includes(word)) fail(`row ${row.id} does not contain "${word}"`);
      }
    },
    comparable: true,
  };
}

/** A write row: the same POST /items/posts body on every request (writes run last: they grow posts). */
function createScenario(key: string, name: string, body: (ctx: ScenarioContext) => string, check: Scenario['check']): Scenario {
  return {
    key,
    name,
    method: 'POST',
    phase: 'write',
    path: () => '/items/posts',
    body,
    requests: (ctx, headers) => [{ method: 'POST', path: '/items/posts', headers: { ...headers, 'content-type': 'application/json' }, body: body(ctx) }],
    check,
    comparable: false,
  };
}

export const SCENARIOS: Scenario[] = [
  {
    key: 'a',
    phase: 'indexed',
    name: 'get by pk',
    method: 'GET',
    path: (ctx) => `/items/posts/${ctx.postIds[Math.floor(ctx.postIds.length / 2)]}`,
    requests: (ctx, headers) => {
      const rng = mulberry32(7);
      return [{
        method: 'GET',
        path: '/items/posts/1',
        headers,
        setupRequest: (req) => ({ ...req, path: `/items/posts/${pick(rng, ctx.postIds)}` }),
      }];
    },
    check: (data) => {
      if (typeof data !== 'object' || data === null || Array.isArray(data)) fail('expected one post object');
      checkPost(data as Record<string, unknown>);
    },
    comparable: true,
  },
  {
    key: 'b',
    phase: 'plain',
    name: 'list: filter + sort + limit 25, no extra index',
    method: 'GET',
    path: () => LIST_FILTERED,
    requests: (_ctx, headers) => [{ method: 'GET', path: LIST_FILTERED, headers }],
    check: (data) => {
      const rows = asRows(data);
      if (rows.length !== 25) fail(`expected 25 rows, got ${rows.length}`);
      rows.forEach(checkPost);
      if (rows.some((r) => r.status !== 'published')) fail('filter status=published not applied');
      const times = rows.map((r) => Date.parse(String(r.published_on)));
      for (let i = 1; i < times.length; i++) if (times[i] > times[i - 1]) fail('rows are not sorted by -published_on');
    },
    comparable: true,
  },
  {
    key: 'c',
    phase: 'indexed',
    name: 'list: M2O fields author.name, limit 25',
    method: 'GET',
    path: () => LIST_M2O,
    requests: (_ctx, headers) => [{ method: 'GET', path: LIST_M2O, headers }],
    check: (data) => {
      const rows = asRows(data);
      if (rows.length !== 25) fail(`expected 25 rows, got ${rows.length}`);
      for (const row of rows) {
        const keys = Object.keys(row).sort().join(',');
        if (keys !== 'author,id,title') fail(`expected exactly id,title,author; got ${keys}`);
        const author = row.author as Record<string, unknown> | null;
        if (author !== null && (typeof author !== 'object' || typeof author.name !== 'string')) {
          fail(`expected author to be {name}, got ${JSON.stringify(author)}`);
        }
      }
    },
    comparable: true,
  },
  {
    key: 'd',
    phase: 'indexed',
    name: 'aggregate: count(*) group by status',
    method: 'GET',
    path: () => AGGREGATE,
    requests: (_ctx, headers) => [{ method: 'GET', path: AGGREGATE, headers }],
    check: (data, ctx) => {
      const rows = asRows(data);
      if (rows.length < 1 || rows.length > STATUSES.length) fail(`expected 1..${STATUSES.length} groups, got ${rows.length}`);
      let sum = 0;
      for (const row of rows) {
        if (typeof row.status !== 'string') fail(`group lacks status: ${JSON.stringify(row)}`);
        const n = Number(row.count);
        if (!Number.isFinite(n)) fail(`group lacks a numeric count: ${JSON.stringify(row)}`);
        sum += n;
      }
      // The pre-flight check runs before any insert of scenario (f), but after the other server's check may have
      // inserted one row: allow a small slack.
      if (sum < ctx.totalPosts || sum > ctx.totalPosts + 10) fail(`counts add up to ${sum}, expected about ${ctx.totalPosts}`);
    },
    comparable: true,
    normalize: (data) => asRows(data)
      .map((r): Record<string, unknown> => ({ ...r, count: Number(r.count) }))
      .sort((x, y) => String(x.status).localeCompare(String(y.status))),
  },
  searchScenario('e', SEARCH_WORD, '~1 % of titles'),
  searchScenario('e2', UNCOMMON_SEARCH_WORD, '~0.25 % of titles'),
  searchScenario('e3', RARE_SEARCH_WORD, '~0.01 % of bodies'),
  {
    key: 'p',
    phase: 'indexed',
    name: 'authors sorted by count(posts), limit 25',
    method: 'GET',
    path: () => COUNT_SORT,
    requests: (_ctx, headers) => [{ method: 'GET', path: COUNT_SORT, headers }],
    check: (data) => {
      const rows = asRows(data);
      if (rows.length !== 25) fail(`expected 25 rows, got ${rows.length}`);
      for (let i = 1; i < rows.length; i++) {
        if (Number(rows[i].posts_count) > Number(rows[i - 1].posts_count)) fail('rows are not sorted by -count(posts)');
      }
      if (typeof rows[0].posts_count !== 'number' || rows[0].posts_count <= 0) fail(`expected a positive posts_count, got ${JSON.stringify(rows[0])}`);
    },
    comparable: true,
  },
  createScenario('f', 'create one post', sampleBody, checkKey),
];

function variant(key: string, overrides: Partial<Scenario> & { key: string; name: string }): Scenario {
  const base = SCENARIOS.find((x) => x.key === key);
  if (!base) throw new Error(`no scenario ${key}`);
  return { ...base, ...overrides };
}

/** A fixed batch of BATCH_SIZE posts (the same for both servers). */
export const BATCH_SIZE = 100;

function batchBody(ctx: ScenarioContext): string {
  const rng = mulberry32(777);
  return JSON.stringify(Array.from({ length: BATCH_SIZE }, (_, i) => {
    const post = makePost(rng, ctx.authorIds);
    return { ...post, title: `Benchmark batch ${i} ${post.title}` };
  }));
}

function updateBody(rng: () => number): string {
  return JSON.stringify({ title: `Updated ${Math.floor(rng() * 1e9)}`, views: Math.floor(rng() * 100_000) });
}

/** Row z: a post and its comments (the O2M posts.comments, created before the writes) in one payload. */
export const NESTED_CHILDREN = 3;

function nestedBody(ctx: ScenarioContext): string {
  const post = makePost(mulberry32(99), ctx.authorIds);
  const comments = Array.from({ length: NESTED_CHILDREN }, (_, i) => ({ body: `Benchmark comment ${i} on ${post.title}` }));
  return JSON.stringify({ ...post, title: `Benchmark nested ${post.title}`, comments });
}

function checkKey(data: unknown): void {
  if (typeof data !== 'number' || !Number.isInteger(data)) fail(`expected a primary key, got ${JSON.stringify(data)}`);
}

SCENARIOS.push(
  variant('b', { key: 'q', name: 'list: filter + sort + limit 25, with index (status, published_on)', phase: 'indexed' }),
  {
    key: 's',
    name: 'update one post (title, views)',
    method: 'PATCH',
    phase: 'write',
    path: (ctx) => `/items/posts/${ctx.postIds[1]}`,
    body: () => updateBody(mulberry32(5)),
    requests: (ctx, headers) => {
      const rng = mulberry32(11);
      return [{
        method: 'PATCH',
        path: '/items/posts/1',
        headers: { ...headers, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, path: `/items/posts/${pick(rng, ctx.postIds)}`, body: updateBody(rng) }),
      }];
    },
    check: checkKey,
    comparable: true,
  },
  createScenario('r', `create a batch of ${BATCH_SIZE} posts (one request)`, batchBody, (data) => {
    if (!Array.isArray(data) || data.length !== BATCH_SIZE) fail(`expected ${BATCH_SIZE} keys, got ${JSON.stringify(data)?.slice(0, 200)}`);
    data.forEach(checkKey);
    for (let i = 1; i < data.length; i++) if ((data[i] as number) <= (data[i - 1] as number)) fail('keys are not in payload order');
  }),
  createScenario('z', `nested create: a post with ${NESTED_CHILDREN} O2M comments (one request)`, nestedBody, checkKey),
  variant('a', { key: 't', name: 'get by pk, 50 connections', connections: 50 }),
  variant('c', { key: 'u', name: 'list: M2O fields author.name, limit 25, 50 connections', connections: 50 }),
  variant('f', { key: 'v', name: 'create one post, 50 connections', connections: 50 }),
);

const PHASES: Phase[] = ['plain', 'indexed', 'write'];
/** Run (and table) order: by phase, then as listed. */
SCENARIOS.sort((x, y) => PHASES.indexOf(x.phase) - PHASES.indexOf(y.phase));

/** Stable JSON for equality checks: object keys sorted. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)));
    }
    return v;
  });
}
