/** multipart/form-data uploads (POST /files, PATCH /files/{id}), as Directus: fields before a file part apply
 * to that file (then start afresh; `storage` stays chosen), any number of files per request. Each file part is
 * streamed straight into storage. The request is all or nothing: rows are created once the whole body has been
 * read, in one transaction, and any failure removes every object this request stored. */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import type { StorageProviders } from '../storage/registry.ts';
import { sanitizeDownloadName } from './names.ts';
import { formFields, parseForm } from './form.ts';
import { checkFileCreate, checkFileUpdate, createFileRecord, updateFileRecord, type NewFile } from './records.ts';
import { removeTransforms } from './purge.ts';
import { fileRow } from './rows.ts';
import { storeFile, type StoredFile } from './store.ts';

interface Part {
  file: NewFile;
  fields: Record<string, unknown>;
  content: StoredFile;
}

function driverName(providers: StorageProviders, requested: string | null): string {
  const name = requested ?? providers.defaultName;
  if (!providers.has(name)) throw new InvalidPayloadError(`Invalid payload. Unknown storage "${String(name).slice(0, 80)}".`, { field: 'storage' });
  return name;
}

async function discard(providers: StorageProviders, parts: Part[]): Promise<void> {
  for (const p of parts) await providers.get(p.file.storage).delete(p.content.filename_disk).catch(() => {});
}

export interface UploadInput {
  contentType: string;
  body: Readable;
}

/** POST /files: creates one row per file part; answers their ids in order. */
export async function uploadFiles(ctx: ServiceContext, providers: StorageProviders, input: UploadInput): Promise<string[]> {
  const parts: Part[] = [];
  try {
    await parseForm(input.contentType, input.body, ctx.config.maxPayloadSize, {
      async onFile(raw, storage, filename, type, data) {
        const fields = formFields(ctx, raw);
        const file: NewFile = { id: randomUUID(), storage: driverName(providers, storage), filename_download: sanitizeDownloadName(filename), type };
        await checkFileCreate(ctx, fields, file);
        const content = await storeFile({ driver: providers.get(file.storage), id: file.id, filename, declaredType: type, data, config: ctx.config.files });
        parts.push({ file, fields, content });
      },
    });
    if (parts.length === 0) throw new InvalidPayloadError('Invalid payload. No file was uploaded.', { field: 'file' });
    return await inTransaction(ctx.db, async (trx) => {
      const ids: string[] = [];
      for (const p of parts) ids.push(await createFileRecord({ ...ctx, db: trx }, p.fields, p.file, p.content));
      return ids;
    });
  } catch (err) {
    await discard(providers, parts);
    throw err;
  }
}

/** PATCH /files/{id} as multipart: fields, and at most one file part replacing the content (same id; the new
 * object first, then the old one and its cached transforms removed). */
export async function replaceFile(ctx: ServiceContext, providers: StorageProviders, id: string, input: UploadInput): Promise<string> {
  const row = await fileRow(ctx, id);
  // A missing row, or an incomplete resumable upload, is answered as a missing item.
  if (!row || row.tus_id !== null) throw new ForbiddenError();
  const parts: Part[] = [];
  try {
    const trailing = await parseForm(input.contentType, input.body, ctx.config.maxPayloadSize, {
      async onFile(raw, storage, filename, type, data) {
        if (parts.length > 0) throw new InvalidPayloadError('Invalid payload. Only one file can replace a file.');
        const fields = formFields(ctx, raw);
        await checkFileUpdate(ctx, id, fields);
        // The file stays on its storage; a `storage` field can't move it.
        if (storage !== null && storage !== row.storage) throw new InvalidPayloadError('Invalid payload. A replacement stays on the file\'s storage.', { field: 'storage' });
        const file: NewFile = { id, storage: row.storage, filename_download: sanitizeDownloadName(filename), type };
        const content = await storeFile({ driver: providers.get(row.storage), id, filename, declaredType: type, data, config: ctx.config.files });
        parts.push({ file, fields, content });
      },
    });
    const part = parts[0];
    const fields = { ...(part?.fields ?? {}), ...formFields(ctx, trailing) };
    if (part && fields.filename_download === undefined) fields.filename_download = part.file.filename_download;
    await updateFileRecord(ctx, id, fields, part?.content ?? null);
    if (part) {
      const driver = providers.get(row.storage);
      if (row.filename_disk && row.filename_disk !== part.content.filename_disk) await driver.delete(row.filename_disk).catch(() => {});
      if (row.filename_disk) await removeTransforms(driver, row.filename_disk).catch(() => {});
      await removeTransforms(driver, part.content.filename_disk).catch(() => {});
    }
    return id;
  } catch (err) {
    // A replacement stored under the old key has already taken its place; only a new key can be discarded.
    await discard(providers, parts.filter((p) => p.content.filename_disk !== row.filename_disk));
    throw err;
  }
}
