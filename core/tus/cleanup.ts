/** The TUS_CLEANUP_SCHEDULE job (SPEC.md > Resumable upload): expired uploads, claimed with FOR UPDATE SKIP LOCKED
 * (cleanupExpiredUploads), and staged bytes whose row is gone. */
import { opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { uploadExists } from '../files/table.ts';
import type { ConfigPort, DatabasePort, SchemaPort } from '../ports.ts';
import { scheduleCron } from '../schedule/cron.ts';
import type { StoragePort } from '../storage/registry.ts';
import { tusStaging, type TusStaging } from './staging.ts';
import { cleanupExpiredUploads } from './uploads.ts';

/** Staged uploads whose row is gone (the file was deleted while uploading, or a creation failed half-way) and
 * that have been idle past the expiration. */
async function sweepOrphans(services: ConfigPort & DatabasePort, rt: TusStaging, now: Date): Promise<string[]> {
  const cutoff = now.getTime() - services.config.files.tusUploadExpirationMs;
  const removed: string[] = [];
  let dir;
  try { dir = await opendir(rt.directory); } catch { return removed; }
  for await (const entry of dir) {
    if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
    const id = entry.name.slice(0, -5);
    const info = await stat(join(rt.directory, entry.name)).catch(() => null);
    const data = await stat(join(rt.directory, id)).catch(() => null);
    const last = Math.max(info?.mtimeMs ?? 0, data?.mtimeMs ?? 0);
    if (last >= cutoff) continue;
    if (await uploadExists(services.database.db, id)) continue;
    await rt.staging.remove(id).catch(() => {});
    removed.push(id);
  }
  return removed;
}

/** The TUS_CLEANUP_SCHEDULE job: expired uploads (rows and staged bytes) and orphaned staged bytes. */
export async function cleanupTusUploads(services: ConfigPort & DatabasePort & SchemaPort & StoragePort, now = new Date()): Promise<{ expired: string[]; orphans: string[] }> {
  const rt = tusStaging(services);
  // Providers loaded before rows are claimed: no other query has to wait inside the cleanup's transaction.
  await services.storage.providers((await services.schema.get()).version);
  const expired = await cleanupExpiredUploads(services, {
    now,
    removeStaged: (id, storage) => rt.store.removeFrom(storage, id),
  });
  const orphans = await sweepOrphans(services, rt, now);
  return { expired, orphans };
}

/** Runs the cleanup on TUS_CLEANUP_SCHEDULE in this (container or standalone) process; returns a stop function.
 * Several containers may run it at once: rows are claimed with SKIP LOCKED. */
export function startTusCleanup(services: ConfigPort & DatabasePort & SchemaPort & StoragePort): () => void {
  return scheduleCron(services.config.files.tusCleanupSchedule, async (now) => {
    const { expired, orphans } = await cleanupTusUploads(services, now);
    if ((expired.length || orphans.length) && services.config.logLevel !== 'silent') {
      console.log(`tus cleanup: ${expired.length} expired upload(s), ${orphans.length} orphaned staging file(s) removed`);
    }
  });
}
