/** Deleting files: the rows through the items services (permission, activity), then their stored objects and
 * cached transforms. Bytes go only after the rows are gone, so a refused delete leaves everything in place. */
import type { ServiceContext } from '../context.ts';
import { deleteItem, deleteItems } from '../items/write/index.ts';
import type { StorageProviders } from '../storage/registry.ts';
import { FILES } from './records.ts';
import { removeStoredFile } from './purge.ts';
import { fileRows, type FileRow } from './rows.ts';

async function purge(providers: StorageProviders, rows: FileRow[]): Promise<void> {
  for (const row of rows) {
    if (!row.filename_disk || !providers.has(row.storage)) continue;
    await removeStoredFile(providers.get(row.storage), row.filename_disk).catch((err: unknown) => {
      // The row is gone; a leftover object is only wasted space. Never fail the request for it.
      console.error(`Could not remove stored object "${row.filename_disk}" of deleted file ${row.id}:`, (err as Error).message);
    });
  }
}

export async function deleteFile(ctx: ServiceContext, providers: StorageProviders, id: string): Promise<void> {
  const rows = await fileRows(ctx, [id]);
  await deleteItem({ ...ctx, system: true }, FILES, id);
  await purge(providers, rows);
}

export async function deleteFiles(ctx: ServiceContext, providers: StorageProviders, ids: unknown): Promise<void> {
  const list = Array.isArray(ids) ? ids.filter((k): k is string => typeof k === 'string') : [];
  const rows = await fileRows(ctx, list);
  await deleteItems({ ...ctx, system: true }, FILES, ids);
  await purge(providers, rows);
}
