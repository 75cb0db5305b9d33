/** The capabilities the core takes from its host, one interface per port, types only. A function names the
 * ports it uses (`services: SchemaPort & StorePort`) instead of the whole `Services` of the composition root
 * (core/services.ts), which satisfies every port, so callers keep passing it unchanged while the function
 * stays below the root in the import order (test/architecture/dependencies.test.ts). */
import type { AccessResolver } from './access/resolve.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { EventBus } from './events/bus.ts';
import type { Queue } from './queue/queue.ts';
import type { SchemaCache } from './schema/cache.ts';
import type { SharedStore } from './store/shared-store.ts';

/** The parsed configuration (core/config.ts). */
export interface ConfigPort {
  config: Config;
}

/** The database: its root executor, pool and dialect (core/db/database.ts). */
export interface DatabasePort {
  database: Database;
}

/** The shared store for state every instance must see: sessions, lockouts, revocations (core/store). */
export interface StorePort {
  store: SharedStore;
}

/** The schema overview cache, and its invalidation after a schema or access change (core/schema/cache.ts). */
export interface SchemaPort {
  schema: SchemaCache;
}

/** Filter and action events (core/events/bus.ts). */
export interface EventsPort {
  events: EventBus;
}

/** The message queue: in-process, or SQS in the split topology (core/queue). */
export interface QueuePort {
  queue: Queue;
}

/** Resolves a role and user to its policies and permissions, cached per schema version (core/access/resolve.ts). */
export interface AccessPort {
  access: AccessResolver;
}
