/** What every core service call receives: where to run SQL, the schema, and who is asking. */
import type { Accountability } from './access/accountability.ts';
import type { Config } from './config.ts';
import type { Executor } from './db/database.ts';
import type { SchemaOverview } from './schema/types.ts';

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
  events?: ContextEvents;
}

/** What an event says about itself: for item events `collection`, `keys` (and `key` on create), `payload`
 * (left out, with `payloadOmitted: true`, when too large for a queue message: core/events/fit.ts). */
export interface EventMeta {
  collection?: string;
  keys?: (string | number)[];
  key?: string | number;
  payload?: unknown;
  [name: string]: unknown;
}

/** The part of the event bus a service call uses; core/events/bus.ts's EventBus implements it. Declared here, not
 * imported, so the context (below events/ in the import order) does not point up at the bus. */
export interface ContextEvents {
  hasFilters(event: string): boolean;
  runFilters<T>(event: string, payload: T, meta: EventMeta, ctx: ServiceContext): Promise<T>;
  emitAction(ex: Executor, event: string, meta: EventMeta, accountability: Accountability | null): void;
  /** Whether emitAction writes (and sends) the event: someone can receive it. */
  records(event: string): boolean;
}

export function withExecutor(ctx: ServiceContext, db: Executor): ServiceContext {
  return { ...ctx, db };
}
