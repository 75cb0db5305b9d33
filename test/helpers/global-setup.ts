/** Runs once per `vitest run`: makes sure one migrated, bootstrapped template exists (a PGlite dump, or a
 * Postgres template database when TEST_DATABASE_URL is set); every test file clones it. Builds the Studio when stale. */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../core/config.ts';
import { bootstrap } from '../../core/bootstrap.ts';
import { openDatabase, run, type Database } from '../../core/db/database.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { ensureStudio } from '../../scripts/build-studio.mjs';
import { ADMIN_TOKEN, PG_TEMPLATE_DB, PGLITE_TEMPLATE_PATH, testEnv, withDatabase } from './template.ts';

async function prepare(database: Database) {
  await migrateToLatest(database);
  await bootstrap(database.db, loadConfig(testEnv()));
  await run(database.db, 'update svc_users set token = $1 where email = $2', [ADMIN_TOKEN, testEnv().ADMIN_EMAIL]);
}

async function preparePostgres(url: string) {
  const admin = new pg.Client({ connectionString: url });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`TEST_DATABASE_URL is set but Postgres is unreachable: ${(err as Error).message}`);
  }
  try {
    await admin.query('select pg_advisory_lock(424242)');
    const { rows } = await admin.query('select datname from pg_database where datname = $1', [PG_TEMPLATE_DB]);
    if (rows.length > 0) return;
    const building = `${PG_TEMPLATE_DB}_build`;
    await admin.query(`drop database if exists ${building}`);
    await admin.query(`create database ${building}`);
    const database = await openDatabase({ databaseUrl: withDatabase(url, building) });
    await prepare(database);
    await database.close();
    await admin.query(`alter database ${building} rename to ${PG_TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
}

export default async function setup(): Promise<void> {
  // The Studio's browser journeys (test/studio) and its /admin serving tests need a current build.
  ensureStudio({ log: () => {} });
  const url = process.env.TEST_DATABASE_URL;
  if (url) return preparePostgres(url);
  if (existsSync(PGLITE_TEMPLATE_PATH)) return;
  const database = await openDatabase({ databaseUrl: null, inMemory: true });
  await prepare(database);
  const dump = await database.dump!();
  mkdirSync(dirname(PGLITE_TEMPLATE_PATH), { recursive: true });
  const tmp = `${PGLITE_TEMPLATE_PATH}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  renameSync(tmp, PGLITE_TEMPLATE_PATH);
  await database.close();
}
