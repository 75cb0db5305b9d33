/** The Queue port (DESIGN.md): wakes workers and carries action events from the functions half to the container.
 * In-process in standalone mode; SQS when SQS_QUEUE_URL is set. Delivery is at least once: a consumer that throws
 * gets the message again later, so every message carries an id for dropping duplicates. */
export interface QueueMessage {
  id: string;
  /** What the message is for, e.g. `event.action`. */
  type: string;
  body: unknown;
}

export type QueueHandler = (message: QueueMessage) => Promise<void>;

export interface Queue {
  readonly kind: 'memory' | 'sqs';
  send(message: QueueMessage): Promise<void>;
  /** Starts delivering messages to handler: resolved = done (deleted), thrown = delivered again later.
   * Returns a function that stops consuming and resolves once in-flight deliveries have finished. */
  consume(handler: QueueHandler): () => Promise<void>;
  /** Resolves once every message sent so far has been accepted or refused by the queue (a Lambda awaits it before
   * it answers: a frozen instance would strand the sends in flight). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by a consumer that cannot handle a message yet (e.g. its copy is being handled elsewhere): the queue
 * delivers it again later like any failure, but it is not logged as one. */
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
}
