/** Runs once per `vitest run`: migrates and bootstraps one template database (PGlite dump, or a Postgres
 * template database when TEST_DATABASE_URL is set) that every test file then clones. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../core/config.ts';
import { bootstrap } from '../../core/bootstrap.ts';
import { openDatabase, run } from '../../core/db/database.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { ADMIN_TOKEN, PG_TEMPLATE_DB, PGLITE_TEMPLATE_PATH, testEnv, withDatabase } from './template.ts';

async function prepare(database: Awaited<ReturnType<typeof openDatabase>>) {
  await migrateToLatest(database);
  await bootstrap(database.db, loadConfig(testEnv()));
  await run(database.db, 'update svc_users set token = $1 where email = $2', [ADMIN_TOKEN, testEnv().ADMIN_EMAIL]);
}

export default async function setup(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const admin = new pg.Client({ connectionString: url });
    try {
      await admin.connect();
    } catch (err) {
      throw new Error(`TEST_DATABASE_URL is set but Postgres is unreachable: ${(err as Error).message}`);
    }
    await admin.query(`drop database if exists ${PG_TEMPLATE_DB}`);
    await admin.query(`create database ${PG_TEMPLATE_DB}`);
    await admin.end();
    const database = await openDatabase({ databaseUrl: withDatabase(url, PG_TEMPLATE_DB) });
    await prepare(database);
    await database.close();
    return;
  }
  if (process.env.CI === 'true' && process.env.REQUIRE_TEST_DATABASE === 'true') {
    throw new Error('REQUIRE_TEST_DATABASE is set but TEST_DATABASE_URL is not');
  }
  const database = await openDatabase({ databaseUrl: null, inMemory: true });
  await prepare(database);
  const dump = await database.dump!();
  mkdirSync(dirname(PGLITE_TEMPLATE_PATH), { recursive: true });
  writeFileSync(PGLITE_TEMPLATE_PATH, Buffer.from(await dump.arrayBuffer()));
  await database.close();
}
