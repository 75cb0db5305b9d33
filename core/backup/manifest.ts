/** What a backup archive of the embedded engine holds, named once: a manifest, the database's data directory, the
 * files of the built-in local storage root and the persisted signing secret. */
export const BACKUP_FORMAT = 'svc-backup';
export const BACKUP_VERSION = 1;

/** Entry names inside the archive (a plain tar). */
export const MANIFEST_ENTRY = 'svc-backup.json';
/** The data directory, as DATA_DIR/pg holds it. */
export const DATABASE_ENTRY = 'pg';
export const SECRET_ENTRY = 'secret';
export const UPLOADS_ENTRY = 'uploads';

/** The PGlite data directory under DATA_DIR (core/db/database.ts opens `${DATA_DIR}/pg`). */
export const PG_SUBDIR = 'pg';

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  /** ISO time the snapshot was taken (the database and the uploads are from this moment). */
  takenAt: string;
  engine: 'pglite';
  /** Whether the server was running (snapshot taken by it) or stopped (taken by the command). */
  live: boolean;
  /** How long requests waited for the snapshot (the database held, checkpointed, read and the files linked), ms. */
  pauseMs: number;
  /** Files of the local storage root in the archive. */
  uploads: number;
  /** Whether DATA_DIR/secret is in the archive (absent when SECRET is set in the environment). */
  secret: boolean;
}

/** Checks a manifest read back from an archive; throws with the reason when it is not one this version restores. */
export function parseManifest(text: string): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${MANIFEST_ENTRY} is not JSON`);
  }
  const m = value as Partial<BackupManifest> | null;
  if (!m || m.format !== BACKUP_FORMAT) throw new Error('not a backup of this service (no svc-backup manifest)');
  if (m.version !== BACKUP_VERSION) throw new Error(`backup format version ${String(m.version)} is not supported (this version reads ${BACKUP_VERSION})`);
  if (m.engine !== 'pglite') throw new Error(`backup of engine ${String(m.engine)} cannot be restored here`);
  return m as BackupManifest;
}
