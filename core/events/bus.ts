/** The event bus (DESIGN.md > Events; SPEC.md > Events). Filter events run inline, in the caller's transaction,
 * and may return a changed payload or throw to refuse. Action events run after the transaction commits (never for
 * a rolled-back change) and are delivered at least once: each carries an id, and a handler that finished is not run
 * again when the message comes back.
 *
 * Durability (docs/extensions.md > Delivery of action hooks): an action event is written to svc_event_outbox
 * (core/events/outbox.ts) in the transaction of the change, before it commits, then sent through the Queue port
 * (in-process, or SQS to the container in the split topology) right after the commit, and its row is deleted once
 * the Queue took it. A process that dies, freezes or cannot reach the Queue in between leaves the row, and the
 * relay (core/events/relay.ts) of a container or standalone process sends it once the grace period has passed,
 * with the same event id, so the handlers that already ran are skipped. Events nobody can receive (no local
 * handler and a queue that stays in this process) are neither written nor sent. */
import { randomUUID } from 'node:crypto';
import type { Accountability } from '../access/accountability.ts';
import type { ContextEvents, EventMeta, ServiceContext } from '../context.ts';
import type { Transaction } from 'kysely';
import { afterCommit, beforeCommit } from '../db/after-commit.ts';
import type { Executor } from '../db/database.ts';
import { fitEvent } from './fit.ts';
import { deleteEvents, insertEvents } from './outbox.ts';
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
  /** A tap of the writing process took the event right after commit (core/realtime/publish.ts). */
  tapped?: boolean;
  /** Sent by the relay: the writing process may have died before its taps ran. */
  relayed?: boolean;
}

/** Sees the action events of a committed change in the writing process, right after commit and in commit order,
 * whether or not anyone consumes them from the Queue. Must not throw or block; work it returns is awaited by
 * drain() (a Lambda waits for it before it answers). */
export type ActionTap = (events: ActionEvent[]) => void | Promise<void>;

export const ACTION_MESSAGE = 'event.action';
const DONE_TTL_MS = 24 * 3600_000;
/** How long a running handler holds its claim; a crashed process's claim runs out so a redelivery can run it. */
const CLAIM_TTL_MS = 60_000;

export interface OutboxOptions {
  /** Where svc_event_outbox lives (the rows of a transaction are written through the transaction itself). */
  db: Executor;
  /** How long the relay leaves a row to this process's own send after commit (EVENTS_RELAY_GRACE). */
  graceMs: number;
  /** false: this process writes the rows and leaves sending to the relay (a Lambda, frozen after its answer,
   * must not wait for the Queue). */
  sendAfterCommit: boolean;
  /** Test hook (TEST_EVENTS_PAUSE_BEFORE_SEND): a pause between commit and send, so a fault test can kill the
   * process in that window. 0 in production. */
  pauseBeforeSendMs?: number;
}

export class EventBus implements ContextEvents {
  readonly #filters = new Map<string, FilterHandler[]>();
  readonly #actions = new Map<string, { handler: ActionHandler; id: string | undefined }[]>();
  readonly #inflight = new Set<Promise<void>>();
  readonly #taps = new Map<string, ActionTap[]>();
  #queue: Queue | null = null;
  #store: SharedStore | null = null;
  #outbox: OutboxOptions | null = null;
  /** The events of each open transaction, written together just before it commits. */
  readonly #staged = new WeakMap<Transaction<any>, ActionEvent[]>();
  /** Row ids of events the Queue took, deleted together by the next flush. */
  #delivered: string[] = [];
  #pruning: Promise<void> | null = null;

  /** Sends action events through `queue`; handlers that finished are remembered in `store` by event id. With
   * `outbox`, each event is first written to svc_event_outbox in the transaction of its change. */
  connect(queue: Queue, store: SharedStore, outbox: OutboxOptions | null = null): void {
    this.#queue = queue;
    this.#store = store;
    this.#outbox = outbox;
  }

  /** Whether an action event of this name is written and sent: not when nobody can receive it (no local handler
   * and a queue that stays in this process). Writers that would otherwise commit outside a transaction open one
   * when this holds, so the event's row commits with the change (core/items/write/index.ts). */
  records(event: string): boolean {
    const queue = this.#queue;
    return queue !== null && !(queue.kind === 'memory' && !this.#actions.has(event));
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

  /** Adds a tap on `event` (see ActionTap); returns its removal. */
  tap(event: string, tap: ActionTap): () => void {
    return add(this.#taps, event, tap);
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

  /** Records the action event with the change `ex` is writing and sends it after commit. In a transaction opened
   * by inTransaction the row is written just before commit, together with the transaction's other events; on any
   * other executor the change has committed already, and the row is written at once (a narrower window: writers
   * that can, open a transaction, see `records`). */
  emitAction(ex: Executor, event: string, meta: EventMeta, accountability: Accountability | null): void {
    const taps = this.#taps.get(event);
    const records = this.records(event);
    if (!records && !taps) return;
    const emittedAt = new Date().toISOString();
    // Events that only a tap sees never travel: no need to fit them to a queue message.
    const parts = records ? fitEvent(meta) : [meta];
    const events = parts.map((part): ActionEvent => ({ id: randomUUID(), event, meta: part, accountability, emittedAt }));
    if (taps) {
      for (const e of events) e.tapped = true;
      afterCommit(ex, () => {
        for (const tap of [...taps]) {
          try {
            const work = tap(events);
            if (work) this.#track(work.catch((err: unknown) => console.error(`events: a tap of ${event} failed:`, err)));
          } catch (err) {
            console.error(`events: a tap of ${event} failed:`, err);
          }
        }
      });
    }
    if (!records) return;
    const outbox = this.#outbox;
    if (!outbox) {
      afterCommit(ex, () => this.#send(events, null));
      return;
    }
    if (ex.isTransaction && this.#stage(ex as Transaction<any>, events, outbox)) return;
    this.#track((async () => {
      const rows = await insertEvents(outbox.db, events, this.#relayAfter(outbox));
      this.#send(events, rows);
    })().catch((err: unknown) => console.error(`events: could not record ${event}:`, err)));
  }

  #relayAfter(outbox: OutboxOptions): number {
    return outbox.sendAfterCommit ? outbox.graceMs : 0;
  }

  /** Adds events to the transaction's batch; the first of a transaction schedules the write and the send. False
   * when `trx` was not opened by inTransaction (no commit hooks). */
  #stage(trx: Transaction<any>, events: ActionEvent[], outbox: OutboxOptions): boolean {
    let staged = this.#staged.get(trx);
    if (!staged) {
      const batch: ActionEvent[] = [];
      const written: { rows: Map<string, string> | null } = { rows: null };
      if (!beforeCommit(trx, async () => { written.rows = await insertEvents(trx, batch, this.#relayAfter(outbox)); })) return false;
      afterCommit(trx, () => this.#send(batch, written.rows));
      this.#staged.set(trx, batch);
      staged = batch;
    }
    staged.push(...events);
    return true;
  }

  /** The send right after commit. `rows` maps event ids to their outbox rows (null without an outbox): a row is
   * deleted once the Queue took its event; one whose send failed stays for the relay. */
  #send(events: ActionEvent[], rows: Map<string, string> | null): void {
    const queue = this.#queue;
    if (!queue || (rows && !this.#outbox?.sendAfterCommit)) return;
    const pause = this.#outbox?.pauseBeforeSendMs ?? 0;
    this.#track((async () => {
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
      await Promise.all(events.map((e) => queue.send({ id: e.id, type: ACTION_MESSAGE, body: e }).then(() => {
        const row = rows?.get(e.id);
        if (row) this.#pruneLater(row);
      }, (err: unknown) => {
        console.error(`events: could not enqueue ${e.event} ${e.id}${rows ? ' (the relay sends it later)' : ''}:`, err);
      })));
    })());
  }

  /** Sent rows are deleted in batches: those that come in while a delete runs go with the next one. */
  #pruneLater(row: string): void {
    this.#delivered.push(row);
    if (!this.#pruning) this.#prune();
  }

  #prune(): void {
    const ids = this.#delivered;
    this.#delivered = [];
    const db = this.#outbox?.db;
    if (!db || ids.length === 0) return;
    const pruning = deleteEvents(db, ids).catch((err: unknown) => {
      // The relay sends them again after the grace period; handlers that ran are skipped by event id.
      console.error(`events: could not delete ${ids.length} sent outbox row(s):`, (err as Error).message);
    }).finally(() => {
      this.#pruning = null;
      if (this.#delivered.length) this.#prune();
    });
    this.#pruning = pruning;
    this.#track(pruning);
  }

  #track(work: Promise<void>): void {
    this.#inflight.add(work);
    void work.finally(() => this.#inflight.delete(work));
  }

  /** Resolves once every action event emitted so far is recorded and, where this process sends, handed to the
   * queue and its row deleted (Lambda awaits this before it answers: it records and leaves sending to the relay). */
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
