/** The one owner of svc_files' SQL: every statement that names the table outside the generic items services is
 * here, and files/, assets/ and tus/ call these functions. Simple statements are built with Kysely over the
 * typed table (core/db/tables.ts); the asset lookup (hot: every /assets request) and the jsonb append of the
 * part log stay hand-written text. None checks a permission: callers do (through the items services) first.
 *
 * A row with `tus_id` set is a resumable upload still running (core/tus/uploads.ts); it becomes a file when the
 * upload completes and clears it. */
import { sql } from 'kysely';
import { run, type Executor } from '../db/database.ts';
import { tables } from '../db/tables.ts';

const now = sql<Date>`now()`;

// ---- Storage facts of files -------------------------------------------------------------------------------

/** Where a file's bytes are, and whether it is still an upload. */
export interface FileRow {
  id: string;
  storage: string;
  filename_disk: string | null;
  tus_id: string | null;
}

/** The storage facts of the rows among `ids` (uuids, checked by the caller). */
export async function selectFileRows(ex: Executor, ids: readonly string[]): Promise<FileRow[]> {
  return tables(ex).selectFrom('svc_files')
    .select(['id', 'storage', 'filename_disk', 'tus_id'])
    .where('id', '=', sql<string>`any(${ids}::uuid[])`)
    .execute();
}

/** Ids (as text) of at most `limit` incomplete uploads. */
export async function selectIncompleteIds(ex: Executor, limit: number): Promise<string[]> {
  const rows = await tables(ex).selectFrom('svc_files')
    .select(sql<string>`id::text`.as('id'))
    .where('tus_id', 'is not', null)
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** What /assets/{id} needs of a complete file, as the database returns it (filesize may be text, modified_on
 * text on the embedded engine). */
export interface AssetFileRow {
  id: string;
  storage: string;
  filename_disk: string | null;
  filename_download: string;
  type: string | null;
  filesize: string | number | null;
  width: number | null;
  height: number | null;
  focal_point_x: number | null;
  focal_point_y: number | null;
  modified_on: Date | string;
}

/** The complete file `id` (a lower-case uuid) for asset serving. Hand-written and marked for a prepared statement:
 * it runs on every asset request. */
export async function selectAssetFile(ex: Executor, id: string): Promise<AssetFileRow | null> {
  const [row] = await run<AssetFileRow>(ex, `/*p*/ select id, storage, filename_disk, filename_download, type, filesize, width, height,
    focal_point_x, focal_point_y, modified_on from svc_files where id = $1 and tus_id is null`, [id]);
  return row ?? null;
}

// ---- Resumable uploads ------------------------------------------------------------------------------------

/** A row while its upload runs: what the tus endpoint and the cleanup read. `tus_data` is JSON (parsed or
 * text, by driver); core/tus/uploads.ts reads it. */
export interface UploadFileRow {
  id: string;
  storage: string;
  filename_disk: string | null;
  filename_download: string;
  type: string | null;
  uploaded_by: string | null;
  modified_by: string | null;
  modified_on: Date | string;
  tus_id: string;
  tus_data: unknown;
}

const UPLOAD_COLUMNS = [
  'id', 'storage', 'filename_disk', 'filename_download', 'type', 'uploaded_by', 'modified_by', 'modified_on', 'tus_id', 'tus_data',
] as const;

/** A file whose content an upload is about to replace, locked for the rest of the caller's transaction. */
export async function lockFileForReplace(trx: Executor, id: string): Promise<{
  id: string; storage: string; filename_disk: string | null; filename_download: string; type: string | null;
  title: string | null; tus_id: string | null;
} | null> {
  const row = await tables(trx).selectFrom('svc_files')
    .select(['id', 'storage', 'filename_disk', 'filename_download', 'type', 'title', 'tus_id'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}

/** Who started an upload: a new file's uploader (with the announced size), or whoever replaces a file's content. */
export type UploadStarter = { uploaded_by: string | null; filesize: number } | { modified_by: string | null };

/** Makes row `id` an upload under `tusId` (tus_data as JSON text); its expiration starts now. */
export async function markUploading(trx: Executor, id: string, tusId: string, tusData: string, by: UploadStarter): Promise<void> {
  await tables(trx).updateTable('svc_files')
    .set({ tus_id: tusId, tus_data: tusData, ...by, modified_on: now })
    .where('id', '=', id)
    .execute();
}

export async function selectUpload(ex: Executor, tusId: string): Promise<UploadFileRow | null> {
  const row = await tables(ex).selectFrom('svc_files')
    .select(UPLOAD_COLUMNS)
    .where('tus_id', '=', tusId)
    .$narrowType<{ tus_id: string }>()
    .executeTakeFirst();
  return row ?? null;
}

/** Whether a row is (still) uploading under `tusId`. */
export async function uploadExists(ex: Executor, tusId: string): Promise<boolean> {
  const row = await tables(ex).selectFrom('svc_files').select(sql<number>`1`.as('one')).where('tus_id', '=', tusId).executeTakeFirst();
  return row !== undefined;
}

/** The storage an upload's bytes go to, or null when no row uploads under `tusId`. */
export async function selectUploadStorage(ex: Executor, tusId: string): Promise<string | null> {
  const row = await tables(ex).selectFrom('svc_files').select('storage').where('tus_id', '=', tusId).executeTakeFirst();
  return row?.storage ?? null;
}

/** Activity on an upload: restarts its expiration. */
export async function touchUploadRow(ex: Executor, tusId: string): Promise<void> {
  await tables(ex).updateTable('svc_files').set({ modified_on: now }).where('tus_id', '=', tusId).execute();
}

/** What completion measured of the stored bytes (metadata as JSON text). */
export interface CompletedContent {
  filename_disk: string;
  filesize: number;
  type: string;
  width: number | null;
  height: number | null;
  duration: number | null;
  charset: string | null;
  metadata: string | null;
}

/** Makes the upload `tusId` a complete file with `content`. False when no row uploads under `tusId` any more
 * (terminated, cleaned up, or completed by a concurrent request). */
export async function completeUploadRow(ex: Executor, tusId: string, content: CompletedContent): Promise<boolean> {
  const done = await tables(ex).updateTable('svc_files')
    .set({ tus_id: null, tus_data: null, ...content, modified_on: now })
    .where('tus_id', '=', tusId)
    .returning('id')
    .execute();
  return done.length > 0;
}

/** Whether file `id` is complete with its bytes under `key`. */
export async function isCompleteAt(ex: Executor, id: string, key: string): Promise<boolean> {
  const row = await tables(ex).selectFrom('svc_files').select('id')
    .where('id', '=', id).where('tus_id', 'is', null).where('filename_disk', '=', key)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether any row names `key` in `storage` as its bytes. */
export async function isKeyReferenced(ex: Executor, storage: string, key: string): Promise<boolean> {
  const row = await tables(ex).selectFrom('svc_files').select(sql<number>`1`.as('one'))
    .where('storage', '=', storage).where('filename_disk', '=', key)
    .executeTakeFirst();
  return row !== undefined;
}

/** A replacement given up: the file's fields as they were before it, no upload any more. */
export async function restoreReplacedFile(ex: Executor, id: string, tusId: string,
  previous: { filename_download: string; type: string | null; title: string | null }): Promise<void> {
  await tables(ex).updateTable('svc_files')
    .set({ tus_id: null, tus_data: null, filename_download: previous.filename_download, type: previous.type, title: previous.title })
    .where('id', '=', id).where('tus_id', '=', tusId)
    .execute();
}

/** A new file's upload given up: its row goes (only while it still uploads under `tusId`). */
export async function deleteUploadRow(ex: Executor, id: string, tusId: string): Promise<void> {
  await tables(ex).deleteFrom('svc_files').where('id', '=', id).where('tus_id', '=', tusId).execute();
}

/** Uploads idle since before `cutoff`, oldest first, claimed FOR UPDATE SKIP LOCKED in the caller's transaction
 * so concurrent cleaners never take the same row. */
export async function claimExpiredUploads(trx: Executor, cutoff: Date, limit: number): Promise<UploadFileRow[]> {
  return tables(trx).selectFrom('svc_files')
    .select(UPLOAD_COLUMNS)
    .where('tus_id', 'is not', null)
    .where('modified_on', '<', cutoff)
    .orderBy('modified_on')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .$narrowType<{ tus_id: string }>()
    .execute();
}

/** Appends parts (JSON text of an array) to tus_data.parts in one statement, so concurrent appends don't lose
 * one another (hand-written: jsonb concatenation). */
export async function appendUploadParts(ex: Executor, tusId: string, partsJson: string): Promise<void> {
  await run(ex, `update svc_files set tus_data = (coalesce(tus_data::jsonb, '{}'::jsonb)
      || jsonb_build_object('parts', coalesce(tus_data::jsonb -> 'parts', '[]'::jsonb) || $2::jsonb))::json
    where tus_id = $1`, [tusId, partsJson]);
}

/** tus_data.parts of an upload (parsed or JSON text, by driver), or null. */
export async function selectUploadParts(ex: Executor, tusId: string): Promise<unknown> {
  const [row] = await run<{ parts: unknown }>(ex, "select tus_data::jsonb -> 'parts' as parts from svc_files where tus_id = $1", [tusId]);
  return row?.parts ?? null;
}
