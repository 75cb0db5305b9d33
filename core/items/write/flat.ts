/** A single-item create or update with a flat payload (no nested writes): one statement (fast.ts), coalesced with
 * concurrent writes of the same kind into one multi-row statement when the caller is not inside a transaction
 * (coalesce.ts). The outcome per request, key or error, is the one it would have had alone. */
import type { ServiceContext } from '../../context.ts';
import { ForbiddenError } from '../../errors.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { insertBatchWithActivity, updateBatchWithActivity } from './batch.ts';
import { coalesce, type LaneWork } from './coalesce.ts';
import { insertSql } from './create.ts';
import { writeWithActivity } from './fast.ts';
import { primaryField } from './keys.ts';
import type { PreparedPayload } from './payload.ts';
import type { Payload, PrimaryKey } from './types.ts';
import { updateSql } from './update.ts';

/** Key types whose text in Postgres is the text of the parsed key (keys.ts keyOf), so a batch's written rows can
 * be matched back to its requests. */
const MATCHABLE_KEYS = new Set(['integer', 'bigInteger', 'uuid', 'string']);

/** Writes of one lane share the caller identity the activity rows record, the version and the set of columns. */
function laneKey(ctx: ServiceContext, action: string, columns: Payload, version: string | null): string {
  const a = ctx.accountability;
  return JSON.stringify([action, Object.keys(columns).sort(), a.user, a.ip ?? null, a.userAgent ?? null, a.origin ?? null, a.impersonatedBy ?? null, version]);
}

export async function createFlat(ctx: ServiceContext, collection: CollectionOverview, prepared: PreparedPayload, version: string | null): Promise<PrimaryKey> {
  const one = async (p: PreparedPayload) => (await writeWithActivity(ctx, collection, 'create', insertSql(collection, p.columns), p.columns, version))[0];
  if (ctx.db.isTransaction) return one(prepared);
  const work: LaneWork<PreparedPayload> = {
    one,
    async many(items) {
      const keys = await insertBatchWithActivity(ctx, collection, items, version);
      if (!keys || keys.length !== items.length) throw new Error('batch insert did not return one key per item');
      return keys;
    },
  };
  return coalesce(ctx.db, collection, laneKey(ctx, 'create', prepared.columns, version), prepared, work);
}

interface KeyedUpdate {
  key: PrimaryKey;
  columns: Payload;
}

/** FORBIDDEN when the key has no row (nothing is written then). Null when the payload changes no column. */
export async function updateFlat(
  ctx: ServiceContext, collection: CollectionOverview, key: PrimaryKey, prepared: PreparedPayload, version: string | null,
): Promise<PrimaryKey | null> {
  const single = updateSql(collection, prepared.columns, [key]);
  if (!single) return null;
  const one = async (u: KeyedUpdate) => {
    const update = u === item ? single! : updateSql(collection, u.columns, [u.key])!;
    const written = await writeWithActivity(ctx, collection, 'update', update, u.columns, version);
    if (written.length === 0) throw new ForbiddenError();
    return u.key;
  };
  const item: KeyedUpdate = { key, columns: prepared.columns };
  const pk = primaryField(collection);
  if (ctx.db.isTransaction || Object.hasOwn(prepared.columns, pk.field) || !MATCHABLE_KEYS.has(pk.type)) return one(item);
  const work: LaneWork<KeyedUpdate> = {
    one,
    async many(items) {
      const written = await updateBatchWithActivity(ctx, collection, items, version);
      // Directus answers a missing item like a forbidden one, so existence is not leaked.
      return items.map((u) => (written.has(String(u.key)) ? u.key : new ForbiddenError()));
    },
    joins: (batch, u) => !batch.some((b) => String(b.key) === String(u.key)),
  };
  return coalesce(ctx.db, collection, laneKey(ctx, 'update', prepared.columns, version), item, work);
}
