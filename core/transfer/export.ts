/** GET /utils/export/{collection}: the items a query selects, as CSV or JSON text produced page by page, so memory
 * stays flat whatever the row count. The query goes through the same planner as GET /items (permission row filters
 * and field lists merged in, every identifier checked), then is read in pages of EXPORT_BATCH_SIZE:
 *  - sorted by the primary key only (the default order of a collection without a sort field, or `sort=id` /
 *    `sort=-id`): keyset pages, each its own statement (no connection or transaction held between pages, so a
 *    slow client holds nothing);
 *  - any other order: one REPEATABLE READ, READ ONLY transaction for a consistent snapshot, with a cursor over the
 *    ordered keys (the primary key breaking ties) fetched a page at a time. That holds one connection (under the
 *    embedded database: the database) for the length of the download.
 * Each page is then read by its key range (or its keys) with the planned fields, relations and filters, the JSON
 * built by Postgres as for /items. */
import type { Kysely } from 'kysely';
import { stringify } from 'csv-stringify/sync';
import { loadPermissions } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, run, type Executor } from '../db/database.ts';
import { allowLongStatements, hasLongBudget } from '../db/statement-budget.ts';
import { ForbiddenError, InvalidQueryError } from '../errors.ts';
import { itemsCollection } from '../items/collection.ts';
import { planContext } from '../items/read.ts';
import { cutRecords, planRecordAwareRead, type RecordCut } from '../items/record-reads.ts';
import { compileKeys, compileList, type CompiledRead } from '../query/compile-select.ts';
import type { FilterNode, MetaPlan, SelectPlan, SortPlan } from '../query/plan-types.ts';
import type { Query } from '../query/types.ts';
import type { FieldOverview } from '../schema/types.ts';
import { guardCsvCell } from './csv-guard.ts';

export type ExportFormat = 'csv' | 'json';

export function exportFormatOf(raw: unknown): ExportFormat {
  if (raw === undefined || raw === '' || raw === 'json') return 'json';
  if (raw === 'csv') return 'csv';
  throw new InvalidQueryError('"format" must be "csv" or "json".');
}

const NO_META: MetaPlan = { totalCount: null, filterCount: null };

function and(a: FilterNode | null, b: FilterNode): FilterNode {
  return a ? { kind: 'and', children: [a, b] } : b;
}

export interface ExportPlan {
  select: SelectPlan;
  pk: FieldOverview;
  /** Set when the order is the primary key alone: keyset paging in that direction. */
  keyset: { desc: boolean } | null;
  /** CSV columns: the top-level fields of the plan. */
  columns: string[];
  /** Records about items (revisions, versions) reached through relations, cut to what the caller may read. */
  cut: RecordCut | null;
}

/** Plans the export as GET /items would read it (404 unknown collection, 403 without read permission or for a
 * field or filter the caller may not use, 400 for a bad query), before any byte is sent. */
export async function planExport(ctx: ServiceContext, collectionName: string, query: Query): Promise<ExportPlan> {
  // A share token reads its one item through /items; it exports nothing.
  if (ctx.accountability.share) throw new ForbiddenError();
  const collection = itemsCollection(ctx, collectionName);
  if (query.aggregate || query.groupBy) throw new InvalidQueryError('An export does not take "aggregate" or "groupBy".');
  const permissions = await loadPermissions(ctx);
  const { read, cut } = planRecordAwareRead(planContext(ctx, permissions), collectionName, { ...query, meta: undefined, limit: query.limit ?? -1 });
  const select = read.select!;
  const pk = collection.fields[collection.primary!];
  const sort: SortPlan[] = select.sort.some((s) => s.target.chain.length === 0 && s.target.field.field === pk.field)
    ? select.sort
    : [...select.sort, { target: { chain: [], field: pk }, desc: false }];
  const only = sort.length === 1 ? sort[0] : null;
  return {
    select: { ...select, sort },
    pk,
    keyset: only && only.target.chain.length === 0 && only.target.field.field === pk.field ? { desc: only.desc } : null,
    // Names starting with `$` are the cut's own markers, never a field.
    columns: select.fields.map((f) => f.name).filter((name) => !name.startsWith('$')),
    cut,
  };
}

function keyValue(k: unknown): unknown {
  return typeof k === 'bigint' ? String(k) : k;
}

/** The JSON array text of the rows a page's filter selects (with the plan's filter), in the plan's order. */
async function page(ex: Executor, plan: ExportPlan, selects: FilterNode): Promise<string> {
  const statement = compileList({ ...plan.select, filter: and(plan.select.filter, selects), limit: null, offset: 0 }, NO_META);
  const [row] = await run<{ data: string }>(ex, statement.sql, statement.params);
  return plan.cut ? cutRecords(plan.cut, row.data) : row.data;
}

/** An administrator's export may take DB_LONG_STATEMENT_TIMEOUT per statement (a key walk that finds few matches in a
 * large table, the sort of a cursor); anyone else's has the ordinary budget. */
function longBudget(ctx: ServiceContext): boolean {
  return ctx.accountability.admin && hasLongBudget(ctx.config);
}

/** The keys of one keyset page and the page itself; with the long budget both in one short transaction (committed
 * before the page is sent, so nothing is held while the client reads). */
async function keysetPage(ctx: ServiceContext, plan: ExportPlan, keysSql: CompiledRead, selects: (keys: unknown[]) => FilterNode): Promise<{ keys: unknown[]; text: string | null }> {
  const read = async (ex: Executor) => {
    const keys = (await run<{ key: unknown }>(ex, keysSql.sql, keysSql.params)).map((r) => keyValue(r.key));
    return { keys, text: keys.length ? await page(ex, plan, selects(keys)) : null };
  };
  if (!longBudget(ctx)) return read(ctx.db);
  return inTransaction(ctx.db, async (trx) => {
    await allowLongStatements(trx, ctx.config);
    return read(trx);
  });
}

async function* keysetPages(ctx: ServiceContext, plan: ExportPlan, batchSize: number, desc: boolean): AsyncGenerator<string> {
  let remaining = plan.select.limit;
  let offset = plan.select.offset;
  let last: unknown;
  let first = true;
  while (remaining === null || remaining > 0) {
    const n = remaining === null ? batchSize : Math.min(batchSize, remaining);
    const after: FilterNode | null = first ? null : { kind: 'cmp', field: plan.pk, op: desc ? '_lt' : '_gt', value: last };
    const keysSql = compileKeys({ ...plan.select, filter: after ? and(plan.select.filter, after) : plan.select.filter, limit: n, offset });
    // The page is read by key range (a range scan, cheaper than probing each key) unless a limit must be kept
    // exactly: without a snapshot, a row inserted meanwhile inside the range is read too (once: the next page
    // starts after the range).
    const exact = remaining !== null;
    const { keys, text } = await keysetPage(ctx, plan, keysSql, (keys): FilterNode => {
      if (exact) return { kind: 'cmp', field: plan.pk, op: '_in', value: keys };
      const lo = desc ? keys[keys.length - 1] : keys[0];
      const hi = desc ? keys[0] : keys[keys.length - 1];
      return { kind: 'cmp', field: plan.pk, op: '_between', value: [lo, hi] };
    });
    if (text === null) return;
    yield text;
    if (keys.length < n) return;
    last = keys[keys.length - 1];
    first = false;
    offset = 0;
    if (remaining !== null) remaining -= keys.length;
  }
}

async function* cursorPages(ctx: ServiceContext, plan: ExportPlan, batchSize: number): AsyncGenerator<string> {
  if (ctx.db.isTransaction) throw new Error('An export opens its own transaction.');
  const trx = await (ctx.db as Kysely<any>).startTransaction().execute();
  let done = false;
  try {
    await run(trx, 'set transaction isolation level repeatable read, read only');
    if (longBudget(ctx)) await allowLongStatements(trx, ctx.config);
    const keysSql = compileKeys(plan.select);
    await run(trx, `declare svc_export_keys no scroll cursor for ${keysSql.sql}`, keysSql.params);
    for (;;) {
      const keys = (await run<{ key: unknown }>(trx, `fetch forward ${batchSize} from svc_export_keys`)).map((r) => keyValue(r.key));
      if (keys.length === 0) break;
      yield await page(trx, plan, { kind: 'cmp', field: plan.pk, op: '_in', value: keys });
      if (keys.length < batchSize) break;
    }
    done = true;
  } finally {
    // A read-only transaction: commit and rollback are alike; rollback also covers a failed statement.
    if (done) await trx.commit().execute();
    else await trx.rollback().execute().catch(() => {});
  }
}

function pagesOf(ctx: ServiceContext, plan: ExportPlan): AsyncGenerator<string> {
  const batchSize = Math.max(1, ctx.config.transfer.exportBatchSize);
  return plan.keyset ? keysetPages(ctx, plan, batchSize, plan.keyset.desc) : cursorPages(ctx, plan, batchSize);
}

/** A wire value as CSV cell text: null stays null (an empty cell), objects and arrays as JSON text, and any value of
 * a json field as JSON text (a JSON string `"a"` stays distinct from the text a); a formula guarded (csv-guard.ts). */
function cellText(value: unknown, json: boolean): string | null {
  if (value === null || value === undefined) return null;
  if (json) return guardCsvCell(JSON.stringify(value));
  if (typeof value === 'string') return guardCsvCell(value);
  if (typeof value === 'object') return guardCsvCell(JSON.stringify(value));
  return guardCsvCell(String(value));
}

/** CSV text: the header row first, then the rows. An empty string is written quoted (`""`) and null as an empty
 * cell, so an import of the file tells them apart. */
function csvText(rows: (string | null)[][], header: string[] | null): string {
  return stringify(rows, { quoted_match: /^$/, ...(header ? { header: true, columns: header } : {}) });
}

async function* jsonChunks(source: AsyncGenerator<string>): AsyncGenerator<string> {
  let first = true;
  for await (const page of source) {
    if (page.length <= 2) continue;
    // json_agg text: `[{...}, {...}]`; the pages are joined into one array.
    yield `${first ? '[' : ','}${page.slice(1, -1)}`;
    first = false;
  }
  yield first ? '[]' : ']';
}

async function* csvChunks(source: AsyncGenerator<string>, plan: ExportPlan): AsyncGenerator<string> {
  const columns = plan.columns;
  const json = plan.select.fields.map((f) => f.kind === 'column' && f.field.type === 'json');
  let header: string[] | null = columns;
  for await (const page of source) {
    const rows = (JSON.parse(page) as Record<string, unknown>[]).map((r) => columns.map((c, i) => cellText(r[c], json[i])));
    if (rows.length === 0) continue;
    yield csvText(rows, header);
    header = null;
  }
  if (header) yield columns.length ? csvText([], header) : '';
}

/** The export as text chunks. The first chunk comes once the first page has been read, so a failure of the first
 * statement can still be answered with an error response. Returning early (the client went away) ends the reading
 * and releases what it holds. */
export function exportChunks(ctx: ServiceContext, plan: ExportPlan, format: ExportFormat): AsyncGenerator<string> {
  return format === 'csv' ? csvChunks(pagesOf(ctx, plan), plan) : jsonChunks(pagesOf(ctx, plan));
}
