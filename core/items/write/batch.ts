/** Batch writes of flat items (no nested relational payload) in a constant number of statements: a batch
 * create is one multi-row INSERT (DEFAULT where an item leaves a column out), a batch update one UPDATE per
 * distinct set of columns, joined to the items' values; activity and revisions go in the one flush of
 * runWrite. Items carrying nested writes take the per-item path. */
import { ident, PREPARE_MARK, run } from '../../db/database.ts';
import { ForbiddenError } from '../../errors.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { track } from './context.ts';
import { ensureKey } from './create.ts';
import { keyArrayCast, primaryField } from './keys.ts';
import type { PreparedPayload } from './payload.ts';
import { deltaIsColumns, keyFromRow, redactDelta, returning, snapshotSql, type WrittenRow } from './sql.ts';
import type { ServiceContext } from '../../context.ts';
import type { Payload, PrimaryKey, WriteContext } from './types.ts';

/** Bound parameters per statement stay well below Postgres' 65535. */
const MAX_PARAMS = 30_000;

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** The insert of flat prepared payloads that all set the same columns, as a statement whose text does not depend
 * on the number of items: the items are one JSON parameter read by json_populate_recordset (every value converted
 * by its column's input function, as updateBatchFlat does), so Postgres parses and plans it once per connection
 * (a multi-row VALUES list of n x columns parameters is parsed and planned again on every request). Null when the
 * items differ in their columns (DEFAULT then fills what an item leaves out: insertValuesSql). */
function insertRecordsetSql(collection: CollectionOverview, prepared: PreparedPayload[], params: unknown[]): string | null {
  const names = Object.keys(prepared[0].columns);
  if (names.length === 0) return null;
  for (const p of prepared) {
    const columns = Object.keys(p.columns);
    if (columns.length !== names.length || !names.every((n) => Object.hasOwn(p.columns, n))) return null;
  }
  const table = ident(collection.collection);
  const list = names.map(ident).join(', ');
  params.push(`[${prepared.map((p) => recordJson(collection, names, p.columns)).join(',')}]`);
  // The function scan yields the array's elements in order, so RETURNING still follows the payload order.
  return `insert into ${table} as _row (${list}) select ${list} from json_populate_recordset(null::${table}, $${params.length}::json)`;
}

/** The multi-row insert of flat prepared payloads (null when it would bind too many parameters for one statement). */
function insertValuesSql(collection: CollectionOverview, prepared: PreparedPayload[], params: unknown[]): string | null {
  const names = [...new Set(prepared.flatMap((p) => Object.keys(p.columns)))];
  if (names.length === 0) names.push(primaryField(collection).field);
  if (names.length * prepared.length + params.length > MAX_PARAMS) return null;
  const tuples = prepared.map((p) => `(${names.map((n) => {
    if (!Object.hasOwn(p.columns, n)) return 'default';
    params.push(p.columns[n]);
    return `$${params.length}`;
  }).join(', ')})`);
  return `insert into ${ident(collection.collection)} as _row (${names.map(ident).join(', ')}) values ${tuples.join(', ')}`;
}

/** $1..$6 of the batch statements' activity insert: the caller (user, ip, user agent, origin), the collection and
 * the impersonator. */
function activityParams(ctx: ServiceContext, collection: CollectionOverview): unknown[] {
  const a = ctx.accountability;
  return [a.user, a.ip?.slice(0, 50) ?? null, a.userAgent, a.origin?.slice(0, 255) ?? null, collection.collection, a.impersonatedBy ?? null];
}

/** A batch create of flat items outside a transaction as ONE statement: the rows, their activity and their
 * revisions chained through data-modifying CTEs (as fast.ts does for one row); each revision gets its item's
 * delta by position, RETURNING yielding the rows in the order of the VALUES list. Null when the batch is too
 * big for one statement (the caller then writes it in chunks inside a transaction). */
export async function insertBatchWithActivity(
  ctx: ServiceContext, collection: CollectionOverview, prepared: PreparedPayload[], version: string | null,
): Promise<PrimaryKey[] | null> {
  if (prepared.length === 0) return [];
  const mode = collection.accountability;
  const params: unknown[] = [];
  const pk = ident(collection.primary!);
  let sql: string;
  // A uuid key is drawn for an item without one (the same rule as a single create).
  for (const p of prepared) ensureKey(collection, p.columns);
  let prepare = false;
  const insertOf = () => {
    const recordset = insertRecordsetSql(collection, prepared, params);
    prepare = recordset !== null;
    return recordset ?? insertValuesSql(collection, prepared, params);
  };
  if (!mode) {
    const insert = insertOf();
    if (!insert) return null;
    sql = `${insert} returning _row.${pk} as pk`;
  } else {
    params.push(...activityParams(ctx, collection));
    const revisions = mode === 'all';
    if (revisions) params.push(version);
    const insert = insertOf();
    if (!insert) return null;
    // The revisions' deltas: the recordset parameter itself when each item's element is its delta (recordJson
    // splices json values in as the JSON they hold, as redactDelta parses them), so the items cross the wire and
    // are serialized once; otherwise their own JSON array.
    let deltas = `$${params.length}::json`;
    if (revisions && !(prepare && prepared.every((p) => deltaIsColumns(collection, p.columns)))) {
      params.push(`[${prepared.map((p) => JSON.stringify(redactDelta(collection, p.columns) ?? {})).join(',')}]`);
      deltas = `$${params.length}::json`;
    }
    sql = `with _w as (${insert} returning _row.*),
      _n as (select _w, row_number() over () as _i from _w),
      _a as (insert into svc_activity (action, "user", ip, user_agent, origin, collection, item, impersonated_by)
        select 'create', $1::uuid, $2, $3, $4, $5, (_n._w).${pk}::text, $6::uuid from _n order by _n._i returning id, item)`;
    if (revisions) {
      sql += `, _r as (insert into svc_revisions (activity, collection, item, data, delta, version)
        select _a.id, $5, _a.item, ${snapshotSql(collection, '_s')}, _d.value, $7::uuid
        from _n cross join lateral (select (_n._w).*) as _s join _a on _a.item = (_n._w).${pk}::text
          join json_array_elements(${deltas}) with ordinality as _d(value, i) on _d.i = _n._i
        order by _n._i)`;
    }
    sql += ` select (_n._w).${pk} as pk from _n order by _n._i`;
  }
  const rows = await run<{ pk: unknown }>(ctx.db, prepare ? PREPARE_MARK + sql : sql, params);
  return rows.map((r) => keyFromRow(r.pk));
}

/** Flat updates of distinct keys that all set the same columns (the primary key not among them), outside a
 * transaction, as ONE statement: the rows joined to the items' values, their activity and their revisions chained
 * through data-modifying CTEs (as fast.ts does for one row); each revision gets its item's delta by key. The keys
 * that had a row, as text. */
export async function updateBatchWithActivity(
  ctx: ServiceContext, collection: CollectionOverview, items: { key: PrimaryKey; columns: Payload }[], version: string | null,
): Promise<Set<string>> {
  const pk = primaryField(collection);
  const ref = ident(pk.field);
  const table = ident(collection.collection);
  const names = Object.keys(items[0].columns).sort();
  // Rows are locked in key order, so two such statements running at once cannot deadlock on each other's rows.
  const ordered = [...items].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const params: unknown[] = [recordsetJson(collection, pk.field, names, ordered)];
  let sql = `with _w as (update ${table} as _row set ${names.map((n) => `${ident(n)} = _v.${ident(n)}`).join(', ')}
    from json_populate_recordset(null::${table}, $1::json) as _v
    where _row.${ref} = _v.${ref} returning _row.*)`;
  const mode = collection.accountability;
  if (mode) {
    params.push(...activityParams(ctx, collection));
    sql += `, _a as (insert into svc_activity (action, "user", ip, user_agent, origin, collection, item, impersonated_by)
      select 'update', $2::uuid, $3, $4, $5, $6, _w.${ref}::text, $7::uuid from _w returning id, item)`;
    if (mode === 'all') {
      params.push(JSON.stringify(items.map((i) => ({ k: String(i.key), delta: redactDelta(collection, i.columns) }))), version);
      sql += `, _r as (insert into svc_revisions (activity, collection, item, data, delta, version)
        select _a.id, $6, _a.item, ${snapshotSql(collection, '_w')}, _d.delta, $9::uuid
        from _a join _w on _w.${ref}::text = _a.item join json_to_recordset($8::json) as _d(k text, delta json) on _d.k = _a.item)`;
    }
  }
  sql += ` select _w.${ref} as pk from _w`;
  const rows = await run<{ pk: unknown }>(ctx.db, PREPARE_MARK + sql, params);
  return new Set(rows.map((r) => String(keyFromRow(r.pk))));
}

/** Inserts the rows of flat prepared payloads; keys in payload order. */
export async function insertBatch(w: WriteContext, collection: CollectionOverview, prepared: PreparedPayload[]): Promise<PrimaryKey[]> {
  track(w, prepared.length);
  // A uuid key is drawn for an item without one (the same rule as a single create).
  for (const p of prepared) ensureKey(collection, p.columns);
  const names = [...new Set(prepared.flatMap((p) => Object.keys(p.columns)))];
  if (names.length === 0) names.push(primaryField(collection).field);
  const keys: PrimaryKey[] = [];
  for (const part of chunks(prepared, Math.max(1, Math.floor(MAX_PARAMS / names.length)))) {
    const params: unknown[] = [];
    const tuples = part.map((p) => `(${names.map((n) => {
      if (!Object.hasOwn(p.columns, n)) return 'default';
      params.push(p.columns[n]);
      return `$${params.length}`;
    }).join(', ')})`);
    // RETURNING yields the rows in the order of the VALUES list.
    const rows = await run<WrittenRow>(w.trx,
      `insert into ${ident(collection.collection)} as _row (${names.map(ident).join(', ')}) values ${tuples.join(', ')} ${returning(collection)}`, params);
    rows.forEach((row, i) => {
      const key = keyFromRow(row.pk);
      keys.push(key);
      w.activity.record(collection, 'create', [{ key, snapshot: row.snap ?? null }], part[i].columns, w.activity.mark());
    });
  }
  return keys;
}

/** One item as the JSON object json_populate_recordset reads: every value as JSON (json columns hold JSON text
 * already, spliced in as is), so Postgres converts each with the input function of its column's type. */
function recordJson(collection: CollectionOverview, names: string[], columns: Payload, prefix = ''): string {
  return `{${prefix}${names.map((n) => {
    const v = columns[n];
    const json = collection.fields[n]?.type === 'json';
    return `${JSON.stringify(n)}:${v === null || v === undefined ? 'null' : json && typeof v === 'string' ? v : JSON.stringify(v)}`;
  }).join(',')}}`;
}

/** The items of one update group as the JSON array json_populate_recordset reads, each with its key. */
function recordsetJson(collection: CollectionOverview, pkField: string, names: string[], group: { key: PrimaryKey; columns: Payload }[]): string {
  return `[${group.map((g) => recordJson(collection, names, g.columns, `${JSON.stringify(pkField)}:${JSON.stringify(g.key)}${names.length ? ',' : ''}`)).join(',')}]`;
}

/** Updates flat items, each with its own key and columns; FORBIDDEN when a key has no row. Keys are unique. */
export async function updateBatchFlat(
  w: WriteContext, collection: CollectionOverview, items: { key: PrimaryKey; prepared: PreparedPayload }[],
): Promise<PrimaryKey[]> {
  track(w, items.length);
  const pk = primaryField(collection);
  const table = ident(collection.collection);
  const snapshots = new Map<string, string | null>();
  const groups = new Map<string, { key: PrimaryKey; columns: Payload }[]>();
  const unchanged: PrimaryKey[] = [];
  for (const { key, prepared } of items) {
    const names = Object.keys(prepared.columns).filter((n) => n !== pk.field).sort();
    if (names.length === 0) {
      unchanged.push(key);
      continue;
    }
    const id = JSON.stringify(names);
    let group = groups.get(id);
    if (!group) groups.set(id, group = []);
    group.push({ key, columns: prepared.columns });
  }
  const keep = (rows: WrittenRow[]) => { for (const row of rows) snapshots.set(String(keyFromRow(row.pk)), row.snap ?? null); };
  for (const [id, group] of groups) {
    const names = JSON.parse(id) as string[];
    // One statement per set of columns: the items' values typed by the table's own row type.
    const rows = await run<WrittenRow>(w.trx, `update ${table} as _row set ${names.map((n) => `${ident(n)} = _v.${ident(n)}`).join(', ')}
      from json_populate_recordset(null::${table}, $1::json) as _v
      where _row.${ident(pk.field)} = _v.${ident(pk.field)} ${returning(collection)}`, [recordsetJson(collection, pk.field, names, group)]);
    if (rows.length !== group.length) throw new ForbiddenError();
    keep(rows);
  }
  if (unchanged.length) {
    const rows = await run<WrittenRow>(w.trx, `select _row.${ident(pk.field)} as pk${collection.accountability === 'all' ? `, ${snapshotSql(collection, '_row')}::text as snap` : ''}
      from ${table} as _row where _row.${ident(pk.field)} = any($1${keyArrayCast(pk)}) for update`, [unchanged]);
    if (rows.length !== unchanged.length) throw new ForbiddenError();
    keep(rows);
  }
  for (const { key, prepared } of items) {
    w.activity.record(collection, 'update', [{ key, snapshot: snapshots.get(String(key)) ?? null }], prepared.columns, w.activity.mark());
  }
  return items.map((i) => i.key);
}
