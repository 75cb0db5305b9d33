/** The svc_files row behind /assets/{id}: what serving needs, read as the system (the caller's field
 * permissions do not hide filename_disk or type from the asset endpoint, as in Directus). Incomplete resumable
 * uploads (tus_id set) do not exist here. */
import { isUuid } from '../uuid.ts';
import type { Executor } from '../db/database.ts';
import { selectAssetFile } from '../files/table.ts';

export interface AssetFile {
  id: string;
  storage: string;
  filename_disk: string | null;
  filename_download: string;
  type: string | null;
  filesize: number | null;
  width: number | null;
  height: number | null;
  focal_point_x: number | null;
  focal_point_y: number | null;
  modified_on: Date;
}

/** The columns of AssetFile, in order. */
export const ASSET_FILE_FIELDS = ['id', 'storage', 'filename_disk', 'filename_download', 'type', 'filesize', 'width', 'height',
  'focal_point_x', 'focal_point_y', 'modified_on'] as const;

export async function loadAssetFile(db: Executor, id: string): Promise<AssetFile | null> {
  if (!isUuid(id)) return null;
  const row = await selectAssetFile(db, id.toLowerCase());
  if (!row) return null;
  return {
    ...row,
    filesize: row.filesize === null ? null : Number(row.filesize),
    modified_on: row.modified_on instanceof Date ? row.modified_on : new Date(row.modified_on),
  };
}
