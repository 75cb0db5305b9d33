/** What every core service call receives: where to run SQL, the schema, and who is asking. */
import type { Accountability } from './access/accountability.ts';
import type { Config } from './config.ts';
import type { Executor } from './db/database.ts';
import type { SchemaOverview } from './schema/types.ts';
import type { EventBus } from './events/bus.ts';

export interface ServiceContext {
  /** The database, or the transaction the call must run in. */
  db: Executor;
  schema: SchemaOverview;
  accountability: Accountability;
  config: Config;
  /** Set by the dedicated system-collection endpoints (/notifications, /settings...): svc_ collections are
   * then reachable for non-admins under their permissions, while /items/svc_* stays admin-only. */
  system?: boolean;
  /** Where item and version events go; absent for internal work that emits none (bootstrap, migrations). */
  events?: EventBus;
}

export function withExecutor(ctx: ServiceContext, db: Executor): ServiceContext {
  return { ...ctx, db };
}
