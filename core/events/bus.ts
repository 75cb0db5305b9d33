/** The event bus (DESIGN.md > Events; SPEC.md > Events). Filter events run inline, in the caller's transaction,
 * and may return a changed payload or throw to refuse. Action events run after the transaction commits (never for
 * a rolled-back change), travel through the Queue port (in-process, or SQS to the container in the split topology)
 * and are delivered at least once: each carries an id, and a handler that finished is not run again when the
 * message comes back. */
import { randomUUID } from 'node:crypto';
import type { Accountability } from '../access/accountability.ts';
import type { ContextEvents, EventMeta, ServiceContext } from '../context.ts';
import { afterCommit } from '../db/after-commit.ts';
import type { Executor } from '../db/database.ts';
import { fitEvent } from './fit.ts';
import { RetryLater, type Queue, type QueueMessage } from '../queue/queue.ts';
import type { SharedStore } from '../store/shared-store.ts';

export type { EventMeta };


export interface FilterContext {
  /** The caller's context; `db` is the open transaction of the change. */
  ctx: ServiceContext;
  accountability: Accountability;
}

export interface ActionContext {
  /** The caller whose change emitted the event (null for system work). */
  accountability: Accountability | null;
  /** The emitted event, with its id (stable across redeliveries). */
  event: ActionEvent;
}

/** Returns the new payload, or undefined to keep it; throws to refuse the change. */
export type FilterHandler = (payload: any, meta: EventMeta & { event: string }, context: FilterContext) => unknown;
export type ActionHandler = (meta: EventMeta & { event: string }, context: ActionContext) => unknown;

export interface ActionEvent {
  id: string;
  event: string;
  meta: EventMeta;
  accountability: Accountability | null;
  emittedAt: string;
}

export const ACTION_MESSAGE = 'event.action';
const DONE_TTL_MS = 24 * 3600_000;
/** How long a running handler holds its claim; a crashed process's claim runs out so a redelivery can run it. */
const CLAIM_TTL_MS = 60_000;

export class EventBus implements ContextEvents {
  readonly #filters = new Map<string, FilterHandler[]>();
  readonly #actions = new Map<string, { handler: ActionHandler; id: string | undefined }[]>();
  readonly #inflight = new Set<Promise<void>>();
  #queue: Queue | null = null;
  #store: SharedStore | null = null;

  /** Sends action events through `queue`; handlers that finished are remembered in `store` by event id. */
  connect(queue: Queue, store: SharedStore): void {
    this.#queue = queue;
    this.#store = store;
  }

  filter(event: string, handler: FilterHandler): () => void {
    return add(this.#filters, event, handler);
  }

  /** `opts.id` names the handler for dropping duplicates; without it the handler is known by its position among
   * the event's handlers, which holds while every instance registers the same handlers in the same order (give an
   * id where a deployment may change that while events are in flight). */
  action(event: string, handler: ActionHandler, opts: { id?: string } = {}): () => void {
    return add(this.#actions, event, { handler, id: opts.id });
  }

  hasFilters(event: string): boolean {
    return this.#filters.has(event);
  }

  /** Runs the filter handlers of `event` in order; each sees the payload the previous one returned. */
  async runFilters<T>(event: string, payload: T, meta: EventMeta, ctx: ServiceContext): Promise<T> {
    const handlers = this.#filters.get(event);
    if (!handlers) return payload;
    let current = payload;
    for (const handler of [...handlers]) {
      const next = await handler(current, { ...meta, event }, { ctx, accountability: ctx.accountability });
      if (next !== undefined) current = next as T;
    }
    return current;
  }

  /** Schedules the action event for after `ex` commits. Events nobody can receive are not sent: no local handler
   * and a queue that stays in this process. */
  emitAction(ex: Executor, event: string, meta: EventMeta, accountability: Accountability | null): void {
    const queue = this.#queue;
    if (!queue || (queue.kind === 'memory' && !this.#actions.has(event))) return;
    const emittedAt = new Date().toISOString();
    afterCommit(ex, () => {
      for (const part of fitEvent(meta)) {
        const e: ActionEvent = { id: randomUUID(), event, meta: part, accountability, emittedAt };
        const sent = queue.send({ id: e.id, type: ACTION_MESSAGE, body: e }).catch((err) => {
          console.error(`events: could not enqueue ${event} ${e.id}:`, err);
        });
        this.#inflight.add(sent);
        void sent.finally(() => this.#inflight.delete(sent));
      }
    });
  }

  /** Resolves once every action event emitted so far has been handed to the queue (Lambda awaits this before it
   * answers, so a frozen function loses nothing it acknowledged). */
  async drain(): Promise<void> {
    while (this.#inflight.size) await Promise.allSettled([...this.#inflight]);
  }

  /** Runs the action handlers of a delivered event. Handlers that finished on an earlier delivery are skipped;
   * when one fails the others still run and the delivery throws, so the queue brings the event back. A handler is
   * claimed in the store while it runs: a duplicate delivered at the same time (SQS may hand out two copies at
   * once) is deferred instead of running it a second time. */
  async dispatch(e: ActionEvent): Promise<void> {
    const handlers = this.#actions.get(e.event);
    if (!handlers) return;
    const failures: unknown[] = [];
    for (const [index, { handler, id }] of [...handlers].entries()) {
      try {
        await this.#runOnce(`${e.id}:${id ?? index}`, () => handler({ ...e.meta, event: e.event }, { accountability: e.accountability, event: e }));
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length && failures.every((f) => f instanceof RetryLater)) throw new RetryLater(`${e.event} ${e.id} is being handled by another delivery`);
    if (failures.length) throw new AggregateError(failures, `${failures.length} handler(s) of ${e.event} failed`);
  }

  async #runOnce(key: string, fn: () => unknown): Promise<void> {
    const store = this.#store;
    if (!store) { await fn(); return; }
    const doneKey = `events:done:${key}`;
    const claimKey = `events:claim:${key}`;
    if (await store.get(doneKey)) return;
    if (await store.incr(claimKey, CLAIM_TTL_MS) !== 1) throw new RetryLater(`event handler ${key} is running in another delivery`);
    try {
      // It may have finished between the check above and the claim.
      if (await store.get(doneKey)) return;
      await fn();
      await store.set(doneKey, '1', DONE_TTL_MS);
    } finally {
      await store.del(claimKey);
    }
  }

  /** The queue consumer of action events alone (a process whose queue carries nothing else). Processes that
   * share the queue with other consumers route through core/queue/router.ts to `handleMessage`. */
  consume(queue: Queue): () => Promise<void> {
    return queue.consume((message) => this.handleMessage(message));
  }

  /** Handles one `event.action` queue message (other types are not for the bus: acknowledged untouched). */
  async handleMessage(message: QueueMessage): Promise<void> {
    if (message.type !== ACTION_MESSAGE) return;
    if (!isActionEvent(message.body)) {
      // Redelivering it would not make it readable: acknowledge and say so.
      console.error(`events: dropping malformed action event message ${message.id}`);
      return;
    }
    await this.dispatch(message.body);
  }
}

function isActionEvent(v: unknown): v is ActionEvent {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  return typeof e.id === 'string' && typeof e.event === 'string' && typeof e.meta === 'object' && e.meta !== null;
}

function add<H>(map: Map<string, H[]>, event: string, handler: H): () => void {
  const list = map.get(event) ?? [];
  list.push(handler);
  map.set(event, list);
  return () => {
    const current = map.get(event);
    if (!current) return;
    const i = current.indexOf(handler);
    if (i >= 0) current.splice(i, 1);
    if (current.length === 0) map.delete(event);
  };
}
