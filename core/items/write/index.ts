/** The items write service: what REST, GraphQL, versions and workflow call. Every call is one
 * transaction (or joins the one `ctx.db` already is), nested writes and activity included, and
 * returns primary keys; a flat write is one statement of its own unless its action events are recorded, which
 * commit with it in one transaction (needsEventTransaction). Keys and payloads are unchecked input: they are validated here. */
import { withExecutor, type ServiceContext } from '../../context.ts';
import { ident, inTransaction } from '../../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../../errors.ts';
import type { Query } from '../../query/types.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { selectKeys } from '../select-keys.ts';
import { batchLimitError, runWrite, validation, writableCollection } from './context.ts';
import { insertBatch, insertBatchWithActivity, updateBatchFlat } from './batch.ts';
import { insertPrepared, validateCreate } from './create.ts';
import { createFlat, updateFlat } from './flat.ts';
import { deleteMany } from './delete.ts';
import { isFlat, writeWithActivity } from './fast.ts';
import { keyMatch, keyOf, parseKey, parseKeyList, primaryField, unique } from './keys.ts';
import { isPlainObject, type PreparedPayload } from './payload.ts';
import { upsertSingletonRow } from './singleton.ts';
import type { PrimaryKey, WriteOptions } from './types.ts';
import { emitItems, filterItems, needsEventTransaction } from './events.ts';
import { updateMany, updatePrepared, validateUpdate } from './update.ts';

export type { PrimaryKey, WriteOptions } from './types.ts';

function checkBatch(ctx: ServiceContext, items: unknown): unknown[] {
  if (!Array.isArray(items)) throw new InvalidPayloadError('Invalid payload. Expected an array.');
  if (items.length > ctx.config.maxBatchMutation) throw batchLimitError(ctx.config.maxBatchMutation);
  return items;
}

export async function createItem(ctx: ServiceContext, collection: string, payload: unknown, opts: WriteOptions = {}): Promise<PrimaryKey> {
  if (needsEventTransaction(ctx, 'create', collection)) return inTransaction(ctx.db, (trx) => createItem(withExecutor(ctx, trx), collection, payload, opts));
  const c = writableCollection(ctx, collection);
  const v = await validation(ctx, collection, 'create');
  payload = await filterItems(ctx, 'create', collection, payload);
  const prepared = await validateCreate(v, c, payload);
  const key = isFlat(prepared)
    ? await createFlat(ctx, c, prepared, opts.version ?? null)
    : await runWrite(ctx, v, opts, (w) => insertPrepared(w, c, prepared, 0));
  emitItems(ctx, 'create', collection, [key], payload);
  return key;
}

export async function createItems(ctx: ServiceContext, collection: string, payloads: unknown[], opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  if (needsEventTransaction(ctx, 'create', collection)) return inTransaction(ctx.db, (trx) => createItems(withExecutor(ctx, trx), collection, payloads, opts));
  const c = writableCollection(ctx, collection);
  const items = checkBatch(ctx, payloads);
  const v = await validation(ctx, collection, 'create');
  const filtered: unknown[] = [];
  for (const item of items) filtered.push(await filterItems(ctx, 'create', collection, item));
  // Every item is checked before anything is written; flat items then go in one multi-row insert.
  const prepared: PreparedPayload[] = [];
  for (const item of filtered) prepared.push(await validateCreate(v, c, item));
  const flat = prepared.every(isFlat);
  const keys = (flat ? await insertBatchWithActivity(ctx, c, prepared, opts.version ?? null) : null) ?? await runWrite(ctx, v, opts, async (w) => {
    if (flat) return insertBatch(w, c, prepared);
    const out: PrimaryKey[] = [];
    for (const item of prepared) out.push(await insertPrepared(w, c, item, 0));
    return out;
  });
  keys.forEach((key, i) => emitItems(ctx, 'create', collection, [key], filtered[i]));
  return keys;
}

export async function updateItem(ctx: ServiceContext, collection: string, key: unknown, data: unknown, opts: WriteOptions = {}): Promise<PrimaryKey> {
  if (needsEventTransaction(ctx, 'update', collection)) return inTransaction(ctx.db, (trx) => updateItem(withExecutor(ctx, trx), collection, key, data, opts));
  const c = writableCollection(ctx, collection);
  const k = parseKey(c, key);
  const v = await validation(ctx, collection, 'update');
  data = await filterItems(ctx, 'update', collection, data, { keys: [k] });
  const prepared = await validateUpdate(v, c, [k], data);
  const written = isFlat(prepared) ? await updateFlat(ctx, c, k, prepared, opts.version ?? null) : null;
  if (written === null) await runWrite(ctx, v, opts, (w) => updatePrepared(w, c, [k], prepared, 0));
  emitItems(ctx, 'update', collection, [k], data);
  return k;
}

/** The same data applied to every key (PATCH /items/{c} with `{keys, data}`). */
export async function updateItems(ctx: ServiceContext, collection: string, keys: unknown, data: unknown, opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  if (needsEventTransaction(ctx, 'update', collection)) return inTransaction(ctx.db, (trx) => updateItems(withExecutor(ctx, trx), collection, keys, data, opts));
  const c = writableCollection(ctx, collection);
  const list = parseKeyList(c, keys, ctx.config.maxBatchMutation);
  const v = await validation(ctx, collection, 'update');
  data = await filterItems(ctx, 'update', collection, data, { keys: list });
  const written = await runWrite(ctx, v, opts, (w) => updateMany(w, c, list, data, 0));
  emitItems(ctx, 'update', collection, written, data);
  return written;
}

/** An array of objects, each carrying its own primary key (PATCH /items/{c} with an array). */
export async function updateBatch(ctx: ServiceContext, collection: string, items: unknown[], opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  if (needsEventTransaction(ctx, 'update', collection)) return inTransaction(ctx.db, (trx) => updateBatch(withExecutor(ctx, trx), collection, items, opts));
  const c = writableCollection(ctx, collection);
  const list = checkBatch(ctx, items);
  const pk = primaryField(c);
  const work = list.map((item) => {
    if (!isPlainObject(item)) throw new InvalidPayloadError('Invalid payload. Items must be objects.');
    const raw = Object.hasOwn(item, pk.field) ? item[pk.field] : undefined;
    if (raw === undefined || raw === null) throw new InvalidPayloadError('Invalid payload. Item in update misses primary key.');
    const { [pk.field]: _omitted, ...data } = item;
    return { key: parseKey(c, raw), data: data as unknown };
  });
  const v = await validation(ctx, collection, 'update');
  for (const entry of work) entry.data = await filterItems(ctx, 'update', collection, entry.data, { keys: [entry.key] });
  // Distinct keys with flat payloads: checked up front, then one UPDATE per set of columns.
  let checked: { key: PrimaryKey; prepared: PreparedPayload }[] | null = null;
  if (unique(work.map((e) => e.key)).length === work.length) {
    checked = [];
    for (const { key, data } of work) checked.push({ key, prepared: await validateUpdate(v, c, [key], data) });
  }
  const keys = await runWrite(ctx, v, opts, async (w) => {
    if (checked?.every((f) => isFlat(f.prepared))) return updateBatchFlat(w, c, checked);
    if (checked) {
      const out: PrimaryKey[] = [];
      for (const { key, prepared } of checked) out.push(...await updatePrepared(w, c, [key], prepared, 0));
      return out;
    }
    const out: PrimaryKey[] = [];
    for (const { key, data } of work) out.push(...await updateMany(w, c, [key], data, 0));
    return out;
  });
  for (const { key, data } of work) emitItems(ctx, 'update', collection, [key], data);
  return keys;
}

/** Updates the rows matching query's filter/search/sort/limit (the permission row filter is not applied:
 * SPEC Items rule 5). */
export async function updateByQuery(ctx: ServiceContext, collection: string, query: Query, data: unknown, opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  if (needsEventTransaction(ctx, 'update', collection)) return inTransaction(ctx.db, (trx) => updateByQuery(withExecutor(ctx, trx), collection, query, data, opts));
  const c = writableCollection(ctx, collection);
  if (!isPlainObject(data)) throw new InvalidPayloadError('Invalid payload. "data" must be an object.');
  const v = await validation(ctx, collection, 'update');
  let payload: unknown = data;
  const written = await runWrite(ctx, v, opts, async (w) => {
    const keys = await keysByQuery(w.service, c, query);
    payload = await filterItems(w.service, 'update', collection, data, { keys });
    return updateMany(w, c, keys, payload, 0);
  });
  emitItems(ctx, 'update', collection, written, payload);
  return written;
}

export async function deleteItem(ctx: ServiceContext, collection: string, key: unknown, opts: WriteOptions = {}): Promise<void> {
  if (needsEventTransaction(ctx, 'delete', collection)) return inTransaction(ctx.db, (trx) => deleteItem(withExecutor(ctx, trx), collection, key, opts));
  const c = writableCollection(ctx, collection);
  const k = parseKey(c, key);
  await validation(ctx, collection, 'delete');
  const keys = await filterItems(ctx, 'delete', collection, [k]);
  const match = keyMatch(primaryField(c), `_row.${ident(c.primary!)}`, 1, keys);
  const written = await writeWithActivity(ctx, c, 'delete', {
    sql: `delete from ${ident(c.collection)} as _row where ${match.sql}`, params: [match.param],
  }, null, opts.version ?? null);
  if (written.length === 0) throw new ForbiddenError();
  emitItems(ctx, 'delete', collection, written, written);
}

export async function deleteItems(ctx: ServiceContext, collection: string, keys: unknown, opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  if (needsEventTransaction(ctx, 'delete', collection)) return inTransaction(ctx.db, (trx) => deleteItems(withExecutor(ctx, trx), collection, keys, opts));
  const c = writableCollection(ctx, collection);
  const v = await validation(ctx, collection, 'delete');
  const list = await filterItems(ctx, 'delete', collection, parseKeyList(c, keys, ctx.config.maxBatchMutation));
  const deleted = await runWrite(ctx, v, opts, (w) => deleteMany(w, c, list));
  emitItems(ctx, 'delete', collection, deleted, deleted);
  return deleted;
}

export async function deleteByQuery(ctx: ServiceContext, collection: string, query: Query, opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  if (needsEventTransaction(ctx, 'delete', collection)) return inTransaction(ctx.db, (trx) => deleteByQuery(withExecutor(ctx, trx), collection, query, opts));
  const c = writableCollection(ctx, collection);
  const deleted = await runWrite(ctx, await validation(ctx, collection, 'delete'), opts, async (w) => {
    const keys = await filterItems(w.service, 'delete', collection, await keysByQuery(w.service, c, query));
    return deleteMany(w, c, keys);
  });
  emitItems(ctx, 'delete', collection, deleted, deleted);
  return deleted;
}

/** Updates the singleton's row, creating it when there is none. */
export async function upsertSingleton(ctx: ServiceContext, collection: string, data: unknown, opts: WriteOptions = {}): Promise<PrimaryKey> {
  if (needsEventTransaction(ctx, 'update', collection)) return inTransaction(ctx.db, (trx) => upsertSingleton(withExecutor(ctx, trx), collection, data, opts));
  const c = writableCollection(ctx, collection);
  if (!isPlainObject(data)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const v = await validation(ctx, collection, null);
  const payload = await filterItems(ctx, 'update', collection, data);
  if (!isPlainObject(payload)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const key = await runWrite(ctx, v, opts, (w) => upsertSingletonRow(w, c, payload));
  emitItems(ctx, 'update', collection, [key], payload);
  return key;
}

async function keysByQuery(ctx: ServiceContext, c: CollectionOverview, query: Query): Promise<PrimaryKey[]> {
  const pk = primaryField(c);
  const found = await selectKeys(ctx, c.collection, query);
  const keys = unique(found.map((k) => keyOf(pk, typeof k === 'bigint' ? String(k) : k) ?? k));
  if (keys.length > ctx.config.maxBatchMutation) throw batchLimitError(ctx.config.maxBatchMutation);
  return keys;
}
