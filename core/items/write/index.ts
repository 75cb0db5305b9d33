/** The items write service: what REST, GraphQL, versions and workflow call. Every call is one
 * transaction (or joins the one `ctx.db` already is), nested writes and activity included, and
 * returns primary keys. Keys and payloads are unchecked input: they are validated here. */
import type { ServiceContext } from '../../context.ts';
import { InvalidPayloadError } from '../../errors.ts';
import type { Query } from '../../query/types.ts';
import { selectKeys } from '../select-keys.ts';
import { batchLimitError, runWrite, writableCollection } from './context.ts';
import { createOne } from './create.ts';
import { deleteMany } from './delete.ts';
import { parseKey, parseKeyList, primaryField, keyOf, unique } from './keys.ts';
import { isPlainObject } from './payload.ts';
import { upsertSingletonRow } from './singleton.ts';
import type { PrimaryKey, WriteOptions } from './types.ts';
import { updateMany } from './update.ts';

export type { PrimaryKey, WriteOptions } from './types.ts';

function checkBatch(ctx: ServiceContext, items: unknown): unknown[] {
  if (!Array.isArray(items)) throw new InvalidPayloadError('Invalid payload. Expected an array.');
  if (items.length > ctx.config.maxBatchMutation) throw batchLimitError(ctx.config.maxBatchMutation);
  return items;
}

export async function createItem(ctx: ServiceContext, collection: string, payload: unknown, opts: WriteOptions = {}): Promise<PrimaryKey> {
  const c = writableCollection(ctx, collection);
  return runWrite(ctx, collection, 'create', opts, (w) => createOne(w, c, payload, 0));
}

export async function createItems(ctx: ServiceContext, collection: string, payloads: unknown[], opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  const c = writableCollection(ctx, collection);
  const items = checkBatch(ctx, payloads);
  return runWrite(ctx, collection, 'create', opts, async (w) => {
    const keys: PrimaryKey[] = [];
    for (const item of items) keys.push(await createOne(w, c, item, 0));
    return keys;
  });
}

export async function updateItem(ctx: ServiceContext, collection: string, key: unknown, data: unknown, opts: WriteOptions = {}): Promise<PrimaryKey> {
  const c = writableCollection(ctx, collection);
  const k = parseKey(c, key);
  return runWrite(ctx, collection, 'update', opts, async (w) => (await updateMany(w, c, [k], data, 0))[0]);
}

/** The same data applied to every key (PATCH /items/{c} with `{keys, data}`). */
export async function updateItems(ctx: ServiceContext, collection: string, keys: unknown, data: unknown, opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  const c = writableCollection(ctx, collection);
  const list = parseKeyList(c, keys, ctx.config.maxBatchMutation);
  return runWrite(ctx, collection, 'update', opts, (w) => updateMany(w, c, list, data, 0));
}

/** An array of objects, each carrying its own primary key (PATCH /items/{c} with an array). */
export async function updateBatch(ctx: ServiceContext, collection: string, items: unknown[], opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  const c = writableCollection(ctx, collection);
  const list = checkBatch(ctx, items);
  const pk = primaryField(c);
  const work = list.map((item) => {
    if (!isPlainObject(item)) throw new InvalidPayloadError('Invalid payload. Items must be objects.');
    const raw = Object.hasOwn(item, pk.field) ? item[pk.field] : undefined;
    if (raw === undefined || raw === null) throw new InvalidPayloadError('Invalid payload. Item in update misses primary key.');
    const { [pk.field]: _omitted, ...data } = item;
    return { key: parseKey(c, raw), data };
  });
  return runWrite(ctx, collection, 'update', opts, async (w) => {
    const keys: PrimaryKey[] = [];
    for (const { key, data } of work) keys.push(...await updateMany(w, c, [key], data, 0));
    return keys;
  });
}

/** Updates the rows matching query's filter/search/sort/limit (the permission row filter is not applied:
 * SPEC Items rule 5). */
export async function updateByQuery(ctx: ServiceContext, collection: string, query: Query, data: unknown, opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  const c = writableCollection(ctx, collection);
  if (!isPlainObject(data)) throw new InvalidPayloadError('Invalid payload. "data" must be an object.');
  return runWrite(ctx, collection, 'update', opts, async (w) => {
    const keys = await keysByQuery(w.service, c.collection, query);
    return updateMany(w, c, keys, data, 0);
  });
}

export async function deleteItem(ctx: ServiceContext, collection: string, key: unknown, opts: WriteOptions = {}): Promise<void> {
  const c = writableCollection(ctx, collection);
  const k = parseKey(c, key);
  await runWrite(ctx, collection, 'delete', opts, (w) => deleteMany(w, c, [k]));
}

export async function deleteItems(ctx: ServiceContext, collection: string, keys: unknown, opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  const c = writableCollection(ctx, collection);
  const list = parseKeyList(c, keys, ctx.config.maxBatchMutation);
  return runWrite(ctx, collection, 'delete', opts, (w) => deleteMany(w, c, list));
}

export async function deleteByQuery(ctx: ServiceContext, collection: string, query: Query, opts: WriteOptions = {}): Promise<PrimaryKey[]> {
  const c = writableCollection(ctx, collection);
  return runWrite(ctx, collection, 'delete', opts, async (w) => deleteMany(w, c, await keysByQuery(w.service, c.collection, query)));
}

/** Updates the singleton's row, creating it when there is none. */
export async function upsertSingleton(ctx: ServiceContext, collection: string, data: unknown, opts: WriteOptions = {}): Promise<PrimaryKey> {
  const c = writableCollection(ctx, collection);
  if (!isPlainObject(data)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  return runWrite(ctx, collection, null, opts, (w) => upsertSingletonRow(w, c, data));
}

async function keysByQuery(ctx: ServiceContext, collection: string, query: Query): Promise<PrimaryKey[]> {
  const c = writableCollection(ctx, collection);
  const pk = primaryField(c);
  const keys = unique((await selectKeys(ctx, collection, query)).map((k) => keyOf(pk, typeof k === 'bigint' ? String(k) : k) ?? k));
  if (keys.length > ctx.config.maxBatchMutation) throw batchLimitError(ctx.config.maxBatchMutation);
  return keys;
}
