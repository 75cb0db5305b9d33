/** The API an extension is written against (docs/extensions.md). A hook extension's module exports, as its
 * default, a function receiving the register functions and a context:
 *
 *   export default ({ filter, action, init, schedule }, { logger }) => {
 *     filter('items.create', (payload, meta, { items }) => ({ ...payload, slug: slugify(payload.title) }));
 *     action('items.create', (meta, { items }) => logger.info(`created ${meta.collection} ${meta.key}`));
 *     schedule('0 * * * *', async ({ items }) => { ... });
 *   };
 *
 * Filter handlers run inline, in the transaction of the change, and may return a changed payload or throw to
 * refuse it (the request gets the error envelope). Action handlers run after commit, in the process that consumes
 * the event queue (the container, or standalone), at least once per event. Both are bounded by
 * EXTENSIONS_HOOK_TIMEOUT. */
import type { PrimaryKey } from '../items/write/types.ts';
import type { Accountability } from '../access/accountability.ts';
import type { EventMeta } from '../events/bus.ts';
import type { Query } from '../query/types.ts';

export interface ExtensionLogger {
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** Items of one collection under the caller's accountability (permissions apply; null accountability = system). */
export interface ItemsApi {
  readByQuery(query?: Query): Promise<Record<string, unknown>[]>;
  readOne(key: PrimaryKey, query?: Query): Promise<Record<string, unknown> | null>;
  createOne(data: Record<string, unknown>): Promise<PrimaryKey>;
  updateOne(key: PrimaryKey, data: Record<string, unknown>): Promise<PrimaryKey>;
  deleteOne(key: PrimaryKey): Promise<void>;
}

/** What every handler receives besides its event: the caller, items services bound to it, a logger. */
export interface HookContext {
  accountability: Accountability | null;
  /** The action event's id, the same on every delivery of it (null for filters and schedules): a handler with
   * side effects outside the database can use it to drop duplicates. */
  eventId: string | null;
  items(collection: string): ItemsApi;
  logger: ExtensionLogger;
}

export type FilterHook = (payload: any, meta: EventMeta & { event: string }, context: HookContext) => unknown;
export type ActionHook = (meta: EventMeta & { event: string }, context: HookContext) => unknown;
/** `extensions.register` (every extension loaded), `app.before` (routes about to be mounted; meta.app is the Hono
 * app), `app.after` (every route mounted). */
export type InitEvent = 'extensions.register' | 'app.before' | 'app.after';
export type InitHook = (meta: { app?: unknown }) => unknown;
export type ScheduleHook = (context: HookContext) => unknown;

export interface HookRegister {
  filter(event: string, handler: FilterHook): void;
  action(event: string, handler: ActionHook): void;
  init(event: InitEvent, handler: InitHook): void;
  /** Five-field cron (UTC), run by the container (or standalone), not by the functions half. */
  schedule(cron: string, handler: ScheduleHook): void;
}

export interface ExtensionContext {
  logger: ExtensionLogger;
  /** Environment the extension may read its own settings from. */
  env: Readonly<Record<string, string | undefined>>;
}

export type HookExtension = (register: HookRegister, context: ExtensionContext) => void | Promise<void>;

/** Identity helper for typed hook modules. */
export function defineHook(hook: HookExtension): HookExtension {
  return hook;
}
