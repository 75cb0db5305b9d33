/** svc_files rows of stored bytes, written through the items services so the caller's permission (action,
 * field list, presets, validation), activity and revisions apply as to any write. The caller's part (title,
 * folder, tags ... and the identity fields) is written under its accountability; what the server measured
 * (filename_disk, filesize, type, width, height, charset, metadata ...) follows in the same transaction with
 * the permission check lifted, as Directus does with its sudo service. Used by uploads, imports and tus. */
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { isPlainObject } from '../items/write/payload.ts';
import { createItem, updateItem, type PrimaryKey } from '../items/write/index.ts';
import { validateCreate, } from '../items/write/create.ts';
import { validateUpdate } from '../items/write/update.ts';
import { validation } from '../items/write/context.ts';
import { itemsCollection } from '../items/collection.ts';
import { InvalidPayloadError } from '../errors.ts';
import type { ProbedFile } from './metadata.ts';
import { sanitizeDownloadName } from './names.ts';

export const FILES = 'svc_files';

/** Fields only the server sets: a client value for them is dropped. */
const SERVER_FIELDS = [
  'id', 'storage', 'filename_disk', 'filesize', 'width', 'height', 'duration', 'charset', 'metadata', 'type',
  'uploaded_by', 'created_on', 'modified_by', 'modified_on', 'tus_id', 'tus_data',
] as const;

export interface FileContent extends ProbedFile {
  filename_disk: string;
  filesize: number;
}

export interface NewFile {
  id: string;
  storage: string;
  filename_download: string;
  /** The type the client declared; the create is checked with it before any byte is stored, and written with
   * the type read from the bytes. Part of the caller's write (as in Directus), so validation rules on `type`
   * apply. */
  type: string | null;
}

function filesContext(ctx: ServiceContext): ServiceContext {
  return { ...ctx, system: true };
}

function sudo(ctx: ServiceContext): ServiceContext {
  return { ...ctx, system: true, accountability: { ...ctx.accountability, admin: true } };
}

/** The client's fields with the server's removed. */
export function clientFields(payload: unknown): Record<string, unknown> {
  if (payload === undefined || payload === null) return {};
  if (!isPlainObject(payload)) throw new InvalidPayloadError('Invalid payload. File fields must be an object.');
  const out: Record<string, unknown> = { ...payload };
  for (const f of SERVER_FIELDS) delete out[f];
  if (typeof out.filename_download === 'string') out.filename_download = sanitizeDownloadName(out.filename_download);
  return out;
}

/** "my-holiday_photo.jpg" -> "My Holiday Photo", as Directus titles uploads that carry no title. */
export function titleFromFilename(filename: string): string {
  const dot = filename.lastIndexOf('.');
  const base = dot > 0 ? filename.slice(0, dot) : filename;
  return base.replace(/[-_]+/g, ' ').replace(/\s+/g, ' ').trim().replace(/\b\p{Ll}/gu, (ch) => ch.toUpperCase()).slice(0, 255);
}

/** The caller's part of a file create; `type` left out while still unknown (an import before its fetch). */
function createPayload(fields: Record<string, unknown>, file: NewFile, type: string | null): Record<string, unknown> {
  const title = fields.title === undefined ? titleFromFilename(file.filename_download) || null : fields.title;
  const payload: Record<string, unknown> = { ...fields, title, id: file.id, storage: file.storage, filename_download: fields.filename_download ?? file.filename_download };
  if (type !== null) payload.type = type;
  return payload;
}

function declared(type: string | null): string {
  return type?.split(';')[0].trim().toLowerCase() || 'application/octet-stream';
}

function contentPayload(content: FileContent): Record<string, unknown> {
  return {
    filename_disk: content.filename_disk, filesize: content.filesize, type: content.type, width: content.width,
    height: content.height, duration: content.duration, charset: content.charset, metadata: content.metadata,
  };
}

/** Description and tags from IPTC (Caption-Abstract, Keywords) where the client sent none, as Directus does. */
function fromIptc(fields: Record<string, unknown>, metadata: Record<string, unknown> | null): Record<string, unknown> {
  const iptc = metadata?.iptc;
  if (!iptc || typeof iptc !== 'object') return {};
  const out: Record<string, unknown> = {};
  const { Caption: caption, Keywords: keywords } = iptc as Record<string, unknown>;
  if (fields.description === undefined && typeof caption === 'string' && caption.trim()) out.description = caption.trim();
  if (fields.tags === undefined && keywords !== undefined) {
    const list = (Array.isArray(keywords) ? keywords : [keywords]).filter((k): k is string => typeof k === 'string' && k.trim() !== '');
    if (list.length) out.tags = list.map((k) => k.trim());
  }
  return out;
}

/** Permission and payload checks of a file create, before any byte is stored (no database write). */
export async function checkFileCreate(ctx: ServiceContext, fields: Record<string, unknown>, file: NewFile): Promise<void> {
  const c = filesContext(ctx);
  await validateCreate(await validation(c, FILES, 'create'), itemsCollection(c, FILES), createPayload(fields, file, file.type === null ? null : declared(file.type)));
}

/** Permission and payload checks of a file update, before any byte is stored. */
export async function checkFileUpdate(ctx: ServiceContext, id: string, fields: Record<string, unknown>): Promise<void> {
  const c = filesContext(ctx);
  await validateUpdate(await validation(c, FILES, 'update'), itemsCollection(c, FILES), [id], fields);
}

/** Creates the row of stored bytes; returns its id. Runs in ctx.db's transaction when it is one. */
export async function createFileRecord(ctx: ServiceContext, fields: Record<string, unknown>, file: NewFile, content: FileContent): Promise<string> {
  return inTransaction(ctx.db, async (trx) => {
    const key = await createItem(filesContext({ ...ctx, db: trx }), FILES, createPayload(fields, file, content.type ?? declared(file.type)));
    await updateItem(sudo({ ...ctx, db: trx }), FILES, key, {
      ...fromIptc(fields, content.metadata), ...contentPayload(content), uploaded_by: ctx.accountability.user,
    });
    return String(key);
  });
}

/** Updates a file's fields and, when given, its content (a replacement): modified_by/modified_on stamped. */
export async function updateFileRecord(ctx: ServiceContext, id: string, fields: Record<string, unknown>, content: FileContent | null): Promise<PrimaryKey> {
  return inTransaction(ctx.db, async (trx) => {
    const c = filesContext({ ...ctx, db: trx });
    if (Object.keys(fields).length > 0 || !content) await updateItem(c, FILES, id, fields);
    else await validation(c, FILES, 'update');
    await updateItem(sudo({ ...ctx, db: trx }), FILES, id, {
      ...(content ? contentPayload(content) : {}), modified_by: ctx.accountability.user, modified_on: new Date().toISOString(),
    });
    return id;
  });
}

/** The same fields on several files (PATCH /files with `{keys, data}`), in one transaction. */
export async function updateFileRecords(ctx: ServiceContext, ids: readonly string[], fields: Record<string, unknown>): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    for (const id of ids) await updateFileRecord({ ...ctx, db: trx }, id, fields, null);
  });
}
