/** Stage 2, plan (core/query/plan.ts), table-driven and without a database: (query, permissions) over the
 * in-memory schema of schema-fixture.ts -> the facts of the read plan (fields, filter tree, sort chain with its
 * per-hop row filter, limit/offset, meta), or the refusal (INVALID_QUERY for what the schema does not have,
 * FORBIDDEN for what the caller may not read). Plans are compared through `facts()`, which names every field and
 * collection instead of holding their overview objects. */
import { describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidQueryError } from '../../core/errors.ts';
import { planRead, type PlanContext } from '../../core/query/plan.ts';
import type { FilterNode, RowScope } from '../../core/query/plan-types.ts';
import type { Query } from '../../core/query/types.ts';
import { ALL, LIMITS, permissions, planContext, type Grant } from './schema-fixture.ts';

/** A plan with every FieldOverview replaced by its name and every CollectionOverview by its collection name. */
function facts(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Set) return [...value];
  if (Array.isArray(value)) return value.map(facts);
  const v = value as Record<string, unknown>;
  if ('isPrimaryKey' in v && 'dbType' in v) return v.field;
  if ('folder' in v && 'primary' in v) return v.collection;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, facts(x)]));
}

const cmp = (field: string, op: string, value: unknown) => ({ kind: 'cmp', field, op, value });
const col = (name: string) => ({ kind: 'column', name, field: name });
const asc = (field: string, chain: unknown[] = []) => ({ target: { chain, field }, desc: false });
const desc = (field: string, chain: unknown[] = []) => ({ target: { chain, field }, desc: true });

/** A reader of posts (published only), authors (Ada only; no email, secret or profile), comments (by "x" only),
 * the junction and tags (not "tech"); nothing of pages. */
const READER: Record<string, Grant> = {
  posts: { filter: { status: { _eq: 'published' } } },
  authors: { fields: ['id', 'name', 'age', 'posts'], filter: { name: { _eq: 'Ada' } } },
  comments: { filter: { user_name: { _eq: 'x' } } },
  posts_tags: {},
  tags: { filter: { id: { _neq: 'tech' } } },
};
const PUBLISHED = cmp('status', '_eq', 'published');
const ADA = cmp('name', '_eq', 'Ada');
const BY_X = cmp('user_name', '_eq', 'x');

interface Case {
  name: string;
  collection?: string;
  query: Query;
  /** Read grants; the admin's set when absent. */
  grants?: Record<string, Grant>;
  ctx?: Partial<PlanContext>;
  /** Matched (toMatchObject) against facts(plan). */
  plan: Record<string, unknown>;
}

const CASES: Case[] = [
  {
    name: 'no query: every column, bare relations as keys, default order and limit',
    query: {},
    plan: {
      select: {
        collection: 'posts',
        fields: [
          col('id'), col('title'), col('body'), col('status'), col('published_on'), col('views'), col('price'), col('data'), col('author'),
          { kind: 'o2m', name: 'comments', fkOnChild: 'post', parentKey: 'id', keysOnly: true, child: { collection: 'comments', fields: [col('id')], limit: 100 } },
          { kind: 'o2m', name: 'tags', fkOnChild: 'posts_id', parentKey: 'id', keysOnly: true, child: { collection: 'posts_tags', fields: [col('id')] } },
        ],
        filter: null, search: null, sort: [asc('id')], limit: 100, offset: 0,
      },
      aggregate: null, meta: { totalCount: null, filterCount: null },
    },
  },
  {
    name: 'fields, limit and page -> offset',
    query: { fields: ['id', 'title'], limit: 10, page: 3 },
    plan: { select: { fields: [col('id'), col('title')], limit: 10, offset: 20 } },
  },
  { name: 'offset', query: { fields: ['id'], limit: 5, offset: 7 }, plan: { select: { limit: 5, offset: 7 } } },
  { name: 'limit -1: no limit', query: { fields: ['id'], limit: -1 }, plan: { select: { limit: null, offset: 0 } } },
  {
    name: 'the collection sort field is the default order',
    collection: 'pages',
    query: { fields: ['id'] },
    plan: { select: { sort: [asc('title')] } },
  },
  {
    name: 'sort: descending, ascending, a date function',
    query: { fields: ['id'], sort: ['-published_on', 'title', 'year(published_on)'] },
    plan: {
      select: {
        sort: [
          desc('published_on'), asc('title'),
          { target: { chain: [], field: 'published_on', fn: { kind: 'date', fn: 'year', field: 'published_on' } }, desc: false },
        ],
      },
    },
  },
  {
    name: 'M2O read: the child is one object under the related row filter',
    query: { fields: ['id', 'author.name'] },
    grants: READER,
    plan: {
      select: {
        fields: [col('id'), { kind: 'm2o', name: 'author', fk: 'author', child: { collection: 'authors', fields: [col('name')], filter: ADA, sort: [], limit: null } }],
        filter: PUBLISHED,
      },
    },
  },
  {
    name: 'M2O *: only the readable fields',
    query: { fields: ['author.*'] },
    grants: READER,
    plan: { select: { fields: [{ kind: 'm2o', child: { fields: [col('id'), col('name'), col('age'), { kind: 'o2m', name: 'posts', keysOnly: true }] } }] } },
  },
  {
    name: 'O2M read with deep: limit, the relation sort field then the key, a deep filter ANDed with the row filter',
    query: { fields: ['id', 'comments.text'], deep: { comments: { _limit: '2', _filter: { text: { _nnull: true } } } } },
    grants: READER,
    plan: {
      select: {
        fields: [col('id'), {
          kind: 'o2m', name: 'comments', keysOnly: false,
          child: { collection: 'comments', fields: [col('text')], filter: { kind: 'and', children: [cmp('text', '_nnull', true), BY_X] }, sort: [asc('sort'), asc('id')], limit: 2, offset: 0 },
        }],
      },
    },
  },
  {
    name: 'O2M deep sort replaces the default order',
    query: { fields: ['comments.id'], deep: { comments: { _sort: '-id', _page: 2, _limit: 3 } } },
    plan: { select: { fields: [{ kind: 'o2m', child: { sort: [desc('id')], limit: 3, offset: 3 } }] } },
  },
  {
    name: 'M2M read through the junction',
    query: { fields: ['tags.tags_id.label'] },
    grants: READER,
    plan: {
      select: {
        fields: [{
          kind: 'o2m', name: 'tags', fkOnChild: 'posts_id',
          child: { collection: 'posts_tags', filter: null, fields: [{ kind: 'm2o', name: 'tags_id', child: { collection: 'tags', fields: [col('label')], filter: cmp('id', '_neq', 'tech') } }] },
        }],
      },
    },
  },
  {
    name: 'A2O *: one branch per allowed collection',
    collection: 'pages_blocks',
    query: { fields: ['item.*'] },
    plan: {
      select: {
        fields: [{
          kind: 'a2o', name: 'item', keyField: 'item', collectionField: 'collection',
          branches: [
            { collection: 'block_hero', child: { fields: [col('id'), col('headline')] } },
            { collection: 'block_text', child: { fields: [col('id'), col('text')] } },
          ],
        }],
      },
    },
  },
  {
    name: 'A2O scoped to one collection',
    collection: 'pages_blocks',
    query: { fields: ['id', 'item:block_hero.headline'] },
    plan: { select: { fields: [col('id'), { kind: 'a2o', branches: [{ collection: 'block_hero', child: { fields: [col('headline')] } }] }] } },
  },
  {
    name: 'A2O without sub-fields is its key column',
    collection: 'pages_blocks',
    query: { fields: ['item'] },
    plan: { select: { fields: [col('item')] } },
  },
  {
    name: 'a bare O2M into an unreadable collection is left out',
    collection: 'pages',
    query: {},
    grants: { pages: {} },
    plan: { select: { fields: [col('id'), col('title')] } },
  },
  {
    name: 'unreadable fields are dropped from *',
    query: { fields: ['*'] },
    grants: { posts: { fields: ['id', 'title'] } },
    plan: { select: { fields: [col('id'), col('title')] } },
  },
  {
    name: 'an alias reads a relation under a new name',
    query: { fields: ['writer.name'], alias: { writer: 'author' } },
    plan: { select: { fields: [{ kind: 'm2o', name: 'writer', fk: 'author', child: { fields: [col('name')] } }] } },
  },
  {
    name: 'backlink=false: * below the top level leaves out the relation back',
    collection: 'authors',
    query: { fields: ['id', 'posts.*'], backlink: false },
    plan: {
      select: {
        fields: [col('id'), {
          kind: 'o2m', name: 'posts',
          child: { fields: [col('id'), col('title'), col('body'), col('status'), col('published_on'), col('views'), col('price'), col('data'), { name: 'comments' }, { name: 'tags' }] },
        }],
      },
    },
  },
  {
    name: 'a count function field counts only readable rows',
    query: { fields: ['id', 'count(comments)'] },
    grants: READER,
    plan: {
      select: {
        fields: [col('id'), {
          kind: 'fn', name: 'comments_count',
          fn: { kind: 'count', relation: 'comments', related: 'comments', fkOnChild: 'post', parentKey: 'id', filter: BY_X },
        }],
      },
    },
  },
  // filters
  {
    name: 'filter: _or of comparisons, values coerced to the field type',
    query: { fields: ['id'], filter: { _or: [{ title: { _eq: 'a' } }, { id: { _in: '1,2' } }, { views: { _gt: '10' } }] } },
    plan: { select: { filter: { kind: 'or', children: [cmp('title', '_eq', 'a'), cmp('id', '_in', [1, 2]), cmp('views', '_gt', '10')] } } },
  },
  {
    name: 'filter: two operators on one field are ANDed',
    query: { fields: ['id'], filter: { id: { _gte: 2, _lt: '5' } } },
    plan: { select: { filter: { kind: 'and', children: [cmp('id', '_gte', 2), cmp('id', '_lt', 5)] } } },
  },
  {
    name: 'filter: the user filter is ANDed with the row filter; total_count has the row filter only',
    query: { fields: ['id'], filter: { title: { _contains: 'a' } }, meta: ['total_count', 'filter_count'] },
    grants: READER,
    plan: {
      select: { filter: { kind: 'and', children: [cmp('title', '_contains', 'a'), PUBLISHED] } },
      meta: { totalCount: { filter: PUBLISHED }, filterCount: { filter: { kind: 'and', children: [cmp('title', '_contains', 'a'), PUBLISHED] }, search: null } },
    },
  },
  {
    name: 'filter: an M2O filter carries the related row filter',
    query: { fields: ['id'], filter: { author: { name: { _eq: 'Brian' } } } },
    grants: READER,
    plan: {
      select: {
        filter: {
          kind: 'and',
          children: [{ kind: 'm2o', fk: 'author', related: 'authors', child: { kind: 'and', children: [cmp('name', '_eq', 'Brian'), ADA] } }, PUBLISHED],
        },
      },
    },
  },
  {
    name: 'filter: an O2M _none carries the related row filter',
    query: { fields: ['id'], filter: { comments: { _none: { text: { _eq: 'spam' } } } } },
    grants: { ...READER, posts: {} },
    plan: {
      select: {
        filter: { kind: 'o2m', none: true, related: 'comments', fkOnChild: 'post', parentKey: 'id', child: { kind: 'and', children: [cmp('text', '_eq', 'spam'), BY_X] } },
      },
    },
  },
  {
    name: 'filter: an O2M without _some/_none is _some',
    query: { fields: ['id'], filter: { comments: { text: { _eq: 'ok' } } } },
    plan: { select: { filter: { kind: 'o2m', none: false, related: 'comments', child: cmp('text', '_eq', 'ok') } } },
  },
  {
    name: 'filter: M2M is O2M then M2O, each with its row filter',
    query: { fields: ['id'], filter: { tags: { tags_id: { label: { _eq: 'News' } } } } },
    grants: { ...READER, posts: {} },
    plan: {
      select: {
        filter: {
          kind: 'o2m', related: 'posts_tags',
          child: { kind: 'm2o', fk: 'tags_id', related: 'tags', child: { kind: 'and', children: [cmp('label', '_eq', 'News'), cmp('id', '_neq', 'tech')] } },
        },
      },
    },
  },
  {
    name: 'filter: A2O, only the branches that have the field',
    collection: 'pages_blocks',
    query: { fields: ['id'], filter: { item: { headline: { _eq: 'Welcome' } } } },
    plan: { select: { filter: { kind: 'a2o', keyField: 'item', collectionField: 'collection', branches: [{ related: 'block_hero', child: cmp('headline', '_eq', 'Welcome') }] } } },
  },
  {
    name: 'filter: $FOLLOW is a reverse M2O',
    collection: 'pages',
    query: { fields: ['id'], filter: { '$FOLLOW(pages_blocks, page)': { collection: { _eq: 'block_hero' } } } },
    plan: { select: { filter: { kind: 'o2m', none: false, related: 'pages_blocks', fkOnChild: 'page', parentKey: 'id', child: cmp('collection', '_eq', 'block_hero') } } },
  },
  {
    name: 'filter: a function of the row',
    query: { fields: ['id'], filter: { 'year(published_on)': { _eq: '2024' } } },
    plan: { select: { filter: { kind: 'cmp', field: 'year(published_on)', op: '_eq', value: 2024, fn: { kind: 'date', fn: 'year', field: 'published_on' } } } },
  },
  {
    name: 'filter: a permission rule may test fields the caller cannot read',
    query: { fields: ['id'] },
    grants: { posts: { fields: ['id'], filter: { author: { email: { _ends_with: '@example.com' } } } }, authors: { fields: ['id'] } },
    plan: { select: { filter: { kind: 'm2o', related: 'authors', child: cmp('email', '_ends_with', '@example.com') } } },
  },
  {
    name: 'filter: a share scope narrows the read and the relational filter',
    query: { fields: ['id'], filter: { author: { name: { _eq: 'Ada' } } } },
    ctx: { scope: new Map<string, FilterNode>([['posts', { kind: 'bool', value: true }]]) as RowScope },
    plan: {
      select: {
        filter: { kind: 'and', children: [{ kind: 'm2o', child: { kind: 'and', children: [cmp('name', '_eq', 'Ada'), { kind: 'bool', value: false }] } }, { kind: 'bool', value: true }] },
      },
    },
  },
  // sort through relations
  {
    name: 'sort through an M2O: the hop carries the related row filter',
    query: { fields: ['id'], sort: ['-author.name'] },
    grants: READER,
    plan: { select: { sort: [desc('name', [{ fk: 'author', related: 'authors', filter: ADA }])] } },
  },
  {
    name: 'sort through an M2O without a row filter',
    query: { fields: ['id'], sort: ['author.age', 'id'] },
    plan: { select: { sort: [asc('age', [{ fk: 'author', related: 'authors', filter: null }]), asc('id')] } },
  },
  {
    name: 'sort through two M2O hops',
    collection: 'comments',
    query: { fields: ['id'], sort: ['post.author.name'] },
    grants: { comments: {}, ...READER },
    plan: { select: { sort: [asc('name', [{ fk: 'post', related: 'posts', filter: PUBLISHED }, { fk: 'author', related: 'authors', filter: ADA }])] } },
  },
  // search
  {
    name: 'search: text fields; a number also matches numeric fields',
    query: { fields: ['id'], search: ' 42 ' },
    plan: { select: { search: { text: '42', fields: ['id', 'title', 'body', 'status', 'views', 'price', 'author'], indexed: false } } },
  },
  {
    name: 'search: only readable, unconcealed text fields',
    collection: 'authors',
    query: { fields: ['id'], search: 'ada' },
    grants: READER,
    plan: { select: { search: { text: 'ada', fields: ['name'] } } },
  },
  // aggregate
  {
    name: 'aggregate: count * and sum, grouped, sorted by the count',
    query: { aggregate: { count: ['*'], sum: ['views'] }, groupBy: ['status'], sort: ['-count'], limit: 5 },
    plan: {
      select: null,
      aggregate: {
        collection: 'posts', groupBy: [{ name: 'status', field: 'status' }],
        functions: [{ fn: 'count', field: null }, { fn: 'sum', field: 'views' }],
        sort: [{ expr: { fn: { fn: 'count', field: null } }, desc: true }], filter: null, limit: 5, offset: 0,
      },
    },
  },
  {
    name: 'aggregate: grouped by a date function, sorted by the group, under the row filter',
    query: { aggregate: { avg: ['price'] }, groupBy: ['year(published_on)'], sort: ['year(published_on)'] },
    grants: READER,
    plan: {
      aggregate: {
        groupBy: [{ name: 'published_on_year', field: 'published_on', fn: { kind: 'date', fn: 'year' } }],
        functions: [{ fn: 'avg', field: 'price' }],
        sort: [{ expr: { group: { name: 'published_on_year' } }, desc: false }],
        filter: PUBLISHED, limit: 100,
      },
    },
  },
];

interface Refusal {
  name: string;
  collection?: string;
  query: Query;
  grants?: Record<string, Grant>;
  ctx?: Partial<PlanContext>;
  error: typeof InvalidQueryError | typeof ForbiddenError;
  message: string;
}

const REFUSALS: Refusal[] = [
  { name: 'unknown collection', collection: 'nope', query: {}, error: InvalidQueryError, message: 'Collection "nope" does not exist.' },
  { name: 'no read permission on the collection', query: {}, grants: { authors: {} }, error: ForbiddenError, message: "You don't have permission to access this." },
  { name: 'unknown field', query: { fields: ['id', 'nope'] }, error: InvalidQueryError, message: 'Invalid field "nope": it does not exist in "posts".' },
  { name: 'unknown nested field', query: { fields: ['author.nope'] }, error: InvalidQueryError, message: 'Invalid field "nope": it does not exist in "authors".' },
  { name: 'sub-fields of a plain column', query: { fields: ['title.x'] }, error: InvalidQueryError, message: 'Invalid field "title.*": "title" is not a relation.' },
  { name: 'malformed field path', query: { fields: ['id;drop'] }, error: InvalidQueryError, message: 'Invalid field "id;drop".' },
  {
    name: 'fields nested deeper than MAX_RELATIONAL_DEPTH', query: { fields: ['author.posts.title'] }, ctx: { limits: { ...LIMITS, maxRelationalDepth: 1 } },
    error: InvalidQueryError, message: 'Field "author.posts.title" is nested deeper than 1 relations.',
  },
  {
    name: 'A2O scope outside its collections', collection: 'pages_blocks', query: { fields: ['item:posts.id'] },
    error: InvalidQueryError, message: 'Invalid field "item:posts": not a collection of "item".',
  },
  { name: 'alias clashing with a field', query: { alias: { title: 'body' } }, error: InvalidQueryError, message: 'Alias "title" clashes with a field of "posts".' },
  { name: 'alias of an unknown field', query: { alias: { x: 'nope' } }, error: InvalidQueryError, message: 'Alias "x": field "nope" does not exist in "posts".' },
  // filters
  { name: 'filter on an unknown field', query: { filter: { nope: { _eq: 1 } } }, error: InvalidQueryError, message: 'Invalid filter: field "nope" does not exist in "posts".' },
  { name: 'filter with an unknown operator', query: { filter: { id: { _like: 1 } } }, error: InvalidQueryError, message: 'Invalid filter: unknown operator "_like" on field "id".' },
  { name: 'filter value of the wrong type', query: { filter: { id: { _eq: 'abc' } } }, error: InvalidQueryError, message: 'Invalid value "abc" for field "id": integer expected.' },
  { name: 'filter not an operator object', query: { filter: { id: 3 } }, error: InvalidQueryError, message: 'Invalid filter on field "id": expected an object of operators.' },
  { name: '_and without an array', query: { filter: { _and: { id: { _eq: 1 } } } }, error: InvalidQueryError, message: 'Invalid filter: "_and" needs an array.' },
  { name: 'filter on an alias field', query: { filter: { tags: { _null: true } } }, error: InvalidQueryError, message: 'Invalid filter: field "tags" has no value to compare.' },
  {
    name: '_some on a to-one relation', query: { filter: { author: { _some: { name: { _eq: 'x' } } } } },
    error: InvalidQueryError, message: 'Invalid filter on "author": "_some"/"_none" apply to to-many relations, "author" is to-one.',
  },
  {
    name: 'filter on an unreadable field', collection: 'authors', query: { filter: { email: { _eq: 'a@b.c' } } }, grants: READER,
    error: ForbiddenError, message: `You don't have permission to filter on field "email".`,
  },
  {
    name: 'relational filter on an unreadable field of the related collection', query: { filter: { author: { email: { _eq: 'a@b.c' } } } }, grants: READER,
    error: ForbiddenError, message: `You don't have permission to filter on field "email".`,
  },
  {
    name: 'relational filter into an unreadable collection', collection: 'pages', query: { filter: { '$FOLLOW(pages_blocks, page)': { id: { _eq: 1 } } } }, grants: { pages: {} },
    error: ForbiddenError, message: "You don't have permission to access this.",
  },
  {
    name: 'filter on a concealed field (not admin)', collection: 'authors', query: { filter: { secret: { _starts_with: 'a' } } }, grants: { authors: {} },
    error: ForbiddenError, message: `You don't have permission to filter on field "secret".`,
  },
  {
    name: '$FOLLOW on a field that is not an M2O to here', collection: 'pages', query: { filter: { '$FOLLOW(posts, author)': { id: { _eq: 1 } } } },
    error: InvalidQueryError, message: 'Invalid filter "$FOLLOW(posts, author)": "posts.author" is not a many-to-one relation to "pages".',
  },
  {
    name: 'date function on a text field', query: { filter: { 'year(title)': { _eq: 2024 } } },
    error: InvalidQueryError, message: 'Function "year" does not apply to field "title" of type string in "year(title)".',
  },
  {
    name: 'count of a to-one relation', query: { fields: ['count(author)'] },
    error: InvalidQueryError, message: 'Function "count" needs a to-many relation, "author" is not one (in "count(author)").',
  },
  // sort
  { name: 'sort on an unknown field', query: { sort: ['nope'] }, error: InvalidQueryError, message: 'Invalid sort: field "nope" does not exist in "posts".' },
  { name: 'sort on a json field', query: { sort: ['data'] }, error: InvalidQueryError, message: 'Invalid sort: field "data" cannot be sorted on.' },
  { name: 'sort on a json field through an M2O', query: { sort: ['author.profile'] }, error: InvalidQueryError, message: 'Invalid sort: field "profile" cannot be sorted on.' },
  { name: 'sort through an O2M', query: { sort: ['comments.id'] }, error: InvalidQueryError, message: 'Invalid sort: "comments" is not a many-to-one relation.' },
  { name: 'sort on an unreadable field', query: { sort: ['author.email'] }, grants: READER, error: ForbiddenError, message: `You don't have permission to sort on field "email".` },
  // aggregate
  { name: 'sum of a text field', query: { aggregate: { sum: ['title'] } }, error: InvalidQueryError, message: 'Aggregate "sum" needs a numeric field, "title" is string.' },
  { name: 'groupBy a json field', query: { aggregate: { count: ['*'] }, groupBy: ['data'] }, error: InvalidQueryError, message: 'Invalid groupBy: field "data" of type json cannot be grouped.' },
  { name: 'sum of *', query: { aggregate: { sum: ['*'] } }, error: InvalidQueryError, message: 'Aggregate "sum" needs a field, not "*".' },
  {
    name: 'aggregate sorted by something it does not compute', query: { aggregate: { count: ['*'] }, sort: ['title'] },
    error: InvalidQueryError, message: 'Invalid sort "title": sort an aggregate by a groupBy field or an aggregate function.',
  },
  {
    name: 'aggregate of an unreadable field', collection: 'authors', query: { aggregate: { max: ['email'] } }, grants: READER,
    error: ForbiddenError, message: `You don't have permission to access field "email".`,
  },
];

function contextFor(grants: Record<string, Grant> | undefined, over: Partial<PlanContext> = {}): PlanContext {
  return planContext(grants ? permissions(grants) : ALL, over);
}

describe('plan: (query, permissions) -> plan facts', () => {
  it.each(CASES)('$name', ({ collection, query, grants, ctx, plan }) => {
    expect(facts(planRead(contextFor(grants, ctx), collection ?? 'posts', query))).toMatchObject(plan);
  });
});

describe('plan: refusals', () => {
  it.each(REFUSALS)('$name', ({ collection, query, grants, ctx, error, message }) => {
    let thrown: unknown;
    try {
      planRead(contextFor(grants, ctx), collection ?? 'posts', query);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(error);
    expect(thrown).toMatchObject({ code: error === ForbiddenError ? 'FORBIDDEN' : 'INVALID_QUERY', message });
  });
});

describe('plan: identifiers come from the schema', () => {
  it('plan nodes hold the overview objects themselves (compile quotes their names)', () => {
    const ctx = contextFor(undefined);
    const plan = planRead(ctx, 'posts', { fields: ['id'], sort: ['author.name'] });
    expect(plan.select!.collection).toBe(ctx.schema.collections.posts);
    expect(plan.select!.sort[0].target.field).toBe(ctx.schema.collections.authors.fields.name);
  });

});
