/** Who may fetch an asset: whoever may read its svc_files row under the read permissions of svc_files (row
 * filters included), the Public role's for anonymous callers. Whether the Public role could read it too decides
 * if shared caches may keep the response (`Cache-Control: public`) or only the caller's browser (`private`). */
import type { Accountability } from '../access/accountability.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError } from '../errors.ts';
import { readItemData } from '../items/read.ts';
import { ASSET_FILE_FIELDS, loadAssetFile, type AssetFile } from './file-row.ts';

const FILES = 'svc_files';

/** The row as the caller may read it, in one statement (the permission row filter and the lookup together);
 * null when it is missing or invisible to the caller. Fields the caller's field permissions hide are read as
 * the system (serving needs filename_disk and type whatever the caller may list). */
export async function readVisibleFile(ctx: ServiceContext, id: string): Promise<AssetFile | null> {
  if (ctx.accountability.admin) return loadAssetFile(ctx.db, id);
  let data: string | null;
  try {
    data = await readItemData({ ...ctx, system: true }, FILES, id, { query: { fields: [...ASSET_FILE_FIELDS, 'tus_id'] }, cacheKey: 'assets:file' });
  } catch (err) {
    if (err instanceof ForbiddenError) return null;
    throw err;
  }
  if (data === null) return null;
  const row = JSON.parse(data) as Record<string, unknown>;
  if (row.tus_id !== null && row.tus_id !== undefined) return null;
  if (!ASSET_FILE_FIELDS.every((f) => f in row) || !('tus_id' in row)) return loadAssetFile(ctx.db, id);
  return {
    id: String(row.id),
    storage: String(row.storage),
    filename_disk: row.filename_disk === null ? null : String(row.filename_disk),
    filename_download: String(row.filename_download),
    type: row.type === null ? null : String(row.type),
    filesize: row.filesize === null ? null : Number(row.filesize),
    width: row.width === null ? null : Number(row.width),
    height: row.height === null ? null : Number(row.height),
    focal_point_x: row.focal_point_x === null ? null : Number(row.focal_point_x),
    focal_point_y: row.focal_point_y === null ? null : Number(row.focal_point_y),
    modified_on: new Date(String(row.modified_on)),
  };
}

export async function canReadFile(ctx: ServiceContext, id: string): Promise<boolean> {
  if (ctx.accountability.admin) return true;
  try {
    const data = await readItemData({ ...ctx, system: true }, FILES, id, { query: { fields: ['id'] }, cacheKey: 'assets:access' });
    return data !== null;
  } catch (err) {
    // No read permission on svc_files at all.
    if (err instanceof ForbiddenError) return false;
    throw err;
  }
}

export function isAnonymous(accountability: Accountability): boolean {
  return accountability.user === null && !accountability.share;
}
