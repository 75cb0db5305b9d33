/** Stage 3, compile (core/query/compile-select.ts, compile-filter.ts), table-driven and without a database: a plan
 * (planRead over the in-memory schema of schema-fixture.ts) -> the exact SQL text and bound parameters. These pin
 * the statement shapes the read path's speed depends on: one statement per read, relations as correlated
 * sub-selects building JSON in Postgres, the page picked from plain columns before wire values are computed,
 * LIMIT/OFFSET as literals, the `/*p*\/` mark for named prepared statements (none with a search), row filters
 * inside relational filters and sort hops. A change here is a change of what Postgres is asked to do: run the
 * benchmarks before updating an expected text. Single comparisons per operator are in operators.test.ts. */
import { describe, expect, it } from 'vitest';
import { compileAggregate, compileKeys, compileList, compileOne, type CompiledRead } from '../../core/query/compile-select.ts';
import { planRead } from '../../core/query/plan.ts';
import type { Query } from '../../core/query/types.ts';
import { ALL, permissions, planContext, type Grant } from './schema-fixture.ts';

/** Posts published only; authors Ada only (no email); comments by "x" only; tags other than "tech". */
const READER: Record<string, Grant> = {
  posts: { filter: { status: { _eq: 'published' } } },
  authors: { fields: ['id', 'name', 'age', 'posts'], filter: { name: { _eq: 'Ada' } } },
  comments: { filter: { user_name: { _eq: 'x' } } },
  posts_tags: {},
  tags: { filter: { id: { _neq: 'tech' } } },
};

/** SQL text written over several lines of the table: the parts joined by one space. */
const sql = (...parts: string[]): string => parts.join(' ');

interface Case {
  name: string;
  collection?: string;
  query: Query;
  grants?: Record<string, Grant>;
  /** list (default), one (with `key`), keys, aggregate. */
  compile?: 'list' | 'one' | 'keys' | 'aggregate';
  key?: unknown;
  sql: string;
  params: unknown[];
}

const CASES: Case[] = [
  {
    name: 'plain list: the page picked from plain columns, then turned into JSON',
    query: { fields: ['id', 'title'] },
    sql: sql(
      `/*p*/select coalesce(json_agg(r), '[]'::json)::text as data from (select t0."id" as "id", t0."title" as "title"`,
      `from (select t0."id", t0."title" from "posts" as t0 order by t0."id" asc limit 100) as t0) as r`,
    ),
    params: [],
  },
  {
    name: 'filter with bound values; page as literal limit and offset',
    query: { fields: ['id', 'title'], filter: { _and: [{ title: { _contains: 'a' } }, { id: { _in: [1, 2] } }] }, limit: 10, page: 2 },
    sql: sql(
      `/*p*/select coalesce(json_agg(r), '[]'::json)::text as data from (select t0."id" as "id", t0."title" as "title"`,
      `from (select t0."id", t0."title" from "posts" as t0 where (t0."title" like $1 and t0."id" = any($2::int4[]))`,
      `order by t0."id" asc limit 10 offset 10) as t0) as r`,
    ),
    params: ['%a%', [1, 2]],
  },
  {
    name: 'no limit: no inner page, the rows straight from the table',
    query: { fields: ['id'], filter: { comments: { _none: { text: { _eq: 'spam' } } } }, limit: -1 },
    grants: READER,
    sql: sql(
      `/*p*/select coalesce(json_agg(r), '[]'::json)::text as data from (select t0."id" as "id" from "posts" as t0`,
      `where (not exists (select 1 from "comments" as t1 where t1."post" = t0."id" and (t1."text" = $1::text and t1."user_name" = $2::text))`,
      `and t0."status" = $3::text) order by t0."id" asc) as r`,
    ),
    params: ['spam', 'x', 'published'],
  },
  {
    name: 'one item with an M2O nested read: the key is $1, the related row filter inside the sub-select',
    query: { fields: ['id', 'author.name'] },
    grants: READER,
    compile: 'one',
    key: '7',
    sql: sql(
      `/*p*/select (select row_to_json(r) from (select t0."id" as "id",`,
      `(select row_to_json(r) from (select t1."name" as "name" from "authors" as t1 where t1."id" = t0."author" and t1."name" = $3::text) as r) as "author"`,
      `from "posts" as t0 where t0."id" = $1::int4 and t0."status" = $2::text) as r)::text as data`,
    ),
    params: ['7', 'published', 'Ada'],
  },
  {
    name: 'O2M with a limit: json_agg over an ordered, limited correlated sub-select',
    query: { fields: ['id', 'comments.text'], deep: { comments: { _limit: 2 } } },
    sql: sql(
      `/*p*/select coalesce(json_agg(r), '[]'::json)::text as data from (select t0."id" as "id",`,
      `(select coalesce(json_agg(r), '[]'::json) from (select t1."text" as "text" from "comments" as t1 where t1."post" = t0."id"`,
      `order by t1."sort" asc, t1."id" asc limit 2) as r) as "comments"`,
      `from (select t0."id" from "posts" as t0 order by t0."id" asc limit 100) as t0) as r`,
    ),
    params: [],
  },
  {
    name: 'a bare O2M: its keys only, under the related row filter and the default nested limit',
    query: { fields: ['id', 'comments'] },
    grants: READER,
    sql: sql(
      `/*p*/select coalesce(json_agg(r), '[]'::json)::text as data from (select t0."id" as "id",`,
      `(select coalesce(json_agg(r.k), '[]'::json) from (select t1."id" as k from "comments" as t1 where t1."post" = t0."id" and t1."user_name" = $2::text`,
      `order by t1."sort" asc, t1."id" asc limit 100) as r) as "comments"`,
      `from (select t0."id" from "posts" as t0 where t0."status" = $1::text order by t0."id" asc limit 100) as t0) as r`,
    ),
    params: ['published', 'x'],
  },
  {
    name: 'A2O nested read: one branch per collection, chosen by the discriminator',
    collection: 'pages_blocks',
    query: { fields: ['id', 'item.*'] },
    sql: sql(
      `/*p*/select coalesce(json_agg(r), '[]'::json)::text as data from (select t0."id" as "id", case t0."collection"`,
      `when $1::text then (select row_to_json(r) from (select t1."id" as "id", t1."headline" as "headline" from "block_hero" as t1 where t1."id"::text = t0."item") as r)`,
      `when $2::text then (select row_to_json(r) from (select t2."id" as "id", t2."text" as "text" from "block_text" as t2 where t2."id"::text = t0."item") as r)`,
      `else to_json(t0."item") end as "item"`,
      `from (select t0."id", t0."item", t0."collection" from "pages_blocks" as t0 order by t0."id" asc limit 100) as t0) as r`,
    ),
    params: ['block_hero', 'block_text'],
  },
  {
    name: 'relational sort: a scalar sub-select carrying the related row filter',
    query: { fields: ['id'], sort: ['-author.name'], limit: 5 },
    grants: READER,
    sql: sql(
      `/*p*/select coalesce(json_agg(r), '[]'::json)::text as data from (select t0."id" as "id"`,
      `from (select t0."id" from "posts" as t0 where t0."status" = $1::text`,
      `order by (select t1."name" from "authors" as t1 where t1."id" = t0."author" and t1."name" = $2::text) desc limit 5) as t0) as r`,
    ),
    params: ['published', 'Ada'],
  },
  {
    name: 'count function in the sort and the select list, each counting readable rows only',
    query: { fields: ['id', 'count(comments)'], sort: ['-count(comments)'], limit: 3 },
    grants: READER,
    sql: sql(
      `/*p*/select coalesce(json_agg(r), '[]'::json)::text as data from (select t0."id" as "id",`,
      `(select count(*) from "comments" as t2 where t2."post" = t0."id" and t2."user_name" = $3::text)::int4 as "comments_count"`,
      `from (select t0."id" from "posts" as t0 where t0."status" = $1::text`,
      `order by (select count(*) from "comments" as t1 where t1."post" = t0."id" and t1."user_name" = $2::text)::int4 desc limit 3) as t0) as r`,
    ),
    params: ['published', 'x', 'x'],
  },
  {
    name: 'search and meta: unnamed statement, wire values, counts as extra columns; no search index: the OR in coalesce()',
    query: { fields: ['id', 'published_on', 'views', 'price'], meta: ['total_count', 'filter_count'], search: 'x' },
    sql: sql(
      `select coalesce(json_agg(r), '[]'::json)::text as data,`,
      `(select count(*) from "posts" as t1)::int8 as total_count,`,
      `(select count(*) from "posts" as t2 where coalesce(t2."title" ilike $2 or t2."body" ilike $2 or t2."status" ilike $2, false))::int8 as filter_count`,
      `from (select t0."id" as "id", to_char(t0."published_on" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "published_on",`,
      `t0."views"::text as "views", t0."price"::text as "price"`,
      `from (select t0."id", t0."published_on", t0."views", t0."price" from "posts" as t0`,
      `where coalesce(t0."title" ilike $1 or t0."body" ilike $1 or t0."status" ilike $1, false) order by t0."id" asc limit 100) as t0) as r`,
    ),
    params: ['%x%', '%x%'],
  },
  {
    name: 'search on a collection with its trigram search index: the bare OR, which the index can serve',
    collection: 'block_text',
    query: { fields: ['id'], search: 'x' },
    sql: sql(
      `select coalesce(json_agg(r), '[]'::json)::text as data from (select t0."id" as "id"`,
      `from (select t0."id" from "block_text" as t0 where (t0."text" ilike $1) order by t0."id" asc limit 100) as t0) as r`,
    ),
    params: ['%x%'],
  },
  {
    name: 'A2O filter: the discriminator and an exists per branch',
    collection: 'pages_blocks',
    query: { fields: ['id'], filter: { item: { headline: { _eq: 'W' } } } },
    sql: sql(
      `/*p*/select coalesce(json_agg(r), '[]'::json)::text as data from (select t0."id" as "id"`,
      `from (select t0."id" from "pages_blocks" as t0`,
      `where ((t0."collection" = $1 and exists (select 1 from "block_hero" as t1 where t1."id"::text = t0."item" and t1."headline" = $2::text)))`,
      `order by t0."id" asc limit 100) as t0) as r`,
    ),
    params: ['block_hero', 'W'],
  },
  {
    name: 'keys of the selected rows: an M2M filter with both row filters',
    query: { filter: { tags: { tags_id: { label: { _eq: 'News' } } } }, sort: ['title'], limit: 20, offset: 40 },
    grants: READER,
    compile: 'keys',
    sql: sql(
      `select t0."id" as key from "posts" as t0`,
      `where (exists (select 1 from "posts_tags" as t1 where t1."posts_id" = t0."id"`,
      `and exists (select 1 from "tags" as t2 where t2."id" = t1."tags_id" and (t2."label" = $1::text and t2."id" <> $2::text)))`,
      `and t0."status" = $3::text) order by t0."title" asc limit 20 offset 40`,
    ),
    params: ['News', 'tech', 'published'],
  },
  {
    name: 'aggregate with groupBy: one json_build_object per group, names bound as parameters',
    query: { aggregate: { count: ['*'], sum: ['views'] }, groupBy: ['status'], sort: ['-count'] },
    compile: 'aggregate',
    sql: sql(
      `/*p*/select coalesce(json_agg(r.j), '[]'::json)::text as data from (select`,
      `json_build_object($1::text, t0."status", $2::text, count(*), $3::text, json_build_object($4::text, sum(t0."views"))) as j`,
      `from "posts" as t0 group by t0."status" order by count(*) desc limit 100) as r`,
    ),
    params: ['status', 'count', 'sum', 'views'],
  },
  {
    name: 'aggregate grouped by a date function, with filter_count under the row filter',
    query: {
      aggregate: { avg: ['price'], max: ['views'] }, groupBy: ['year(published_on)'], sort: ['year(published_on)'],
      meta: ['filter_count'], filter: { title: { _nnull: true } },
    },
    grants: READER,
    compile: 'aggregate',
    sql: sql(
      `/*p*/select coalesce(json_agg(r.j), '[]'::json)::text as data,`,
      `(select count(*) from "posts" as t1 where (t1."title" is not null and t1."status" = $7::text))::int8 as filter_count`,
      `from (select json_build_object($1::text, floor(extract(year from (t0."published_on" at time zone 'UTC')))::int4,`,
      `$2::text, json_build_object($3::text, avg(t0."price")), $4::text, json_build_object($5::text, max(t0."views")::text)) as j`,
      `from "posts" as t0 where (t0."title" is not null and t0."status" = $6::text)`,
      `group by floor(extract(year from (t0."published_on" at time zone 'UTC')))::int4`,
      `order by floor(extract(year from (t0."published_on" at time zone 'UTC')))::int4 asc limit 100) as r`,
    ),
    params: ['published_on_year', 'avg', 'price', 'max', 'views', 'published', 'published'],
  },
];

function compile(c: Case): CompiledRead {
  const ctx = planContext(c.grants ? permissions(c.grants) : ALL);
  const plan = planRead(ctx, c.collection ?? 'posts', c.query);
  switch (c.compile ?? 'list') {
    case 'list': return compileList(plan.select!, plan.meta);
    case 'one': return compileOne(plan.select!, c.key);
    case 'keys': return compileKeys(plan.select!);
    case 'aggregate': return compileAggregate(plan.aggregate!, plan.meta);
  }
}

describe('compile: plan -> SQL text and parameters', () => {
  it.each(CASES)('$name', (c) => {
    const out = compile(c);
    expect(out.sql).toBe(c.sql);
    expect(out.params).toEqual(c.params);
  });
});

describe('compile: identifiers and values', () => {
  it('every placeholder has its parameter, and values never appear in the text', () => {
    const out = compile({ name: '', query: { fields: ['id'], filter: { title: { _eq: `x'; drop table posts; --` } } }, sql: '', params: [] });
    expect(out.sql).not.toContain('drop table');
    expect(out.params).toEqual([`x'; drop table posts; --`]);
    const placeholders = new Set([...out.sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    expect([...placeholders].sort((a, b) => a - b)).toEqual(out.params.map((_, i) => i + 1));
  });

  it('an identifier with a double quote is quoted, not closed', () => {
    const ctx = planContext();
    const posts = ctx.schema.collections.posts;
    posts.fields['we"ird'] = { ...posts.fields.title, field: 'we"ird' };
    const plan = planRead(ctx, 'posts', { fields: ['id'], sort: ['we"ird'] });
    expect(compileList(plan.select!, plan.meta).sql).toContain('order by t0."we""ird" asc');
  });
});
