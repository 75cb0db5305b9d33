/** Who may do what with schedules:
 *
 * | action                         | rule                                                                                  |
 * |--------------------------------|---------------------------------------------------------------------------------------|
 * | schedule publishing            | may promote the version now (core/versions/access.ts requirePromoter), and the promotion's write |
 * |                                | would pass the caller's item permissions (update, or create for new content; fields, validation) |
 * | schedule unpublishing          | may read the item and update it with the unpublishing change (update permission, fields, validation) |
 * | reschedule                     | as scheduling (the rescheduler's rights are the ones the run uses)                   |
 * | cancel                         | as scheduling, or the one who scheduled it                                            |
 * | list, read                     | versioning:view, and read on the item (its row filter; read.ts)                       |
 *
 * Share tokens do none of it. The same checks run again when a schedule falls due, with the rights its scheduler
 * has then (runner.ts). */
import type { ServiceContext } from '../context.ts';
import { ForbiddenError } from '../errors.ts';
import { readItemData } from '../items/read.ts';
import { validation } from '../items/write/context.ts';
import { validateCreate } from '../items/write/create.ts';
import { validateUpdate } from '../items/write/update.ts';
import { requirePromoter } from '../versions/access.ts';
import { withoutKey } from '../versions/delta.ts';
import { promotedPayload } from '../versions/promote.ts';
import { itemExists, storedTarget, type VersionTarget } from '../versions/target.ts';
import type { VersionRow } from '../versions/types.ts';
import type { UnpublishChange } from './unpublish.ts';

export function refuseShares(ctx: ServiceContext): void {
  if (ctx.accountability.share) throw new ForbiddenError();
}

/** FORBIDDEN unless the caller may read the item (a missing item answers the same, existence is not leaked). */
async function requireReadable(ctx: ServiceContext, target: VersionTarget): Promise<void> {
  const c = target.collection;
  if (await readItemData(ctx, c.collection, target.key, { fields: [c.primary!] }) === null) throw new ForbiddenError();
}

/** The caller may promote `version` now and its write would pass their item permissions. Answers its target. */
export async function requirePublishRights(ctx: ServiceContext, version: VersionRow): Promise<VersionTarget> {
  await requirePromoter(ctx, version);
  const target = storedTarget(ctx, version.collection, version.item);
  const c = target.collection;
  const exists = await itemExists(ctx, target);
  if (exists) await requireReadable(ctx, target);
  const v = await validation(ctx, c.collection, exists ? 'update' : 'create');
  const payload = promotedPayload(c.fields, withoutKey(c, version.delta ?? {}));
  if (exists) await validateUpdate(v, c, [target.key], payload);
  else await validateCreate(v, c, { ...payload, [c.primary!]: target.key });
  return target;
}

/** The caller may read the (existing) item and update it with `change`. */
export async function requireUnpublishRights(ctx: ServiceContext, target: VersionTarget, change: UnpublishChange): Promise<void> {
  if (!(await itemExists(ctx, target))) throw new ForbiddenError();
  await requireReadable(ctx, target);
  const v = await validation(ctx, target.collection.collection, 'update');
  await validateUpdate(v, target.collection, [target.key], change);
}
