/** The item events (SPEC.md > Events 2): filter `items.{create,update,delete}` inline before the write (may change
 * the payload or refuse), action after commit. Each is also emitted as `{collection}.items.{action}`, as Directus
 * does, so a hook can listen to one collection. */
import type { ServiceContext } from '../../context.ts';
import type { EventMeta } from '../../events/bus.ts';
import type { PrimaryKey } from './types.ts';

export type ItemEvent = 'create' | 'update' | 'delete';

export async function filterItems<T>(ctx: ServiceContext, action: ItemEvent, collection: string, payload: T, meta: EventMeta = {}): Promise<T> {
  const bus = ctx.events;
  if (!bus) return payload;
  const general = `items.${action}`;
  const scoped = `${collection}.items.${action}`;
  if (!bus.hasFilters(general) && !bus.hasFilters(scoped)) return payload;
  const full = { ...meta, collection };
  let current = await bus.runFilters(general, payload, full, ctx);
  current = await bus.runFilters(scoped, current, full, ctx);
  return current;
}

export function emitItems(ctx: ServiceContext, action: ItemEvent, collection: string, keys: PrimaryKey[], payload: unknown): void {
  const bus = ctx.events;
  if (!bus || keys.length === 0) return;
  const meta: EventMeta = { collection, keys, payload };
  if (action === 'create' && keys.length === 1) meta.key = keys[0];
  bus.emitAction(ctx.db, `items.${action}`, meta, ctx.accountability);
  bus.emitAction(ctx.db, `${collection}.items.${action}`, meta, ctx.accountability);
}

/** Whether a write must open a transaction for its action events to commit with it. A write outside a transaction
 * is otherwise one statement that commits on its own (or joined to others', core/items/write/coalesce.ts), and its
 * events could only be recorded after that commit. When they are recorded at all (someone can receive them), the
 * write runs in a transaction instead and their outbox rows are written before it commits (core/events/bus.ts). */
export function needsEventTransaction(ctx: ServiceContext, action: ItemEvent, collection: string): boolean {
  const bus = ctx.events;
  return !!bus && !ctx.db.isTransaction && (bus.records(`items.${action}`) || bus.records(`${collection}.items.${action}`));
}
