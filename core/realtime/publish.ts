/** Item changes into the change log (docs/realtime.md > Across instances). The writing process appends them right
 * after commit, in its commit order, through a tap on the event bus: no extra round trip to the Queue, and a
 * change reaches subscribers within milliseconds. When the log is not shared and nothing in this process reads it
 * (the functions half without Redis), the writer does not append; the container appends what the Queue brings
 * instead. The container also appends what the relay sends (core/events/relay.ts): those are events whose writer
 * may have died between its commit and its tap, and readers drop an event appended twice by its id. */
import type { ActionEvent, EventBus } from '../events/bus.ts';
import type { Queue } from '../queue/queue.ts';
import type { ChangeAction, NewChange } from './change.ts';
import type { ChangeLog } from './log.ts';

/** The action events that are changes subscribers see, and what each is. Item writes of any collection (system
 * collections written through the item services included), the inbox rows the notification module inserts itself
 * (core/notify/inapp.ts), and the review tasks of a workflow instance (core/realtime/feeds.ts). */
const SOURCES: [event: string, action: ChangeAction][] = [
  ['items.create', 'create'], ['items.update', 'update'], ['items.delete', 'delete'], ['notifications.create', 'create'],
  ['workflow.tasks', 'update'],
];

function toChange(e: ActionEvent, action: ChangeAction): NewChange | null {
  const { collection, keys } = e.meta;
  if (typeof collection !== 'string' || !Array.isArray(keys) || keys.length === 0) return null;
  return { event: e.id, collection, action, keys };
}

function appendAll(log: ChangeLog, changes: NewChange[]): Promise<void> {
  return log.append(changes).catch((err: unknown) => {
    console.error(`realtime: could not append ${changes.length} change(s) to the change log:`, (err as Error).message);
  });
}

/** Wires the bus to the log; returns the removal. The backstop is an action handler, which runs only where the
 * Queue is consumed (the container; a functions half never consumes). */
export function publishChanges(bus: EventBus, log: ChangeLog, queue: Queue): () => void {
  const removals: (() => void)[] = [];
  const local = queue.kind === 'memory';
  // The tap: wherever the change can reach its readers from here.
  if (log.shared || local) {
    for (const [name, action] of SOURCES) {
      removals.push(bus.tap(name, (events) => {
        const changes = events.map((e) => toChange(e, action)).filter((c): c is NewChange => c !== null);
        return changes.length ? appendAll(log, changes) : undefined;
      }));
    }
  }
  // The backstop, where the Queue is consumed in another process than the writer's.
  if (!local) {
    for (const [name, action] of SOURCES) {
      removals.push(bus.action(name, async (_meta, { event }) => {
        if (event.tapped && !event.relayed && log.shared) return;
        const change = toChange(event, action);
        if (change) await log.append([change]);
      }, { id: `realtime.${name}` }));
    }
  }
  return () => { for (const remove of removals) remove(); };
}
