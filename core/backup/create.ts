/** Writes a backup archive of the embedded engine. The database and the uploads are frozen at one moment: while
 * this holds the database's only connection (no statement runs and no transaction is open), it checkpoints, reads
 * the data directory (./pgdata.ts) and hard-links the stored objects (./uploads.ts). Requests wait for that moment
 * only; the archive is written afterwards while they run again. A file row committed before the moment has its
 * bytes in the archive: objects are written before their row commits and deleted after it. */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import { create as createTar } from 'tar';
import type { Database } from '../db/database.ts';
import {
  BACKUP_FORMAT, BACKUP_VERSION, DATABASE_ENTRY, MANIFEST_ENTRY, PG_SUBDIR, SECRET_ENTRY, UPLOADS_ENTRY, type BackupManifest,
} from './manifest.ts';
import { readDataFiles, writeDataFiles } from './pgdata.ts';
import { snapshotUploads } from './uploads.ts';

export interface BackupSource {
  /** The embedded database, open in this process on `${dataDir}/pg`. */
  database: Database;
  /** DATA_DIR: holds `pg/` and, without SECRET in the environment, the `secret` file. */
  dataDir: string;
  /** STORAGE_LOCAL_ROOT: the built-in local storage root. */
  uploadsRoot: string;
  /** Whether a running server takes the snapshot (recorded in the manifest). */
  live: boolean;
}

/** Writes the archive to `file` (complete or not at all: written under a temporary name, renamed at the end). */
export async function writeBackup(source: BackupSource, file: string): Promise<BackupManifest> {
  const { database, dataDir } = source;
  if (database.kind !== 'pglite') throw new Error('backups are for the embedded engine; use pg_dump for a Postgres server');
  // Beside the data (same file system as DATA_DIR, so uploads are usually linked, not copied).
  const staging = join(dataDir, `.backup-${randomBytes(6).toString('hex')}`);
  await mkdir(staging, { recursive: true, mode: 0o700 });
  const partial = `${file}.${randomBytes(6).toString('hex')}.part`;
  try {
    const frozen = await database.db.connection().execute(async (conn) => {
      const held = performance.now();
      await sql`checkpoint`.execute(conn);
      const takenAt = new Date().toISOString();
      const pg = await readDataFiles(join(dataDir, PG_SUBDIR));
      const uploads = await snapshotUploads(source.uploadsRoot, join(staging, UPLOADS_ENTRY));
      return { takenAt, pg, uploads, pauseMs: Math.round(performance.now() - held) };
    });
    await writeDataFiles(frozen.pg, join(staging, DATABASE_ENTRY));
    frozen.pg.clear();
    const secretFile = join(dataDir, SECRET_ENTRY);
    const secret = existsSync(secretFile);
    if (secret) await copyFile(secretFile, join(staging, SECRET_ENTRY));
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT, version: BACKUP_VERSION, takenAt: frozen.takenAt, engine: 'pglite', live: source.live, pauseMs: frozen.pauseMs,
      uploads: frozen.uploads, secret,
    };
    await writeFile(join(staging, MANIFEST_ENTRY), `${JSON.stringify(manifest, null, 2)}\n`);
    const entries = [MANIFEST_ENTRY, DATABASE_ENTRY, ...(secret ? [SECRET_ENTRY] : []), ...(frozen.uploads > 0 ? [UPLOADS_ENTRY] : [])];
    // Owner-only: the archive holds the whole database and the signing secret.
    await pipeline(createTar({ cwd: staging, portable: true }, entries), createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
    await rename(partial, file);
    return manifest;
  } finally {
    await rm(partial, { force: true });
    await rm(staging, { recursive: true, force: true });
  }
}
