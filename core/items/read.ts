/** Reading items: parse -> plan -> compile -> one statement -> the response JSON text. The database
 * builds the JSON, so rows are never materialised as JavaScript objects on the hot path. */
import { loadPermissions, type PermissionSet } from '../access/permissions.ts';
import { readAccess } from '../access/read-access.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run } from '../db/database.ts';
import { ForbiddenError, InvalidQueryError } from '../errors.ts';
import { compileAggregate, compileKeys, compileList, compileOne, type CompiledRead } from '../query/compile-select.ts';
import { CompiledCache, mentionsNow } from '../query/compiled-cache.ts';
import { coerceScalar } from '../query/filter-values.ts';
import { planLimits } from '../query/limits.ts';
import { planRead, type PlanContext } from '../query/plan.ts';
import type { FilterNode, ReadPlan, RowScope } from '../query/plan-types.ts';
import type { Query } from '../query/types.ts';
import { ident } from '../db/database.ts';
import { itemsCollection } from './collection.ts';
import { cutRecords, planRecordAwareRead, type RecordCut } from './record-reads.ts';

export type PrimaryKey = string | number;

/** A query, or a function producing it (so a cache hit skips parsing), plus an optional identity of the
 * raw query (e.g. the query string) under which the compiled statement may be cached. */
export interface QueryInput {
  query: Query | (() => Query);
  cacheKey?: string;
}

/** One cache per schema overview object: a reload (schema or permission change) starts a fresh one. */
const compiledCaches = new WeakMap<object, CompiledCache>();

function cacheFor(ctx: ServiceContext): CompiledCache {
  let cache = compiledCaches.get(ctx.schema);
  if (!cache) {
    cache = new CompiledCache();
    compiledCaches.set(ctx.schema, cache);
  }
  return cache;
}

function cacheKeyOf(ctx: ServiceContext, kind: string, collection: string, input: QueryInput): string | null {
  if (input.cacheKey === undefined) return null;
  const a = ctx.accountability;
  // A share's statements hold its item: the scope is part of the key (an edited share keeps its id).
  const share = a.share ? `${a.share.id}:${a.share.collection}:${a.share.item}` : '';
  return `${a.user}|${a.role}|${a.admin ? 1 : 0}|${share}|${a.policies.join(',')}|${kind}|${collection}|${input.cacheKey}`;
}

function queryOf(input: QueryInput): Query {
  return typeof input.query === 'function' ? input.query() : input.query;
}

/** What the output of a compiled statement needs cut before it is answered (records about items the caller
 * reads under the items' permissions: record-reads.ts). Keyed by the cached statement object. */
const recordCuts = new WeakMap<CompiledRead, RecordCut>();

/** Rows in reach of both scopes (a collection in only one of them is out of reach). */
function bothScopes(a: RowScope, b: RowScope): RowScope {
  const out = new Map<string, FilterNode>();
  for (const [name, node] of a) {
    const other = b.get(name);
    if (other) out.set(name, { kind: 'and', children: [node, other] });
  }
  return out;
}

/** Compiles through the cache. Statements depending on $NOW (in the query or in permission filters) are
 * compiled every time. A share token plans with its role's permissions within the share's reach. `narrow`:
 * a row scope a service adds to its own read (never cached). */
async function compiled(
  ctx: ServiceContext, kind: string, collectionName: string, input: QueryInput, build: (q: Query, plan: (q: Query) => ReadPlan) => CompiledRead,
  narrow?: RowScope,
): Promise<CompiledRead> {
  const key = narrow ? null : cacheKeyOf(ctx, kind, collectionName, input);
  if (key) {
    const hit = cacheFor(ctx).get(key);
    if (hit) return hit;
  }
  const { permissions, scope } = await readAccess(ctx);
  const query = queryOf(input);
  const context = planContext(ctx, permissions, narrow && scope ? bothScopes(scope, narrow) : narrow ?? scope);
  const last: { cut: RecordCut | null } = { cut: null };
  const result = build(query, (q) => {
    const planned = planRecordAwareRead(context, collectionName, q);
    last.cut = planned.cut;
    return planned.read;
  });
  if (last.cut) recordCuts.set(result, last.cut);
  if (key && !permissions.clockDependent && !mentionsNow(query.filter) && !mentionsNow(query.deep)) {
    cacheFor(ctx).set(key, result);
  }
  return result;
}

/** The planner's context for a caller: its schema, permissions and the query limits of the configuration
 * (nested relations page as in GET /items). */
export function planContext(ctx: ServiceContext, permissions: PermissionSet, scope?: RowScope): PlanContext {
  const { config } = ctx;
  return {
    schema: ctx.schema,
    permissions,
    accountability: ctx.accountability,
    limits: planLimits(config),
    scope,
  };
}

interface ListRow { data: string; total_count?: number; filter_count?: number }

function withMeta(row: ListRow): string {
  if (row.total_count === undefined && row.filter_count === undefined) return `{"data":${row.data}}`;
  const meta: Record<string, number> = {};
  if (row.total_count !== undefined) meta.total_count = Number(row.total_count);
  if (row.filter_count !== undefined) meta.filter_count = Number(row.filter_count);
  return `{"data":${row.data},"meta":${JSON.stringify(meta)}}`;
}

/** GET /items/{collection}: `{"data":[...],"meta"?:{...}}` as JSON text. `narrow`: a row scope the calling
 * service adds (its read is not cached). */
export async function readItems(ctx: ServiceContext, collectionName: string, input: QueryInput | Query, narrow?: RowScope): Promise<string> {
  itemsCollection(ctx, collectionName);
  checkShareTop(ctx, collectionName);
  const statement = await compiled(ctx, 'list', collectionName, asInput(input), (query, plan) => {
    const read = plan(query);
    return read.aggregate ? compileAggregate(read.aggregate, read.meta) : compileList(read.select!, read.meta);
  }, narrow);
  const [row] = await run<ListRow>(ctx.db, statement.sql, statement.params);
  const cut = recordCuts.get(statement);
  if (cut) row.data = cutRecords(cut, row.data);
  return withMeta(row);
}

/** A share token reads its item at the top level: other collections are FORBIDDEN (related items are read
 * through it, nested), and its scope narrows lists of the shared collection to the item (share reach). */
function checkShareTop(ctx: ServiceContext, collectionName: string, key?: PrimaryKey): void {
  const share = ctx.accountability.share;
  if (share && (share.collection !== collectionName || (key !== undefined && String(key) !== share.item))) throw new ForbiddenError();
}

function asInput(input: QueryInput | Query): QueryInput {
  // A Query never has a `query` key; a QueryInput always does.
  return 'query' in input ? input as QueryInput : { query: input as Query };
}

function coerceKey(ctx: ServiceContext, collectionName: string, key: PrimaryKey): PrimaryKey {
  const c = ctx.schema.collections[collectionName];
  try {
    return coerceScalar(c.fields[c.primary!], key) as PrimaryKey;
  } catch (err) {
    if (err instanceof InvalidQueryError) throw new ForbiddenError();
    throw err;
  }
}

/** The statement reading one item (`select ... as data`) with its parameters bound, and the cut its output needs. */
async function oneStatement(
  ctx: ServiceContext, collectionName: string, key: PrimaryKey, input: QueryInput | Query, narrow?: RowScope,
): Promise<CompiledRead & { cut: RecordCut | undefined }> {
  itemsCollection(ctx, collectionName);
  checkShareTop(ctx, collectionName, key);
  const pk = coerceKey(ctx, collectionName, key);
  const statement = await compiled(ctx, 'one', collectionName, asInput(input), (query, plan) => {
    const read = plan({ ...query, limit: undefined, offset: undefined, page: undefined, meta: undefined });
    if (!read.select) throw new InvalidQueryError('Aggregates are not available on a single item.');
    return compileOne(read.select, pk);
  }, narrow);
  // compileOne binds the primary key as $1, so a cached statement only needs it swapped.
  return {
    sql: statement.sql, params: statement.params[0] === pk ? statement.params : [pk, ...statement.params.slice(1)], cut: recordCuts.get(statement),
  };
}

/** The JSON text of one item, or null when it does not exist or is not visible to the caller. `narrow`: a row
 * scope the calling service adds (its read is not cached). */
export async function readItemData(ctx: ServiceContext, collectionName: string, key: PrimaryKey, input: QueryInput | Query, narrow?: RowScope): Promise<string | null> {
  const statement = await oneStatement(ctx, collectionName, key, input, narrow);
  const [row] = await run<{ data: string | null }>(ctx.db, statement.sql, statement.params);
  return statement.cut && row.data !== null ? cutRecords(statement.cut, row.data) : row.data;
}

/** readItemData plus one more text column computed by the same statement, so a caller that needs another
 * small lookup with the item (the version of a preview read) pays one round trip. `column.sql` is a trusted
 * SQL expression whose parameters are numbered from $1; they are renumbered after the item's. */
export async function readItemDataWith(
  ctx: ServiceContext, collectionName: string, key: PrimaryKey, input: QueryInput | Query, column: { sql: string; params: unknown[] },
): Promise<{ data: string | null; extra: string | null }> {
  const statement = await oneStatement(ctx, collectionName, key, input);
  const [row] = await run<{ data: string | null; extra: string | null }>(ctx.db, withColumn(statement, column.sql), [...statement.params, ...column.params]);
  return { data: statement.cut && row.data !== null ? cutRecords(statement.cut, row.data) : row.data, extra: row.extra };
}

/** The item statement's SQL with the extra column, built once per statement text and column (the same string
 * object each time, so the driver's prepared-statement lookup does not hash a fresh string per request). */
const withColumnCache = new Map<string, Map<string, string>>();

function withColumn(statement: CompiledRead, column: string): string {
  let byColumn = withColumnCache.get(column);
  if (!byColumn) withColumnCache.set(column, byColumn = new Map());
  let sql = byColumn.get(statement.sql);
  if (sql === undefined) {
    const offset = statement.params.length;
    sql = `${statement.sql}, ${column.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)} as extra`;
    if (byColumn.size >= 1000) byColumn.clear();
    byColumn.set(statement.sql, sql);
  }
  return sql;
}

/** GET /items/{collection}/{pk}: missing or invisible items are FORBIDDEN, as Directus answers. */
export async function readItem(ctx: ServiceContext, collectionName: string, key: PrimaryKey, query: QueryInput | Query): Promise<string> {
  const data = await readItemData(ctx, collectionName, key, query);
  if (data === null) throw new ForbiddenError();
  return `{"data":${data}}`;
}

/** GET /items/{singleton}: the one item, created with its defaults if none exists yet. */
export async function readSingleton(ctx: ServiceContext, collectionName: string, query: QueryInput | Query): Promise<string> {
  const collection = itemsCollection(ctx, collectionName);
  const pk = collection.primary!;
  let [existing] = await run<{ key: PrimaryKey }>(ctx.db, `select ${ident(pk)} as key from ${ident(collectionName)} limit 1`);
  if (!existing) {
    if (!ctx.accountability.admin && !(await loadPermissions(ctx)).get(collectionName, 'read')) throw new ForbiddenError();
    existing = await inTransaction(ctx.db, async (trx) => {
      await run(trx, 'select pg_advisory_xact_lock(hashtext($1))', [`svc_singleton:${collectionName}`]);
      const [row] = await run<{ key: PrimaryKey }>(trx, `select ${ident(pk)} as key from ${ident(collectionName)} limit 1`);
      if (row) return row;
      const [created] = await run<{ key: PrimaryKey }>(trx, `insert into ${ident(collectionName)} default values returning ${ident(pk)} as key`);
      return created;
    });
  }
  const data = await readItemData(ctx, collectionName, existing.key, query);
  if (data === null) throw new ForbiddenError();
  return `{"data":${data}}`;
}

/** Keys of the rows a query selects (filter, search, sort, limit), for writes by query. The permission
 * row filter is not applied: writes check only that a permission exists (SPEC.md > Items rule 5). */
export async function selectKeys(ctx: ServiceContext, collectionName: string, query: Query): Promise<PrimaryKey[]> {
  itemsCollection(ctx, collectionName);
  const full: PermissionSet = { get: () => ({ filter: null, fields: null, validation: null, presets: null }), clockDependent: false };
  const plan = planRead(planContext(ctx, full), collectionName, { ...query, fields: [ctx.schema.collections[collectionName].primary!], meta: undefined, limit: query.limit ?? -1 });
  if (!plan.select) throw new InvalidQueryError('Aggregates cannot select items to write.');
  const compiled = compileKeys(plan.select);
  const rows = await run<{ key: PrimaryKey }>(ctx.db, compiled.sql, compiled.params);
  return rows.map((r) => r.key);
}
