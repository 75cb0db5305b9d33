/** A Queue adapter created on first use: its module (the SQS adapter and the AWS SDK client) is imported when the
 * first message is sent or consumption starts, not when the services are created. A Lambda instance whose requests
 * emit nothing never loads it; one that does pays for it on that request, not on its cold start. Once created, calls
 * go straight to the adapter (same batching: sends of one tick still leave together). */
import type { Queue, QueueHandler, QueueMessage } from './queue.ts';

export class LazyQueue implements Queue {
  readonly kind: Queue['kind'];
  readonly #open: () => Promise<Queue>;
  #inner: Queue | null = null;
  #opening: Promise<Queue> | null = null;
  /** Sends waiting for the adapter (drain() waits for them too). */
  readonly #waiting = new Set<Promise<unknown>>();

  constructor(kind: Queue['kind'], open: () => Promise<Queue>) {
    this.kind = kind;
    this.#open = open;
  }

  #queue(): Promise<Queue> {
    this.#opening ??= this.#open().then((q) => (this.#inner = q), (err: unknown) => {
      this.#opening = null; // the next call tries again
      throw err;
    });
    return this.#opening;
  }

  send(message: QueueMessage): Promise<void> {
    if (this.#inner) return this.#inner.send(message);
    const sent = this.#queue().then((q) => q.send(message));
    const settled = sent.then(() => {}, () => {});
    this.#waiting.add(settled);
    void settled.finally(() => this.#waiting.delete(settled));
    return sent;
  }

  consume(handler: QueueHandler): () => Promise<void> {
    let stop: (() => Promise<void>) | null = null;
    const started = this.#queue().then((q) => { stop = q.consume(handler); }, (err: unknown) => {
      console.error('queue: could not start consuming:', (err as Error).message);
    });
    return async () => {
      await started;
      await stop?.();
    };
  }

  async drain(): Promise<void> {
    while (this.#waiting.size) await Promise.all([...this.#waiting]);
    await this.#inner?.drain();
  }

  async close(): Promise<void> {
    const q = this.#inner ?? (this.#opening ? await this.#opening.catch(() => null) : null);
    await q?.close();
  }
}
