/** Promote (SPEC.md > Versions, Promote rules 1-6): the delta becomes a write of the main item through the
 * items write service (relational and nested writes included, activity and revisions stamped with the
 * version), then the version is approved. Runs in ctx.db (joining an open transaction: the workflow engine
 * calls promoteVersion inside its approval transaction, with a system accountability, so the item's activity
 * is an `update` with user null), with the version row locked. */
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { createItem, updateItem } from '../items/write/index.ts';
import { requirePromoter } from './access.ts';
import { withoutKey } from './delta.ts';
import { loadVersion } from './rows.ts';
import { changeVersion } from './store.ts';
import { itemExists, mainHash, storedTarget } from './target.ts';
import { isEmptyDelta, type Delta, type VersionRow } from './types.ts';

/** Rule 4: a collection with a `status` field gets `published` unless the delta sets a status. */
export function promotedPayload(fields: Record<string, { alias: boolean }>, delta: Delta): Delta {
  const payload: Delta = { ...delta };
  if (Object.hasOwn(fields, 'status') && !fields.status.alias && !Object.hasOwn(payload, 'status')) payload.status = 'published';
  return payload;
}

/** Applies a locked version in ctx.db (a transaction). */
async function applyVersion(ctx: ServiceContext, version: VersionRow): Promise<void> {
  const target = storedTarget(ctx, version.collection, version.item);
  const c = target.collection;
  // A key in the delta is ignored: the version's item is the key.
  const changes = version.delta ? withoutKey(c, version.delta) : null;
  if (isEmptyDelta(changes)) throw new InvalidPayloadError('Invalid payload. The version has no changes to promote.', { reason: 'empty_delta' });
  const payload = promotedPayload(c.fields, changes!);
  // Rules 2 and 6: update the row, or create it with the version's item as its key.
  if (await itemExists(ctx, target)) await updateItem(ctx, c.collection, target.key, payload, { version: version.id });
  else await createItem(ctx, c.collection, { ...payload, [c.primary!]: target.key }, { version: version.id });
  await changeVersion(ctx, version.id, { status: 'approved', hash: await mainHash(ctx, target) });
}

export async function promoteVersion(ctx: ServiceContext, versionId: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const version = await loadVersion(trx, versionId, { lock: true });
    if (!version) throw new ForbiddenError();
    await applyVersion({ ...ctx, db: trx }, version);
  });
}

/** POST /versions/{id}/promote: the caller's promote rights (access.ts) checked on the locked row, then the
 * write under the caller's own item permissions. */
export async function promoteByCaller(ctx: ServiceContext, versionId: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const t: ServiceContext = { ...ctx, db: trx };
    const version = await loadVersion(trx, versionId, { lock: true });
    if (!version) throw new ForbiddenError();
    await requirePromoter(t, version);
    await applyVersion(t, version);
  });
}
