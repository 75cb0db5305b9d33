/** Resumable uploads (SPEC.md > States > Resumable upload): the svc_files row is the upload. While `tus_id` is set
 * the file is incomplete (hidden from GET /files, 404 on /assets); completion stores the bytes under `{id}.{ext}`,
 * probes them and clears `tus_id`. Incomplete uploads expire after TUS_UPLOAD_EXPIRATION without activity
 * (`modified_on` is touched by every request on the upload) and are removed by `cleanupExpiredUploads`, which
 * claims rows with FOR UPDATE SKIP LOCKED so two containers never clean the same upload twice.
 *
 * Permissions as Directus: a new file needs Perm(create) on svc_files, replacing an existing file's content needs
 * Perm(update) on that row (both through the items write service, so row filters, field lists, validation and
 * presets apply and activity is recorded). Only the uploader (or an admin) can continue an upload. */
import { Readable } from 'node:stream';
import type { Accountability } from '../access/accountability.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, type Executor } from '../db/database.ts';
import { ContentTooLargeError, ForbiddenError, InvalidPayloadError, NotFoundError, ServiceError, UnsupportedMediaTypeError } from '../errors.ts';
import { createItem, updateItem } from '../items/write/index.ts';
import type { ConfigPort, DatabasePort, SchemaPort } from '../ports.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { safeExtension } from '../storage/keys.ts';
import type { StoragePort } from '../storage/registry.ts';
import { probeStoredFile } from '../files/metadata.ts';
import { FILES } from '../files/records.ts';
import {
  claimExpiredUploads, completeUploadRow, deleteUploadRow, isCompleteAt, isKeyReferenced, lockFileForReplace, markUploading,
  restoreReplacedFile, selectUpload, touchUploadRow, type UploadFileRow,
} from '../files/table.ts';
import { isUuid } from '../uuid.ts';

/** A tus protocol answer that has no code in SPEC.md > Errors (409 conflict, 410 gone): sent as tus sends it. */
export class TusStatus extends Error {
  constructor(readonly status_code: number, readonly body: string) { super(body.trim()); }
}

export const GONE = () => new TusStatus(410, 'The upload has expired\n');

/** An upload's row (core/files/table.ts reads and writes it); `tus_data` holds a TusData, read by `tusData`. */
export type UploadRow = UploadFileRow;

/** What svc_files.tus_data holds while an upload runs. */
export interface TusData {
  size: number;
  /** The row existed before: its content is being replaced. `previous` restores it if the upload expires. */
  replace?: { previous: { filename_download: string; type: string | null; title: string | null } };
  metadata: Record<string, string | null>;
}

export function tusData(row: UploadRow): TusData {
  return ((typeof row.tus_data === 'string' ? JSON.parse(row.tus_data) : row.tus_data) as TusData | null) ?? { size: 0, metadata: {} };
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

/** FILES_MIME_TYPE_ALLOW_LIST: `*`, exact types, or `type/*`. */
export function mimeTypeAllowed(type: string, allow: string[]): boolean {
  const t = type.toLowerCase();
  return allow.some((a) => a === '*' || a === '*/*' || a === t || (a.endsWith('/*') && t.startsWith(a.slice(0, -1))));
}

export interface UploadRequest {
  filename: string;
  type: string;
  title: string | null;
  folder: string | null;
  /** An existing file whose content the upload replaces. */
  replace: string | null;
  storage: string | null;
}

/** Upload-Metadata (already base64-decoded by the tus layer) -> what to create. */
export function parseUploadMetadata(meta: Record<string, string | null | undefined>, allow: string[]): UploadRequest {
  const str = (k: string) => { const v = meta[k]; return typeof v === 'string' && v.trim() !== '' ? v.trim() : null; };
  const filename = str('filename');
  if (!filename) throw new InvalidPayloadError('Upload-Metadata must contain "filename".');
  if (filename.length > 255 || /[\u0000-\u001f/\\]/.test(filename)) throw new InvalidPayloadError('"filename" is not a valid file name.');
  const type = (str('filetype') ?? str('type') ?? 'application/octet-stream').toLowerCase();
  if (!MIME.test(type)) throw new InvalidPayloadError('"filetype" must be a MIME type.');
  if (!mimeTypeAllowed(type, allow)) throw new UnsupportedMediaTypeError(`File type "${type}" is not allowed.`);
  const folder = str('folder');
  if (folder !== null && !isUuid(folder)) throw new InvalidPayloadError('"folder" must be a uuid.');
  const replace = str('id');
  if (replace !== null && !isUuid(replace)) throw new InvalidPayloadError('"id" must be the uuid of an existing file.');
  const title = str('title');
  if (title !== null && title.length > 255) throw new InvalidPayloadError('"title" is too long.');
  return { filename, type, title, folder, replace, storage: str('storage') };
}

function defaultTitle(filename: string): string {
  const dot = filename.lastIndexOf('.');
  const base = dot > 0 ? filename.slice(0, dot) : filename;
  return base.replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim().replace(/\b\w/g, (c) => c.toUpperCase()) || filename;
}

/** Storage key of a file's bytes. */
export function storageKey(fileId: string, filename: string): string {
  const ext = safeExtension(filename);
  return ext ? `${fileId}.${ext}` : fileId;
}

/** POST /tus: the caller's row for a new upload (or the replacement of an existing file), tus_id set. */
export async function beginUpload(services: ConfigPort & StoragePort, ctx: ServiceContext, tusId: string, size: number, meta: Record<string, string | null | undefined>): Promise<string> {
  const cfg = services.config.files;
  if (!Number.isSafeInteger(size) || size < 0) throw new InvalidPayloadError('Upload-Length must be given (deferred lengths are not supported).');
  if (size > cfg.maxUploadSize) throw new ContentTooLargeError();
  const req = parseUploadMetadata(meta, cfg.mimeTypeAllowList);
  const providers = await services.storage.providers(ctx.schema.version);
  const system: ServiceContext = { ...ctx, system: true };
  return inTransaction(ctx.db, async (trx) => {
    const tctx: ServiceContext = { ...system, db: trx };
    if (req.replace) {
      if (req.replace !== tusId) throw new InvalidPayloadError('"id" must be the uuid of an existing file.');
      const row = await lockFileForReplace(trx, req.replace);
      // A missing file reads like one the caller can't see (Directus' 403 for invisible items).
      if (!row) throw new ForbiddenError();
      if (row.tus_id) throw new TusStatus(409, 'The file already has an upload in progress\n');
      if (req.storage && req.storage !== row.storage) throw new InvalidPayloadError('A replacement is stored where the file is ("storage" can\'t change).');
      assertTusStorage(providers.has(row.storage) ? providers.get(row.storage) : null, row.storage);
      // Perm(update) on this row (row filter, fields, validation): the items service refuses otherwise.
      await updateItem(tctx, FILES, row.id, {
        filename_download: req.filename, type: req.type, ...(req.title !== null ? { title: req.title } : {}),
        ...(req.folder !== null ? { folder: req.folder } : {}),
      });
      const data: TusData = { size, metadata: stringMeta(meta), replace: { previous: { filename_download: row.filename_download, type: row.type, title: row.title } } };
      await markUploading(trx, row.id, tusId, JSON.stringify(data), { modified_by: ctx.accountability.user });
      return row.id;
    }
    const storage = req.storage ?? providers.defaultName;
    if (!providers.has(storage)) throw new InvalidPayloadError(`Storage "${storage}" is not configured.`);
    assertTusStorage(providers.get(storage), storage);
    const id = String(await createItem(tctx, FILES, {
      id: tusId, storage, filename_download: req.filename, title: req.title ?? defaultTitle(req.filename), type: req.type,
      ...(req.folder !== null ? { folder: req.folder } : {}),
    }));
    const data: TusData = { size, metadata: stringMeta(meta) };
    await markUploading(trx, id, tusId, JSON.stringify(data), { uploaded_by: ctx.accountability.user, filesize: size });
    return id;
  });
}

function stringMeta(meta: Record<string, string | null | undefined>): Record<string, string | null> {
  return Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, v ?? null]));
}

/** Local providers stage in `{STORAGE_LOCAL_ROOT}/.tus`, objectstore providers in their bucket (core/tus/stores.ts). */
function assertTusStorage(driver: StorageDriver | null, name: string): void {
  if (!driver) throw new InvalidPayloadError(`Storage "${name}" is not configured.`);
}

export async function findUpload(db: Executor, tusId: string): Promise<UploadRow | null> {
  return selectUpload(db, tusId);
}

/** PATCH/HEAD/DELETE /tus/{id}: the upload exists, is the caller's (or the caller is an admin) and has not
 * expired. Someone else's upload answers 404 as a missing one does. */
export async function requireUpload(db: Executor, accountability: Accountability, tusId: string, expirationMs: number, now = new Date()): Promise<UploadRow> {
  const row = await findUpload(db, tusId);
  if (!row) throw new NotFoundError();
  // A new file's upload belongs to its uploader, a replacement to whoever started it (modified_by then).
  const owner = tusData(row).replace ? row.modified_by : row.uploaded_by;
  if (!accountability.admin && (!accountability.user || owner !== accountability.user)) throw new NotFoundError();
  if (isExpired(row, expirationMs, now)) throw GONE();
  return row;
}

export function isExpired(row: Pick<UploadRow, 'modified_on'>, expirationMs: number, now = new Date()): boolean {
  return new Date(row.modified_on).getTime() + expirationMs < now.getTime();
}

/** Activity on an upload: restarts its expiration. */
export async function touchUpload(db: Executor, tusId: string): Promise<void> {
  await touchUploadRow(db, tusId);
}

/** The staged bytes as a read-only driver, so the probe reads their first bytes before anything is stored. */
function stagedBytes(open: () => Readable | Promise<Readable>, size: number): StorageDriver {
  async function* slice(src: Readable, start: number, end: number): AsyncGenerator<Buffer> {
    let pos = 0;
    try {
      for await (const chunk of src) {
        const b = chunk as Buffer;
        const from = Math.max(0, start - pos);
        const to = Math.min(b.length, end + 1 - pos);
        if (to > from) yield b.subarray(from, to);
        pos += b.length;
        if (pos > end) break;
      }
    } finally {
      src.destroy();
    }
  }
  return {
    driver: 'local',
    async read(_key, range) {
      const src = await open();
      return range ? Readable.from(slice(src, range.start, range.end)) : src;
    },
    async write() { throw new Error('Staged uploads are read-only.'); },
    async stat() { return { size, modified: new Date() }; },
    async delete() {},
    async *list() {},
  };
}

/** The last byte arrived: probe the staged bytes (the type is checked against FILES_MIME_TYPE_ALLOW_LIST again,
 * from the bytes, as POST /files does), copy them to `{id}.{ext}` in the row's storage and mark the row complete.
 * Runs again harmlessly if a previous attempt died half-way (the staged upload stays until the row is complete).
 * A refused type gives the upload up (`removeStaged` included) and throws UNSUPPORTED_MEDIA_TYPE. */
export async function completeUpload(services: ConfigPort & DatabasePort & SchemaPort & StoragePort, tusId: string, openStaged: () => Readable | Promise<Readable>, removeStaged: () => Promise<void>): Promise<string> {
  const db = services.database.db;
  const row = await findUpload(db, tusId);
  if (!row) throw new NotFoundError();
  const data = tusData(row);
  const probed = await probeStoredFile(stagedBytes(openStaged, data.size), tusId, row.type ?? 'application/octet-stream');
  const type = probed.type ?? row.type ?? 'application/octet-stream';
  if (!mimeTypeAllowed(type, services.config.files.mimeTypeAllowList)) {
    await abandonUpload(db, row);
    await removeStaged();
    throw new UnsupportedMediaTypeError(`File type "${type}" is not allowed.`);
  }
  const providers = await services.storage.providers((await services.schema.get()).version);
  const driver = providers.get(row.storage);
  const key = storageKey(row.id, row.filename_download);
  const size = await driver.write(key, await openStaged(), type);
  if (size !== data.size) {
    await deleteUnreferenced(db, driver, row.storage, key);
    throw new ServiceError(500, 'INTERNAL_SERVER_ERROR', `Stored ${size} bytes of an upload of ${data.size}.`);
  }
  const done = await completeUploadRow(db, tusId, {
    filename_disk: key, filesize: size, type, width: probed.width, height: probed.height, duration: probed.duration,
    charset: probed.charset, metadata: probed.metadata === null ? null : JSON.stringify(probed.metadata),
  });
  if (!done) {
    // Terminated or cleaned up meanwhile (or completed by a concurrent request): keep only referenced bytes.
    await deleteUnreferenced(db, driver, row.storage, key);
    if (!await isCompleteAt(db, row.id, key)) throw new NotFoundError();
    return row.id;
  }
  if (data.replace) {
    // The old bytes (another extension) and transforms cached from them go.
    if (row.filename_disk && row.filename_disk !== key) await driver.delete(row.filename_disk).catch(() => {});
    for (const base of new Set([row.id, (row.filename_disk ?? row.id).replace(/\.[^.]*$/, '')])) {
      for await (const cached of driver.list(`${base}__`)) await driver.delete(cached).catch(() => {});
    }
  }
  return row.id;
}

/** Deletes bytes written for an upload that did not complete, unless a row names them (a replacement writes over
 * its file's own key when the extension is unchanged). */
async function deleteUnreferenced(db: Executor, driver: StorageDriver, storage: string, key: string): Promise<void> {
  if (!await isKeyReferenced(db, storage, key)) await driver.delete(key).catch(() => {});
}

/** An upload given up (DELETE /tus/{id}, or expired): a new file's row goes, a replacement gets its previous
 * state back (its stored bytes were never touched). */
export async function abandonUpload(db: Executor, row: UploadRow): Promise<void> {
  const data = tusData(row);
  if (data.replace) {
    await restoreReplacedFile(db, row.id, row.tus_id, data.replace.previous);
  } else {
    await deleteUploadRow(db, row.id, row.tus_id);
  }
}

export interface CleanupOptions {
  now?: Date;
  /** Removes the staged bytes of an upload (absent is fine). */
  removeStaged(tusId: string, storage: string): Promise<void>;
  batch?: number;
}

/** The TUS_CLEANUP_SCHEDULE job: removes uploads idle for longer than TUS_UPLOAD_EXPIRATION, their staged bytes
 * included. Rows are claimed with FOR UPDATE SKIP LOCKED, so concurrent cleaners (several containers) split the
 * work and none handles an upload twice. Returns the tus ids removed. */
export async function cleanupExpiredUploads(services: ConfigPort & DatabasePort, opts: CleanupOptions): Promise<string[]> {
  const cutoff = new Date((opts.now ?? new Date()).getTime() - services.config.files.tusUploadExpirationMs);
  const removed: string[] = [];
  for (;;) {
    const batch = await inTransaction(services.database.db, async (trx) => {
      const rows = await claimExpiredUploads(trx, cutoff, opts.batch ?? 50);
      for (const row of rows) {
        await opts.removeStaged(row.tus_id, row.storage);
        await abandonUpload(trx, row);
      }
      return rows.map((r) => r.tus_id);
    });
    removed.push(...batch);
    if (batch.length < (opts.batch ?? 50)) return removed;
  }
}
