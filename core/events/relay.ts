/** The relay of the action event outbox (core/events/outbox.ts): runs where the Queue is consumed (container and
 * standalone) and sends the events whose writer did not (it died, was frozen, or the Queue refused the send) once
 * their grace period has passed. Rows are claimed with SKIP LOCKED under a lease, sent with their own event id (so
 * a handler that ran on an earlier delivery is skipped), deleted once the Queue took them, and retried with a
 * growing delay while it does not. Delivery is at least once: a row is sent twice only when its writer's send
 * succeeded but its delete did not happen within the grace period, or a relay died between send and delete. */
import type { Executor } from '../db/database.ts';
import type { Queue } from '../queue/queue.ts';
import { ACTION_MESSAGE, type ActionEvent } from './bus.ts';
import { claimDue, deleteEvents, retryLater, type OutboxRow } from './outbox.ts';

export interface RelayOptions {
  /** How often the outbox is scanned (EVENTS_RELAY_INTERVAL). */
  intervalMs: number;
  /** How long a claim holds a row while its send runs. */
  leaseMs: number;
  /** The longest delay between two attempts of a row the Queue refused (EVENTS_RELAY_RETRY_MAX_DELAY). */
  retryMaxDelayMs: number;
  /** Rows per claim. */
  batch?: number;
  log?: (line: string) => void;
}

export class EventRelay {
  readonly #db: Executor;
  readonly #queue: Queue;
  readonly #opts: Required<RelayOptions>;
  #timer: NodeJS.Timeout | null = null;
  #scanning: Promise<number> | null = null;
  #stopped = false;
  /** Events sent since start (tests). */
  sent = 0;

  constructor(db: Executor, queue: Queue, opts: RelayOptions) {
    this.#db = db;
    this.#queue = queue;
    this.#opts = { batch: 100, log: (line) => console.error(line), ...opts };
  }

  /** Scans at once (rows left over from before a restart) and then every interval. Idempotent. */
  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => { void this.scan(); }, this.#opts.intervalMs);
    this.#timer.unref();
    void this.scan();
  }

  /** One pass: claims and sends due rows until none is left; resolves with how many the Queue took. A pass already
   * running is joined, not doubled. */
  scan(): Promise<number> {
    this.#scanning ??= this.#pass().catch((err: unknown) => {
      if (!this.#stopped) this.#opts.log(`events: outbox relay scan failed: ${(err as Error).message}`);
      return 0;
    }).finally(() => { this.#scanning = null; });
    return this.#scanning;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#scanning;
  }

  async #pass(): Promise<number> {
    let total = 0;
    while (!this.#stopped) {
      const rows = await claimDue(this.#db, this.#opts.batch, this.#opts.leaseMs);
      if (rows.length === 0) break;
      const sent: string[] = [];
      const failed: OutboxRow[] = [];
      await Promise.all(rows.map((row) => {
        const event: ActionEvent = { ...(row.body as ActionEvent), relayed: true };
        return this.#queue.send({ id: event.id, type: ACTION_MESSAGE, body: event })
          .then(() => { sent.push(row.id); }, () => { failed.push(row); });
      }));
      await deleteEvents(this.#db, sent);
      total += sent.length;
      this.sent += sent.length;
      if (failed.length) {
        // One delay for the batch: the Queue refused them together.
        const attempts = Math.max(...failed.map((r) => r.attempts));
        const delay = Math.min(this.#opts.retryMaxDelayMs, this.#opts.intervalMs * 2 ** Math.min(attempts - 1, 20));
        await retryLater(this.#db, failed.map((r) => r.id), delay);
        this.#opts.log(`events: the queue refused ${failed.length} outbox event(s); next attempt in ${delay} ms`);
        break;
      }
      if (rows.length < this.#opts.batch) break;
    }
    return total;
  }
}
