/** Raw reference for the search bench (test/bench/search.ts): Hono + a pg Pool, one hand-written statement for
 * GET /items/posts?search=...&limit=n: ILIKE on every text column, OR'ed, as a hand-written query would put it (the
 * service's predicate with the collection's search index; without it the service wraps the OR in coalesce(..., false),
 * core/query/compile-filter.ts), and the same row order (none asked: the primary key, as the service's default).
 * No auth, schema or permissions.
 * Unnamed, as the service's search: a named statement goes generic after five runs, and the generic plan walks
 * the primary key for a rare word instead of using the trigram index (seconds instead of milliseconds).
 *
 * Env: DATABASE_URL (required), PORT (default 8063), HOST (default 127.0.0.1), DB_POOL_MAX (default 10).
 * Run: node --import tsx test/bench/raw-search-server.ts */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import pg from 'pg';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('raw-search-server: DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DB_POOL_MAX ?? 10) });

export const SEARCH_SQL = {
  text: `select id, title, body, status, views, published_on, author from posts
    where title ilike $1 or body ilike $1 or status ilike $1 order by id limit $2`,
};

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

const app = new Hono();
app.get('/server/health', (c) => c.json({ status: 'ok' }));
app.get('/items/posts', async (c) => {
  const search = c.req.query('search');
  const limit = Number(c.req.query('limit') ?? 100);
  if (search === undefined || !Number.isInteger(limit) || limit < 1) return c.json({ errors: [{ message: 'search and limit only' }] }, 400);
  const { rows } = await pool.query({ ...SEARCH_SQL, values: [likePattern(search), limit] });
  return c.json({ data: rows });
});

serve({ fetch: app.fetch, hostname: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 8063) }, (info) => {
  console.log(`raw search server on http://${info.address}:${info.port}`);
});
