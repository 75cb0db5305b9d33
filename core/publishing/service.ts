/** POST /schedules, PATCH /schedules/{id} (a new time) and POST /schedules/{id}/cancel. Each runs in one
 * transaction with the schedule (and, for publishing, the version) locked, so a change and the scheduler's run of
 * the same row are serialised: the scheduler skips a row a change holds, and a change waiting on a running row
 * then finds it run (400). Rules: access.ts. */
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError } from '../errors.ts';
import { isUuid } from '../uuid.ts';
import { requirePromoter } from '../versions/access.ts';
import { loadVersion } from '../versions/rows.ts';
import { itemExists, storedTarget, targetKey, versionableCollection, type VersionTarget } from '../versions/target.ts';
import { isEmptyDelta } from '../versions/types.ts';
import { refuseShares, requirePublishRights, requireUnpublishRights } from './access.ts';
import { invalid, parseCreate, parseReschedule } from './input.ts';
import { changeSchedule, insertSchedule, loadSchedule, pendingPublish } from './table.ts';
import type { ScheduleRow } from './types.ts';
import { cannotUnpublishMessage, unpublishChange } from './unpublish.ts';

function when(at: Date): string {
  return at.toISOString().replace('.000Z', 'Z');
}

/** The caller's rights to unpublish the target (400 first when its collection has no way to unpublish). */
async function unpublishRights(t: ServiceContext, target: VersionTarget): Promise<void> {
  const change = await unpublishChange(t.db, target.collection);
  if (!change) throw invalid('collection', cannotUnpublishMessage(target.collection.collection), { reason: 'cannot_unpublish' });
  await requireUnpublishRights(t, target, change);
}

export async function createSchedule(ctx: ServiceContext, raw: unknown): Promise<string> {
  refuseShares(ctx);
  const input = parseCreate(raw, new Date());
  return inTransaction(ctx.db, async (trx) => {
    const t: ServiceContext = { ...ctx, db: trx };
    if (input.action === 'unpublish') {
      const collection = versionableCollection(t, input.collection);
      const target: VersionTarget = { collection, key: targetKey(collection, input.item) };
      await unpublishRights(t, target);
      return insertSchedule(t, { collection: collection.collection, item: String(target.key), action: 'unpublish', version: null, scheduledAt: input.scheduledAt });
    }
    if (!isUuid(input.version)) throw invalid('version', '"version" must be the id of a version (a uuid).');
    const version = await loadVersion(trx, input.version, { lock: true });
    if (!version) throw new ForbiddenError();
    await requirePromoter(t, version);
    if ((input.collection !== null && input.collection !== version.collection) || (input.item !== null && input.item !== version.item)) {
      throw invalid('version', `The version belongs to another item (${version.item} in "${version.collection}"), not to ${input.item ?? version.item} in "${input.collection ?? version.collection}".`, { reason: 'other_item' });
    }
    if (version.status === 'approved') {
      throw invalid('version', 'This version was already promoted (approved): there is nothing left to publish. Create a new version for further changes.', { reason: 'invalid_status', status: version.status });
    }
    if (isEmptyDelta(version.delta)) throw invalid('version', 'The version has no changes to publish.', { reason: 'empty_delta' });
    const target = await requirePublishRights(t, version);
    // A draft of an item that existed (it carries the item's hash) does not bring a deleted item back (runner.ts).
    if (version.hash !== null && !(await itemExists(t, target))) {
      throw invalid('version', 'The item of this version was deleted; its draft can no longer be published.', { reason: 'item_deleted' });
    }
    const existing = await pendingPublish(trx, version.id);
    if (existing) {
      throw invalid('version', `This version is already scheduled to publish at ${when(existing.scheduled_at)}; change the time of that schedule instead.`,
        { reason: 'already_scheduled', schedule: existing.id });
    }
    return insertSchedule(t, { collection: version.collection, item: version.item, action: 'publish', version: version.id, scheduledAt: input.scheduledAt });
  });
}

/** The caller may schedule what `row` does (as its creation required). A publish whose version was deleted can
 * only be cancelled, by an admin or its scheduler (cancel checks that itself): FORBIDDEN for anyone else. */
async function requireScheduleRights(t: ServiceContext, row: ScheduleRow): Promise<void> {
  if (row.action === 'publish') {
    const version = row.version ? await loadVersion(t.db, row.version, { lock: true }) : null;
    if (!version) {
      if (t.accountability.admin) return;
      throw new ForbiddenError();
    }
    await requirePublishRights(t, version);
    return;
  }
  const target = storedTarget(t, row.collection, row.item);
  await unpublishRights(t, target);
}

function notScheduled(row: ScheduleRow): never {
  throw invalid(null, `Only a schedule that has not run yet can be changed; this one is ${row.status}.`, { reason: 'invalid_status', status: row.status });
}

export async function rescheduleSchedule(ctx: ServiceContext, id: string, raw: unknown): Promise<string> {
  refuseShares(ctx);
  const at = parseReschedule(raw, new Date());
  return inTransaction(ctx.db, async (trx) => {
    const t: ServiceContext = { ...ctx, db: trx };
    const row = await loadSchedule(trx, id, { lock: true });
    if (!row) throw new ForbiddenError();
    await requireScheduleRights(t, row);
    if (row.status !== 'scheduled') notScheduled(row);
    if (row.action === 'publish' && !row.version) throw invalid(null, 'The version of this schedule was deleted: cancel it instead.', { reason: 'version_deleted' });
    await changeSchedule(t, row.id, { scheduledAt: at });
    return row.id;
  });
}

export async function cancelSchedule(ctx: ServiceContext, id: string): Promise<{ id: string; status: 'cancelled' }> {
  refuseShares(ctx);
  return inTransaction(ctx.db, async (trx) => {
    const t: ServiceContext = { ...ctx, db: trx };
    const row = await loadSchedule(trx, id, { lock: true });
    if (!row) throw new ForbiddenError();
    // Whoever scheduled it may always call it off; others need the rights to schedule it.
    const own = ctx.accountability.user !== null && ctx.accountability.user === row.scheduled_by;
    if (!own) await requireScheduleRights(t, row);
    if (row.status !== 'scheduled') notScheduled(row);
    await changeSchedule(t, row.id, { status: 'cancelled' });
    return { id: row.id, status: 'cancelled' as const };
  });
}
