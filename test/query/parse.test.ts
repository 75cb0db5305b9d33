/** Stage 1, parse (core/query/parse.ts), table-driven and without a database: a raw query (a query string as qs
 * parses it, or a /search JSON body) -> the typed Query; a bad one -> INVALID_QUERY naming the parameter. */
import { describe, expect, it } from 'vitest';
import { InvalidQueryError } from '../../core/errors.ts';
import { parseDeepOptions, parseQuery, type ParseLimits } from '../../core/query/parse.ts';
import type { Query } from '../../core/query/types.ts';

/** Arrays count as a level: `{_and: [{author: {name: {_eq: 1}}}]}` is 5 deep. */
const LIMITS: ParseLimits = { maxDepth: 5, maxLimit: -1 };

interface Case {
  name: string;
  raw: Record<string, unknown>;
  query: Query;
  limits?: ParseLimits;
}

const CASES: Case[] = [
  { name: 'nothing', raw: {}, query: {} },
  { name: 'unknown parameters are left to the caller', raw: { access_token: 'x', version: 'draft' }, query: {} },
  // fields
  { name: 'fields, comma list', raw: { fields: 'id,title, author.name ,' }, query: { fields: ['id', 'title', 'author.name'] } },
  { name: 'fields, array (fields[]=)', raw: { fields: ['id', 'comments.*'] }, query: { fields: ['id', 'comments.*'] } },
  { name: 'fields, array of comma lists', raw: { fields: ['id,title', 'body'] }, query: { fields: ['id', 'title', 'body'] } },
  { name: 'fields, JSON array', raw: { fields: '["id","author.*"]' }, query: { fields: ['id', 'author.*'] } },
  { name: 'fields, empty', raw: { fields: '' }, query: { fields: [] } },
  // filter
  { name: 'filter, JSON', raw: { filter: '{"title":{"_eq":"Hello"}}' }, query: { filter: { title: { _eq: 'Hello' } } } },
  { name: 'filter, JSON with whitespace', raw: { filter: '  {"id":{"_in":[1,2]}} ' }, query: { filter: { id: { _in: [1, 2] } } } },
  { name: 'filter, brackets (filter[title][_eq]=)', raw: { filter: { title: { _eq: 'Hello' } } }, query: { filter: { title: { _eq: 'Hello' } } } },
  {
    name: 'filter, brackets with _and and a relation',
    raw: { filter: { _and: [{ author: { name: { _eq: 'Ada' } } }, { status: { _neq: 'draft' } }] } },
    query: { filter: { _and: [{ author: { name: { _eq: 'Ada' } } }, { status: { _neq: 'draft' } }] } },
  },
  { name: 'filter, empty string is no filter', raw: { filter: '' }, query: {} },
  { name: 'filter, values are not coerced here', raw: { filter: { id: { _gt: '3' } } }, query: { filter: { id: { _gt: '3' } } } },
  // sort
  { name: 'sort, comma list', raw: { sort: '-published_on,title' }, query: { sort: ['-published_on', 'title'] } },
  { name: 'sort, array', raw: { sort: ['author.name', '-id'] }, query: { sort: ['author.name', '-id'] } },
  { name: 'sort, JSON array', raw: { sort: '["-id"]' }, query: { sort: ['-id'] } },
  { name: 'sort, empty string is no sort', raw: { sort: '' }, query: {} },
  // limit, offset, page
  { name: 'limit, offset, page as strings', raw: { limit: '10', offset: '20', page: '3' }, query: { limit: 10, offset: 20, page: 3 } },
  { name: 'limit as a number (JSON body)', raw: { limit: 5, offset: 0 }, query: { limit: 5, offset: 0 } },
  { name: 'limit -1 = all rows', raw: { limit: '-1' }, query: { limit: -1 } },
  { name: 'limit at the maximum', raw: { limit: '50' }, query: { limit: 50 }, limits: { maxDepth: 5, maxLimit: 50 } },
  { name: 'limit, offset, page empty are absent', raw: { limit: '', offset: '', page: '' }, query: {} },
  { name: 'limit with spaces', raw: { limit: ' 7 ' }, query: { limit: 7 } },
  // meta
  { name: 'meta *', raw: { meta: '*' }, query: { meta: ['total_count', 'filter_count'] } },
  { name: 'meta, one key', raw: { meta: 'filter_count' }, query: { meta: ['filter_count'] } },
  { name: 'meta, repeated keys once', raw: { meta: ['total_count', 'total_count,filter_count'] }, query: { meta: ['total_count', 'filter_count'] } },
  // search
  { name: 'search', raw: { search: 'hello world' }, query: { search: 'hello world' } },
  { name: 'search, empty is absent', raw: { search: '' }, query: {} },
  // deep
  {
    name: 'deep, brackets',
    raw: { deep: { comments: { _limit: '2', _sort: '-id', _filter: { text: { _contains: 'a' } } } } },
    query: { deep: { comments: { _limit: '2', _sort: '-id', _filter: { text: { _contains: 'a' } } } } },
  },
  {
    name: 'deep, JSON, nested two levels',
    raw: { deep: '{"author":{"posts":{"_limit":1,"_fields":"id"}}}' },
    query: { deep: { author: { posts: { _limit: 1, _fields: 'id' } } } },
  },
  // aggregate, groupBy
  { name: 'aggregate, brackets', raw: { aggregate: { count: '*', sum: 'views,price' } }, query: { aggregate: { count: ['*'], sum: ['views', 'price'] } } },
  { name: 'aggregate, JSON', raw: { aggregate: '{"avg":["age"],"countDistinct":"status"}' }, query: { aggregate: { avg: ['age'], countDistinct: ['status'] } } },
  { name: 'groupBy, comma list with a function', raw: { groupBy: 'status,year(published_on)' }, query: { groupBy: ['status', 'year(published_on)'] } },
  { name: 'groupBy, JSON array', raw: { groupBy: '["author"]' }, query: { groupBy: ['author'] } },
  // alias, backlink
  { name: 'alias, brackets', raw: { alias: { writer: 'author', n: 'id' } }, query: { alias: { writer: 'author', n: 'id' } } },
  { name: 'alias, JSON', raw: { alias: '{"writer":"author"}' }, query: { alias: { writer: 'author' } } },
  { name: 'backlink=false', raw: { backlink: 'false' }, query: { backlink: false } },
  { name: 'backlink=1', raw: { backlink: '1' }, query: { backlink: true } },
  { name: 'backlink as a boolean (JSON body)', raw: { backlink: false }, query: { backlink: false } },
  // everything at once (a /search body)
  {
    name: 'a whole /search body',
    raw: {
      fields: ['id', 'title', 'author.name'], filter: { status: { _eq: 'published' } }, sort: ['-id'], limit: 25, page: 2,
      meta: ['filter_count'], search: 'x', deep: { comments: { _limit: 3 } }, backlink: true,
    },
    query: {
      fields: ['id', 'title', 'author.name'], filter: { status: { _eq: 'published' } }, sort: ['-id'], limit: 25, page: 2,
      meta: ['filter_count'], search: 'x', deep: { comments: { _limit: 3 } }, backlink: true,
    },
  },
];

interface Bad {
  name: string;
  raw: Record<string, unknown>;
  message: string;
  limits?: ParseLimits;
}

const BAD: Bad[] = [
  { name: 'filter, broken JSON', raw: { filter: '{"title":' }, message: 'Invalid JSON in "filter" query parameter.' },
  { name: 'filter, a JSON array', raw: { filter: '[1,2]' }, message: '"filter" must be an object.' },
  { name: 'filter, a plain string', raw: { filter: 'title=x' }, message: '"filter" must be an object.' },
  { name: 'filter, too deep', raw: { filter: { a: { b: { c: { d: { e: { _eq: 1 } } } } } } }, message: '"filter" is nested deeper than 5 levels.' },
  { name: 'fields, a number', raw: { fields: [1] }, message: '"fields" must be a comma separated list or an array of strings.' },
  { name: 'fields, broken JSON', raw: { fields: '["id"' }, message: 'Invalid JSON in "fields" query parameter.' },
  { name: 'sort, an object', raw: { sort: { a: 1 } }, message: '"sort" must be a comma separated list or an array of strings.' },
  { name: 'limit, not a number', raw: { limit: 'ten' }, message: '"limit" must be an integer.' },
  { name: 'limit, below -1', raw: { limit: '-2' }, message: '"limit" must be an integer.' },
  { name: 'limit, a fraction', raw: { limit: 1.5 }, message: '"limit" must be an integer.' },
  { name: 'limit, over the maximum', raw: { limit: '51' }, message: '"limit" may not exceed 50.', limits: { maxDepth: 5, maxLimit: 50 } },
  { name: 'limit -1 under a maximum', raw: { limit: '-1' }, message: '"limit" may not exceed 50.', limits: { maxDepth: 5, maxLimit: 50 } },
  { name: 'offset, negative', raw: { offset: '-1' }, message: '"offset" must be an integer >= 0.' },
  { name: 'page, zero', raw: { page: '0' }, message: '"page" must be an integer >= 1.' },
  { name: 'search, an array', raw: { search: ['a', 'b'] }, message: '"search" must be a string.' },
  { name: 'meta, unknown key', raw: { meta: 'total_count,everything' }, message: 'Unknown meta key "everything".' },
  { name: 'deep, unknown option', raw: { deep: { comments: { _limt: 2 } } }, message: 'Unknown deep option "_limt" in "deep[comments]".' },
  { name: 'deep, a level that is not an object', raw: { deep: { comments: 'x' } }, message: '"deep[comments]" must be an object.' },
  { name: 'deep, broken JSON', raw: { deep: '{"comments":' }, message: 'Invalid JSON in "deep" query parameter.' },
  { name: 'aggregate, unknown function', raw: { aggregate: { median: 'age' } }, message: 'Unknown aggregate function "median".' },
  { name: 'aggregate, countAll is not a query function', raw: { aggregate: { countAll: '*' } }, message: 'Unknown aggregate function "countAll".' },
  { name: 'aggregate, a field list of numbers', raw: { aggregate: { sum: [1] } }, message: '"aggregate[sum]" must be a comma separated list or an array of strings.' },
  { name: 'aggregate, a string', raw: { aggregate: 'count' }, message: '"aggregate" must be an object.' },
  { name: 'groupBy, an object', raw: { groupBy: { a: 1 } }, message: '"groupBy" must be a comma separated list or an array of strings.' },
  { name: 'alias, empty target', raw: { alias: { writer: '' } }, message: '"alias[writer]" must name a field.' },
  { name: 'alias, a string', raw: { alias: 'writer' }, message: '"alias" must be an object.' },
  { name: 'backlink, not a boolean', raw: { backlink: 'maybe' }, message: '"backlink" must be true or false.' },
];

describe('parse: raw query -> Query', () => {
  it.each(CASES)('$name', ({ raw, query, limits }) => {
    expect(parseQuery(raw, limits ?? LIMITS)).toEqual(query);
  });
});

describe('parse: bad input -> INVALID_QUERY naming the parameter', () => {
  it.each(BAD)('$name', ({ raw, message, limits }) => {
    let error: unknown;
    try {
      parseQuery(raw, limits ?? LIMITS);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidQueryError);
    expect(error).toMatchObject({ code: 'INVALID_QUERY', status: 400, message });
  });
});

describe('parse: the options of one deep level', () => {
  const cases: { name: string; level: Record<string, unknown>; query?: Query; message?: string }[] = [
    {
      name: 'every option',
      level: { _fields: 'id,text', _filter: '{"text":{"_nnull":true}}', _sort: '-id', _limit: '2', _offset: '1', _page: '3', _search: 'a' },
      query: { fields: ['id', 'text'], filter: { text: { _nnull: true } }, sort: ['-id'], limit: 2, offset: 1, page: 3, search: 'a' },
    },
    { name: 'nested levels are not options', level: { _limit: 1, author: { _limit: 2 } }, query: { limit: 1 } },
    { name: 'bad _limit names its path', level: { _limit: 'x' }, message: '"deep[comments][_limit]" must be an integer.' },
    { name: 'bad _filter names its path', level: { _filter: '{' }, message: 'Invalid JSON in "deep[comments][_filter]" query parameter.' },
    { name: 'bad _search names its path', level: { _search: 3 }, message: '"deep[comments][_search]" must be a string.' },
  ];
  it.each(cases)('$name', ({ level, query, message }) => {
    if (query) expect(parseDeepOptions(level, LIMITS, 'deep[comments]')).toEqual(query);
    else expect(() => parseDeepOptions(level, LIMITS, 'deep[comments]')).toThrow(new InvalidQueryError(message!));
  });
});
