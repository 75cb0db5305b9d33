/** Opening a write: which collections may be written through /items, the permission set loaded once,
 * and the transaction every statement of the write (nested ones and activity included) runs in. */
import { loadPermissions, type PermissionAction, type PermissionSet, type ResolvedPermission } from '../../access/permissions.ts';
import type { ServiceContext } from '../../context.ts';
import { inTransaction } from '../../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../../errors.ts';
import { itemsCollection } from '../collection.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { ActivityLog, flushActivity } from './activity.ts';
import type { ValidationContext, WriteContext, WriteOptions } from './types.ts';

/** SPEC Items rule 1 (unknown or folder -> 404, svc_* only for admins), shared with the read path. */
export function writableCollection(ctx: ServiceContext, name: string): CollectionOverview {
  // Share tokens only read (their one item).
  if (ctx.accountability.share) throw new ForbiddenError();
  return itemsCollection(ctx, name);
}

export function permit(w: ValidationContext, collection: string, action: PermissionAction): ResolvedPermission {
  const permission = w.permissions.get(collection, action);
  if (!permission) throw new ForbiddenError();
  return permission;
}

/** Counts rows written, nested ones included, against MAX_BATCH_MUTATION (as Directus' mutation tracker). */
export function track(w: WriteContext, rows: number): void {
  w.mutations += rows;
  if (w.mutations > w.maxMutations) throw batchLimitError(w.maxMutations);
}

export function batchLimitError(max: number): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. Exceeded max batch mutation limit of ${max}.`);
}

export function checkDepth(w: WriteContext, depth: number): void {
  if (depth > w.maxDepth) throw new InvalidPayloadError(`Invalid payload. Nested writes may not be deeper than ${w.maxDepth} levels.`);
}

/** The caller's permissions, loaded once per operation; FORBIDDEN when `action` is not granted at all. */
export async function validation(ctx: ServiceContext, collection: string, action: PermissionAction | null): Promise<ValidationContext> {
  const permissions: PermissionSet = await loadPermissions(ctx);
  if (action && !permissions.get(collection, action)) throw new ForbiddenError();
  return { schema: ctx.schema, accountability: ctx.accountability, permissions };
}

/** Runs fn in one transaction (or the one ctx.db already is) and records its activity before commit. */
export async function runWrite<T>(ctx: ServiceContext, v: ValidationContext, opts: WriteOptions, fn: (w: WriteContext) => Promise<T>): Promise<T> {
  return inTransaction(ctx.db, async (trx) => {
    const w: WriteContext = {
      ...v,
      trx,
      service: { ...ctx, db: trx },
      activity: new ActivityLog(),
      maxMutations: ctx.config.maxBatchMutation,
      maxDepth: ctx.config.maxRelationalDepth,
      mutations: 0,
    };
    const result = await fn(w);
    await flushActivity(trx, w.activity, ctx.accountability, opts.version ?? null);
    return result;
  });
}
