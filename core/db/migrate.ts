import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { derivedSchema, migrations } from '../../migrations/index.ts';
import type { Database } from './database.ts';
import { onSessionWithTimeout } from './statement-budget.ts';

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

/** Brings the svc_ tables to the latest migration; safe to call from several processes at once. On a Postgres
 * server the migrations run without the statement budget: a migration over a large table, or a process waiting for
 * another one's migration lock, must not be cut at DB_STATEMENT_TIMEOUT and leave the service unable to start. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  if (database.kind === 'pg') return onSessionWithTimeout(database.db, 0, migrate);
  return migrate(database.db);
}

/** The names of the migrations this database has not run yet (all of them on a new database). */
export async function pendingMigrations(database: Database): Promise<string[]> {
  const all = await migrator(database.db).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

function migrator(db: Kysely<any>): Migrator {
  return new Migrator({
    db,
    provider: new StaticProvider(),
    migrationTableName: 'svc_migrations',
    migrationLockTableName: 'svc_migrations_lock',
  });
}

/** Runs the pending migrations; answers the names of those that ran. */
async function migrate(db: Kysely<any>): Promise<string[]> {
  const { error, results } = await migrator(db).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String((error as Error).message ?? error)}`);
  }
  for (const step of derivedSchema) await step(db);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
