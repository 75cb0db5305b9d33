/** The benchmark's reference ceiling: Hono + @hono/node-server + a pg Pool with hand-written, named (so
 * per-connection prepared) SQL for exactly the benchmark's requests, no auth, no schema, no permissions, no
 * activity. It answers with the service's JSON shape `{data: ...}` from the same svc_bench tables, so the
 * service/raw ratio is the price of the generic layer.
 *
 * Env: DATABASE_URL (required), PORT (default 8062), HOST (default 127.0.0.1), DB_POOL_MAX (default 10).
 * Run: node --import tsx test/bench/raw-server.ts */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import pg from 'pg';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('raw-server: DATABASE_URL is required');
const port = Number(process.env.PORT ?? 8062);
const hostname = process.env.HOST ?? '127.0.0.1';
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DB_POOL_MAX ?? 10) });

const POST_COLUMNS = 'id, title, body, status, views, published_on, author';

/** One statement per benchmark scenario; `name` makes pg prepare it once per connection. */
export const SQL = {
  byPk: { name: 'bench_by_pk', text: `select ${POST_COLUMNS} from posts where id = $1` },
  filtered: {
    name: 'bench_filtered',
    text: `select ${POST_COLUMNS} from posts where status = $1 order by published_on desc limit $2`,
  },
  withAuthor: {
    name: 'bench_with_author',
    text: `select p.id, p.title, case when a.id is null then null else json_build_object('name', a.name) end as author
      from posts p left join authors a on a.id = p.author order by p.id limit $1`,
  },
  countByStatus: {
    name: 'bench_count_by_status',
    text: 'select status, count(*)::int as count from posts group by status',
  },
  // Unnamed, as the service runs searches: planned for the pattern at hand (a generic plan of a named statement
  // cannot tell a rare word from a common one). The plain ILIKE a hand-written query would use: its plan rests on
  // ANALYZE's sample (the service's coalesce(..., false) form does not; docs/benchmarks.md > Search at the default
  // statistics).
  search: {
    text: `select ${POST_COLUMNS} from posts
      where title ilike $1 or body ilike $1 or status ilike $1 order by id limit $2`,
  },
  /** Same plan as the service's count() sort: a correlated count per author, ordered by it. */
  authorsByPostCount: {
    name: 'bench_authors_by_post_count',
    text: `select a.id, a.name, (select count(*) from posts p where p.author = a.id)::int4 as posts_count
      from authors a order by (select count(*) from posts p where p.author = a.id)::int4 desc, a.id limit $1`,
  },
  insert: {
    name: 'bench_insert',
    text: `insert into posts (title, body, status, views, published_on, author) values ($1, $2, $3, $4, $5, $6) returning id`,
  },
  /** A batch as one multi-row insert: one array per column, keys returned in payload order. */
  insertBatch: {
    name: 'bench_insert_batch',
    text: `insert into posts (title, body, status, views, published_on, author)
      select * from unnest($1::text[], $2::text[], $3::text[], $4::int4[], $5::timestamptz[], $6::int4[]) returning id`,
  },
  /** Row z: the post and its comments as the service writes them (the comments' post set to the new key), one
   * statement. */
  insertNested: {
    name: 'bench_insert_nested',
    text: `with p as (insert into posts (title, body, status, views, published_on, author) values ($1, $2, $3, $4, $5, $6) returning id),
      c as (insert into comments (post, body) select p.id, b from p, unnest($7::text[]) as b)
      select id from p`,
  },
  update: {
    name: 'bench_update',
    text: 'update posts set title = $1, views = $2 where id = $3 returning id',
  },
} as const;

function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

function limitOf(raw: string | undefined): number {
  const n = raw === undefined ? 100 : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : 100;
}

const app = new Hono();

app.get('/server/health', (c) => c.json({ status: 'ok' }));

app.get('/items/posts/:id', async (c) => {
  const id = Number(c.req.param('id'));
  if (!Number.isInteger(id)) return c.json({ errors: [{ message: 'Bad id', extensions: { code: 'INVALID_PAYLOAD' } }] }, 400);
  const { rows } = await pool.query({ ...SQL.byPk, values: [id] });
  if (rows.length === 0) return c.json({ errors: [{ message: 'Not found', extensions: { code: 'FORBIDDEN' } }] }, 403);
  return c.json({ data: rows[0] });
});

app.get('/items/posts', async (c) => {
  const q = c.req.query();
  const limit = limitOf(q.limit);
  if (q['aggregate[count]'] === '*' && c.req.queries('groupBy[]')?.[0] === 'status') {
    const { rows } = await pool.query(SQL.countByStatus);
    return c.json({ data: rows });
  }
  if (q.search !== undefined) {
    const { rows } = await pool.query({ ...SQL.search, values: [likePattern(q.search), limit] });
    return c.json({ data: rows });
  }
  if (q.fields === 'id,title,author.name') {
    const { rows } = await pool.query({ ...SQL.withAuthor, values: [limit] });
    return c.json({ data: rows });
  }
  if (q['filter[status][_eq]'] !== undefined && q.sort === '-published_on') {
    const { rows } = await pool.query({ ...SQL.filtered, values: [q['filter[status][_eq]'], limit] });
    return c.json({ data: rows });
  }
  return c.json({ errors: [{ message: 'The raw reference server only answers the benchmark queries', extensions: { code: 'INVALID_QUERY' } }] }, 400);
});

app.get('/items/authors', async (c) => {
  const q = c.req.query();
  if (q.fields === 'id,name,count(posts)' && q.sort === '-count(posts),id') {
    const { rows } = await pool.query({ ...SQL.authorsByPostCount, values: [limitOf(q.limit)] });
    return c.json({ data: rows });
  }
  return c.json({ errors: [{ message: 'The raw reference server only answers the benchmark queries', extensions: { code: 'INVALID_QUERY' } }] }, 400);
});

app.post('/items/posts', async (c) => {
  const body = await c.req.json<Record<string, unknown> | Record<string, unknown>[]>();
  if (Array.isArray(body)) {
    const column = (name: string) => body.map((item) => item[name] ?? null);
    const { rows } = await pool.query({
      ...SQL.insertBatch,
      values: [column('title'), column('body'), column('status'), column('views'), column('published_on'), column('author')],
    });
    return c.json({ data: rows.map((r: { id: number }) => r.id) });
  }
  if (Array.isArray(body.comments)) {
    const { rows } = await pool.query({
      ...SQL.insertNested,
      values: [body.title ?? null, body.body ?? null, body.status ?? null, body.views ?? null, body.published_on ?? null, body.author ?? null,
        (body.comments as { body?: string }[]).map((c) => c.body ?? null)],
    });
    return c.json({ data: rows[0].id });
  }
  const { rows } = await pool.query({
    ...SQL.insert,
    values: [body.title ?? null, body.body ?? null, body.status ?? null, body.views ?? null, body.published_on ?? null, body.author ?? null],
  });
  return c.json({ data: rows[0].id });
});

app.patch('/items/posts/:id', async (c) => {
  const id = Number(c.req.param('id'));
  if (!Number.isInteger(id)) return c.json({ errors: [{ message: 'Bad id', extensions: { code: 'INVALID_PAYLOAD' } }] }, 400);
  const body = await c.req.json<Record<string, unknown>>();
  const { rows } = await pool.query({ ...SQL.update, values: [body.title ?? null, body.views ?? null, id] });
  if (rows.length === 0) return c.json({ errors: [{ message: 'Not found', extensions: { code: 'FORBIDDEN' } }] }, 403);
  return c.json({ data: rows[0].id });
});

app.onError((err, c) => {
  console.error(err);
  return c.json({ errors: [{ message: err.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }, 500);
});

const server = serve({ fetch: app.fetch, hostname, port }, (info) => {
  console.log(`raw reference server listening on http://${info.address}:${info.port}`);
});

async function shutdown() {
  server.close();
  await pool.end();
  process.exit(0);
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
