/** Reads and writes of system collections through the items services, with permissions applied to every
 * caller (ctx.system lifts only the /items/svc_* refusal). Writes answer with the written records read back
 * under the caller's query, as Directus' system endpoints do; null when the caller may not read them. */
import type { ServiceContext } from '../context.ts';
import { ErrorList, ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { readItem, readItemData, readItems, selectKeys, type QueryInput } from '../items/read.ts';
import {
  createItem, createItems, deleteByQuery, deleteItem, deleteItems, updateBatch, updateByQuery, updateItem, updateItems,
  type PrimaryKey,
} from '../items/write/index.ts';
import { isPlainObject } from '../items/write/payload.ts';
import type { Query } from '../query/types.ts';
import { checkShareCreate, checkShareUpdate, touchesTarget } from '../shares/mint.ts';
import type { SystemCollection } from './collections.ts';
import { NOTIFICATIONS, ownNotificationsContext, ownNotificationsQuery } from './own-notifications.ts';
import { ownPresetsContext, PRESETS } from './own-presets.ts';

/** Rules a system collection's writes carry beyond permissions, checked before anything is written. */
interface WriteGuard {
  create(ctx: ServiceContext, payload: unknown): Promise<void>;
  update(ctx: ServiceContext, changes: { key: unknown; data: unknown }[]): Promise<void>;
  /** Whether an update payload needs the check (a query update then resolves its keys first). */
  touches(data: unknown): boolean;
}

const GUARDS: Readonly<Record<string, WriteGuard>> = {
  svc_shares: { create: checkShareCreate, update: checkShareUpdate, touches: touchesTarget },
};

export function systemContext(ctx: ServiceContext): ServiceContext {
  return { ...ctx, system: true };
}

function checkRequired(def: SystemCollection, payload: unknown): void {
  if (!isPlainObject(payload)) return; // the write path answers non-objects
  const missing = def.required.filter((f) => payload[f] === undefined || payload[f] === null);
  if (missing.length === 0) return;
  const errors = missing.map((field) => new InvalidPayloadError(`Invalid payload. "${field}" is required.`, { collection: def.collection, field }));
  if (errors.length === 1) throw errors[0];
  throw new ErrorList(errors);
}

export interface SystemService {
  list(input: QueryInput | Query): Promise<string>;
  one(key: string, input: QueryInput | Query): Promise<string>;
  create(payload: unknown): Promise<PrimaryKey | PrimaryKey[]>;
  updateOne(key: string, payload: unknown): Promise<PrimaryKey>;
  updateMany(body: { keys?: unknown; query?: Query; data?: unknown; batch?: unknown[] }): Promise<PrimaryKey[]>;
  deleteOne(key: string): Promise<void>;
  deleteMany(body: { keys?: unknown; query?: Query }): Promise<void>;
  /** The JSON text of the written records as the caller may read them, or null when it may read none. */
  records(keys: PrimaryKey | PrimaryKey[], input: QueryInput | Query): Promise<string | null>;
}

type UpdateBody = Parameters<SystemService['updateMany']>[0];

function plainUpdate(ctx: ServiceContext, c: string, body: UpdateBody): Promise<PrimaryKey[]> {
  return body.batch ? updateBatch(ctx, c, body.batch)
    : body.query ? updateByQuery(ctx, c, body.query, body.data)
    : updateItems(ctx, c, body.keys, body.data);
}

/** The guard sees every key with its change before the write. A query update that needs the check has its keys
 * chosen first and is then written by key, so the check and the write see the same rows. */
async function guardedUpdate(ctx: ServiceContext, c: string, guard: WriteGuard, body: UpdateBody): Promise<PrimaryKey[]> {
  if (body.query) {
    if (!guard.touches(body.data)) return plainUpdate(ctx, c, body);
    const keys = await selectKeys(ctx, c, body.query);
    await guard.update(ctx, keys.map((key) => ({ key: String(key), data: body.data })));
    return updateItems(ctx, c, keys, body.data);
  }
  const pk = ctx.schema.collections[c].primary!;
  const changes = body.batch ? body.batch.map((item) => ({ key: isPlainObject(item) ? item[pk] : undefined, data: item }))
    : Array.isArray(body.keys) ? body.keys.map((key) => ({ key, data: body.data })) : [];
  await guard.update(ctx, changes);
  return plainUpdate(ctx, c, body);
}

export function systemService(base: ServiceContext, def: SystemCollection, invalidate: () => Promise<void>): SystemService {
  const ctx = systemContext(base);
  const c = def.collection;
  const after = async (): Promise<void> => {
    if (def.invalidates) await invalidate();
  };
  const writable = (): void => {
    // Activity and revisions are append-only records of the write path.
    if (def.readOnly) throw new ForbiddenError();
  };
  const guard = Object.hasOwn(GUARDS, c) ? GUARDS[c] : null;
  return {
    list: (input) => readItems(ctx, c, input),
    one: (key, input) => readItem(ctx, c, key, input),
    async create(payload) {
      writable();
      if (Array.isArray(payload)) payload.forEach((p) => checkRequired(def, p));
      else checkRequired(def, payload);
      await guard?.create(ctx, payload);
      if (Array.isArray(payload)) {
        const keys = await createItems(ctx, c, payload);
        await after();
        return keys;
      }
      const key = await createItem(ctx, c, payload);
      await after();
      return key;
    },
    async updateOne(key, payload) {
      writable();
      await guard?.update(ctx, [{ key, data: payload }]);
      const own = c === PRESETS ? await ownPresetsContext(ctx, 'update', [key], payload)
        : c === NOTIFICATIONS ? await ownNotificationsContext(ctx, [key], payload) : null;
      const written = await updateItem(own ?? ctx, c, key, payload);
      await after();
      return written;
    },
    async updateMany(body) {
      writable();
      const byKeys = Array.isArray(body.keys) && !body.query && !body.batch;
      const own = c === PRESETS && byKeys ? await ownPresetsContext(ctx, 'update', body.keys as unknown[], body.data)
        : c === NOTIFICATIONS && byKeys ? await ownNotificationsContext(ctx, body.keys as unknown[], body.data) : null;
      const ownQuery = c === NOTIFICATIONS && body.query ? await ownNotificationsQuery(ctx, body.query, body.data) : null;
      const keys = ownQuery ? await updateByQuery(ownQuery.ctx, c, ownQuery.query, body.data)
        : guard ? await guardedUpdate(ctx, c, guard, body) : await plainUpdate(own ?? ctx, c, body);
      await after();
      return keys;
    },
    async deleteOne(key) {
      writable();
      const own = c === PRESETS ? await ownPresetsContext(ctx, 'delete', [key]) : null;
      await deleteItem(own ?? ctx, c, key);
      await after();
    },
    async deleteMany(body) {
      writable();
      if (body.query) await deleteByQuery(ctx, c, body.query);
      else {
        const own = c === PRESETS && Array.isArray(body.keys) ? await ownPresetsContext(ctx, 'delete', body.keys) : null;
        await deleteItems(own ?? ctx, c, body.keys);
      }
      await after();
    },
    async records(keys, input) {
      const list = Array.isArray(keys) ? keys : [keys];
      const texts: string[] = [];
      for (const key of list) {
        try {
          const text = await readItemData(ctx, c, key, input);
          if (text !== null) texts.push(text);
        } catch (err) {
          if (err instanceof ForbiddenError) continue;
          throw err;
        }
      }
      if (Array.isArray(keys)) return texts.length === 0 && list.length > 0 ? null : `[${texts.join(',')}]`;
      return texts[0] ?? null;
    },
  };
}
