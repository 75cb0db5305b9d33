/** Reads and writes of system collections through the items services, with permissions applied to every
 * caller (ctx.system lifts only the /items/svc_* refusal). Writes answer with the written records read back
 * under the caller's query, as Directus' system endpoints do; null when the caller may not read them. */
import type { ServiceContext } from '../context.ts';
import { ErrorList, ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { readItem, readItemData, readItems, type QueryInput } from '../items/read.ts';
import {
  createItem, createItems, deleteByQuery, deleteItem, deleteItems, updateBatch, updateByQuery, updateItem, updateItems,
  type PrimaryKey,
} from '../items/write/index.ts';
import { isPlainObject } from '../items/write/payload.ts';
import type { Query } from '../query/types.ts';
import type { SystemCollection } from './collections.ts';

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
  return {
    list: (input) => readItems(ctx, c, input),
    one: (key, input) => readItem(ctx, c, key, input),
    async create(payload) {
      writable();
      if (Array.isArray(payload)) {
        payload.forEach((p) => checkRequired(def, p));
        const keys = await createItems(ctx, c, payload);
        await after();
        return keys;
      }
      checkRequired(def, payload);
      const key = await createItem(ctx, c, payload);
      await after();
      return key;
    },
    async updateOne(key, payload) {
      writable();
      const written = await updateItem(ctx, c, key, payload);
      await after();
      return written;
    },
    async updateMany(body) {
      writable();
      const keys = body.batch ? await updateBatch(ctx, c, body.batch)
        : body.query ? await updateByQuery(ctx, c, body.query, body.data)
        : await updateItems(ctx, c, body.keys, body.data);
      await after();
      return keys;
    },
    async deleteOne(key) {
      writable();
      await deleteItem(ctx, c, key);
      await after();
    },
    async deleteMany(body) {
      writable();
      if (body.query) await deleteByQuery(ctx, c, body.query);
      else await deleteItems(ctx, c, body.keys);
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
