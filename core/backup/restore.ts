/** Restores a backup archive (./create.ts) into a data directory and a local storage root: the database's data
 * directory, which is then opened once as the server opens it (so a damaged archive fails here, not at the next
 * server start), then the signing secret and the stored objects. A data directory or storage root that already holds
 * something is refused unless `force` is given; with it, the database and the secret are replaced and the backup's
 * objects are written over same-named ones (other files are left). */
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { extract } from 'tar';
import { openDatabase, run } from '../db/database.ts';
import {
  DATABASE_ENTRY, MANIFEST_ENTRY, PG_SUBDIR, SECRET_ENTRY, UPLOADS_ENTRY, parseManifest, type BackupManifest,
} from './manifest.ts';

export interface RestoreTarget {
  /** DATA_DIR to restore into. */
  dataDir: string;
  /** STORAGE_LOCAL_ROOT to restore the stored objects into. */
  uploadsRoot: string;
  /** Replace what is there instead of refusing. */
  force: boolean;
}

/** A refusal before anything was written (a non-empty target without `force`). */
export class RestoreRefusedError extends Error {}

/** Entries of a folder that count as content (a missing folder has none; hidden entries of the storage root are
 * temporary or staging files, not objects). */
async function contentOf(dir: string, skipHidden: boolean): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => !(skipHidden && name.startsWith('.')));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

async function assertRestorable(target: RestoreTarget): Promise<void> {
  if (target.force) return;
  if ((await contentOf(target.dataDir, false)).length > 0) {
    throw new RestoreRefusedError(`${target.dataDir} is not empty: restore into a new directory, or pass --force to replace its database`);
  }
  if ((await contentOf(target.uploadsRoot, true)).length > 0) {
    throw new RestoreRefusedError(`${target.uploadsRoot} already holds files: restore into a new directory, or pass --force to write over them`);
  }
}

/** Opens the restored data directory as the server does and checks the service's tables are there; removes it
 * again on failure. */
async function checkDatabase(dataDir: string): Promise<void> {
  const pgDir = join(dataDir, PG_SUBDIR);
  try {
    if (!existsSync(join(pgDir, 'PG_VERSION'))) throw new Error('no data directory in it');
    const database = await openDatabase({ databaseUrl: null, dataDir, wasmCompiler: 'baseline' });
    try {
      await run(database.db, 'select count(*) from svc_migrations');
    } finally {
      await database.close();
    }
  } catch (err) {
    await rm(pgDir, { recursive: true, force: true });
    throw new Error(`the database in the backup could not be opened: ${(err as Error).message}`);
  }
}

export async function restoreBackup(file: string, target: RestoreTarget): Promise<BackupManifest> {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  await assertRestorable(target);
  await mkdir(target.dataDir, { recursive: true });
  const staging = join(target.dataDir, `.restore-${randomBytes(6).toString('hex')}`);
  await mkdir(staging, { mode: 0o700 });
  try {
    const wanted = new Set([MANIFEST_ENTRY, SECRET_ENTRY]);
    await extract({ file, cwd: staging, strict: true, filter: (path) => wanted.has(path) });
    if (!existsSync(join(staging, MANIFEST_ENTRY))) throw new Error(`${file} is not a backup of this service (no ${MANIFEST_ENTRY})`);
    const manifest = parseManifest(await readFile(join(staging, MANIFEST_ENTRY), 'utf8'));

    await rm(join(target.dataDir, PG_SUBDIR), { recursive: true, force: true });
    const database = `${DATABASE_ENTRY}/`;
    await extract({ file, cwd: target.dataDir, strict: true, filter: (path) => path.startsWith(database) });
    await checkDatabase(target.dataDir);

    if (manifest.secret) {
      const secret = join(target.dataDir, SECRET_ENTRY);
      await rm(secret, { force: true });
      await copyFile(join(staging, SECRET_ENTRY), secret);
      await chmod(secret, 0o600);
    }
    if (manifest.uploads > 0) {
      await mkdir(target.uploadsRoot, { recursive: true });
      const prefix = `${UPLOADS_ENTRY}/`;
      await extract({ file, cwd: target.uploadsRoot, strict: true, strip: 1, filter: (path) => path.startsWith(prefix) && path.length > prefix.length });
    }
    return manifest;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
