import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import { migrations } from '../../migrations/index.ts';
import type { Database } from './database.ts';

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

/** Brings the svc_ tables to the latest migration; safe to call from several processes at once. */
export async function migrateToLatest(database: Database): Promise<void> {
  const migrator = new Migrator({
    db: database.db,
    provider: new StaticProvider(),
    migrationTableName: 'svc_migrations',
    migrationLockTableName: 'svc_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String((error as Error).message ?? error)}`);
  }
}
