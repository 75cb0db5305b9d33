/** `npm run backup -- <file>` and `npm run restore -- <file>`: backups of the embedded engine (docs/backups.md).
 * Compiled with the server, so an image without the sources runs it as `node dist/container/backup-cli.js backup
 * <file>`.
 *
 * backup: when a server runs on DATA_DIR, it takes the snapshot itself (asked on DATA_DIR/control.sock); when none
 * does, this process opens the data directory and takes it. restore: into a DATA_DIR and STORAGE_LOCAL_ROOT that
 * are empty or missing (--force replaces what is there), never under a running server.
 *
 * DATA_DIR and STORAGE_LOCAL_ROOT come from the environment, as for the server, or from --data-dir and
 * --uploads-dir. Paths given on the command line are taken from the directory npm was called in. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config.ts';
import { openDatabase } from '../core/db/database.ts';
import { writeBackup } from '../core/backup/create.ts';
import { PG_SUBDIR, type BackupManifest } from '../core/backup/manifest.ts';
import { RestoreRefusedError, restoreBackup } from '../core/backup/restore.ts';
import { requestBackup, serverAnswers } from './control-socket.ts';

const USAGE = `usage:
  npm run backup -- <file> [--data-dir <dir>] [--uploads-dir <dir>] [--force]
  npm run restore -- <file> [--data-dir <dir>] [--uploads-dir <dir>] [--force]
backup --force writes over an existing file (and backs up a stopped data directory whose server did not shut down
cleanly); restore --force replaces the database of a non-empty data directory.`;

class UsageError extends Error {}

/** The directory the user typed the command in (npm runs scripts from the package root). */
const callerDir = process.env.INIT_CWD ?? process.cwd();

function describe(manifest: BackupManifest): string {
  return `database and ${manifest.uploads} stored file(s)${manifest.secret ? ', signing secret' : ''}, taken at ${manifest.takenAt}`
    + ` (server ${manifest.live ? `running, requests waited ${manifest.pauseMs} ms` : 'stopped'})`;
}

async function backup(file: string, dataDir: string, uploadsRoot: string, force: boolean): Promise<void> {
  if (existsSync(file) && !force) throw new UsageError(`${file} exists: choose another name, or pass --force to replace it`);
  const asked = await requestBackup(dataDir, file);
  if (asked) {
    console.log(`Backup written to ${file}: ${describe(asked)}.`);
    return;
  }
  const pgDir = join(dataDir, PG_SUBDIR);
  if (!existsSync(join(pgDir, 'PG_VERSION'))) throw new UsageError(`no embedded database in ${pgDir} (is DATA_DIR right?)`);
  // PGlite keeps this file while the database is open: a server that runs without a control socket, or one that
  // was killed. A second process must never open a data directory a server has open.
  if (existsSync(join(pgDir, 'postmaster.pid')) && !force) {
    throw new UsageError(`${pgDir} is in use, or its server did not shut down cleanly, and no server answers on its control socket.`
      + ' Stop the server; if none runs on it, pass --force.');
  }
  const database = await openDatabase({ databaseUrl: null, dataDir, wasmCompiler: 'baseline' });
  try {
    const manifest = await writeBackup({ database, dataDir, uploadsRoot, live: false }, file);
    console.log(`Backup written to ${file}: ${describe(manifest)}.`);
  } finally {
    await database.close();
  }
}

async function restore(file: string, dataDir: string, uploadsRoot: string, force: boolean): Promise<void> {
  if (await serverAnswers(dataDir)) throw new UsageError(`a server is running on ${dataDir}: stop it before restoring into it`);
  const manifest = await restoreBackup(file, { dataDir, uploadsRoot, force });
  console.log(`Restored ${file} into ${dataDir} (uploads: ${uploadsRoot}): ${describe(manifest)}.`);
  if (!manifest.secret) console.log('The backup holds no signing secret: start the server with the SECRET it had.');
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'data-dir': { type: 'string' }, 'uploads-dir': { type: 'string' }, force: { type: 'boolean', default: false } },
  });
  const [command, target, ...extra] = positionals;
  if ((command !== 'backup' && command !== 'restore') || !target || extra.length > 0) throw new UsageError(USAGE);
  const config = loadConfig();
  const dataDirOption = values['data-dir'];
  const uploadsOption = values['uploads-dir'];
  if (config.databaseUrl && dataDirOption === undefined) {
    throw new UsageError('DATABASE_URL is set: back up a Postgres server with pg_dump / pg_restore (docs/backups.md)');
  }
  const dataDir = dataDirOption === undefined ? resolve(config.dataDir) : resolve(callerDir, dataDirOption);
  const uploadsRoot = uploadsOption === undefined ? config.files.storageLocalRoot : resolve(callerDir, uploadsOption);
  const file = resolve(callerDir, target);
  if (command === 'backup') await backup(file, dataDir, uploadsRoot, values.force);
  else await restore(file, dataDir, uploadsRoot, values.force);
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  console.error(err instanceof UsageError || err instanceof RestoreRefusedError || err instanceof TypeError ? err.message : `failed: ${(err as Error).message}`);
  process.exitCode = 1;
}
