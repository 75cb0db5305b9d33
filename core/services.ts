/** The ports chosen once at start-up from configuration, handed to every handler. */
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { bootstrap, type BootstrapResult } from './bootstrap.ts';
import { SchemaCache } from './schema/cache.ts';
import { AccessResolver } from './access/resolve.ts';
import { openSharedStore, type SharedStore } from './store/index.ts';
import { StorageRegistry } from './storage/registry.ts';

export interface Services {
  config: Config;
  database: Database;
  store: SharedStore;
  schema: SchemaCache;
  access: AccessResolver;
  /** Storage providers, loaded per schema version. */
  storage: StorageRegistry;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Reuse an already open database (tests clone a migrated template). */
  database?: Database;
  store?: SharedStore;
  /** Skip migrations and bootstrap (the database is known to be ready). */
  skipMigrations?: boolean;
  onBootstrap?: (result: BootstrapResult) => void;
}

export async function createServices(config: Config, opts: StartOptions = {}): Promise<Services> {
  const database = opts.database ?? await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.dbPoolMax });
  if (!opts.skipMigrations) {
    await migrateToLatest(database);
    const result = await bootstrap(database.db, config);
    opts.onBootstrap?.(result);
  }
  const store = opts.store ?? openSharedStore(config.redisUrl, config.redisNamespace);
  await store.ready?.();
  const schema = new SchemaCache(database.db, store);
  return {
    config,
    database,
    store,
    schema,
    access: new AccessResolver(database.db),
    storage: new StorageRegistry(database.db, config),
    async close() {
      await store.close();
      await database.close();
    },
  };
}
