/** The in-process Queue of standalone mode: messages are delivered to the consumers of this process on a later
 * tick; a consumer that throws gets the message again after a backoff, up to `maxAttempts` deliveries. */
import type { Queue, QueueHandler, QueueMessage } from './queue.ts';

export interface MemoryQueueOptions {
  maxAttempts?: number;
  /** First retry delay; doubled on each further attempt. */
  retryDelayMs?: number;
  onDrop?: (message: QueueMessage, error: unknown) => void;
}

export class MemoryQueue implements Queue {
  readonly kind = 'memory' as const;
  readonly #handlers = new Set<QueueHandler>();
  readonly #inflight = new Set<Promise<void>>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #backlog: QueueMessage[] = [];
  readonly #maxAttempts: number;
  readonly #retryDelayMs: number;
  readonly #onDrop: (message: QueueMessage, error: unknown) => void;
  #closed = false;

  constructor(opts: MemoryQueueOptions = {}) {
    this.#maxAttempts = opts.maxAttempts ?? 5;
    this.#retryDelayMs = opts.retryDelayMs ?? 200;
    this.#onDrop = opts.onDrop ?? ((m, err) => console.error(`queue: message ${m.id} (${m.type}) dropped after ${this.#maxAttempts} attempts:`, err));
  }

  async send(message: QueueMessage): Promise<void> {
    if (this.#closed) throw new Error('queue closed');
    // Consumers get a JSON copy, as they would over SQS: no shared objects, and a body SQS could not carry fails
    // here too instead of only in production.
    message = JSON.parse(JSON.stringify(message)) as QueueMessage;
    // Messages sent before anyone consumes wait for the first consumer, as on a real queue.
    if (this.#handlers.size === 0) { this.#backlog.push(message); return; }
    for (const handler of this.#handlers) this.#deliver(handler, message, 1);
  }

  consume(handler: QueueHandler): () => Promise<void> {
    this.#handlers.add(handler);
    for (const message of this.#backlog.splice(0)) this.#deliver(handler, message, 1);
    return async () => {
      this.#handlers.delete(handler);
      await Promise.allSettled([...this.#inflight]);
    };
  }

  #deliver(handler: QueueHandler, message: QueueMessage, attempt: number): void {
    const run = (async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!this.#handlers.has(handler)) {
        // Its consumer stopped before the message reached it: keep it for the next one, as a real queue would.
        if (!this.#closed && this.#handlers.size === 0) this.#backlog.push(message);
        return;
      }
      try {
        await handler(message);
      } catch (err) {
        if (attempt >= this.#maxAttempts || this.#closed) { this.#onDrop(message, err); return; }
        const timer = setTimeout(() => { this.#timers.delete(timer); this.#deliver(handler, message, attempt + 1); }, this.#retryDelayMs * 2 ** (attempt - 1));
        this.#timers.add(timer);
      }
    })();
    this.#inflight.add(run);
    void run.finally(() => this.#inflight.delete(run));
  }

  /** Sends are accepted synchronously: nothing is ever in flight towards this queue. */
  async drain(): Promise<void> {}

  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#inflight]);
    this.#handlers.clear();
  }
}
