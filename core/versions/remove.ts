/** DELETE /versions/{id}: versioning:manage; pending (under review) and approved (applied) versions stay. */
import { requireAppPermission } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { deleteItem } from '../items/write/index.ts';
import { loadVersion } from './rows.ts';

export async function deleteVersion(ctx: ServiceContext, id: string): Promise<void> {
  await requireAppPermission(ctx, 'versioning:manage');
  await inTransaction(ctx.db, async (trx) => {
    const version = await loadVersion(trx, id, { lock: true });
    if (!version) throw new ForbiddenError();
    if (version.status === 'pending' || version.status === 'approved') {
      throw new InvalidPayloadError(`Invalid payload. A ${version.status} version can't be deleted.`, { reason: 'invalid_status', status: version.status });
    }
    await deleteItem({ ...ctx, db: trx, system: true, accountability: { ...ctx.accountability, admin: true } }, 'svc_versions', version.id);
  });
}
