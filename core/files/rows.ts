/** Reading the storage facts of file rows directly (no permission: callers check theirs through the items
 * services first). */
import type { ServiceContext } from '../context.ts';
import { ForbiddenError } from '../errors.ts';
import { isUuid } from '../uuid.ts';
import { selectFileRows, type FileRow } from './table.ts';

export { isUuid, type FileRow };

export async function fileRows(ctx: ServiceContext, ids: readonly string[]): Promise<FileRow[]> {
  const valid = ids.filter(isUuid);
  if (valid.length === 0) return [];
  return selectFileRows(ctx.db, valid);
}

export async function fileRow(ctx: ServiceContext, id: string): Promise<FileRow | null> {
  const [row] = await fileRows(ctx, [id]);
  return row ?? null;
}

/** Writes address complete files only: an incomplete resumable upload is answered as a missing item (403, as
 * items). `missingOk` lets the caller's own permission check answer for absent keys. */
export async function assertCompleteFiles(ctx: ServiceContext, keys: readonly string[], missingOk = false): Promise<void> {
  const rows = await fileRows(ctx, keys);
  if (rows.some((r) => r.tus_id !== null)) throw new ForbiddenError();
  if (!missingOk && rows.length !== new Set(keys).size) throw new ForbiddenError();
}
