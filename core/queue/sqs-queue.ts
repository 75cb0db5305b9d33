/** The SQS adapter of the Queue port (split topology): send = SendMessage with the JSON of the message; consume =
 * a long-poll loop. A message whose handler resolves is deleted; one whose handler throws is left alone, so SQS
 * delivers it again once its visibility timeout runs out (a redrive policy on the queue bounds the attempts). */
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
  type SendMessageBatchRequestEntry,
} from '@aws-sdk/client-sqs';
import { RetryLater, type Queue, type QueueHandler, type QueueMessage } from './queue.ts';

export interface SqsQueueOptions {
  queueUrl: string;
  /** An SQS-compatible endpoint instead of AWS' (local emulation, tests). */
  endpoint?: string | null;
  region: string;
  /** Long-poll wait per ReceiveMessage, 0..20 s (default 20). */
  waitTimeSeconds?: number;
  /** Visibility timeout asked for on receive; the queue's own setting when absent. */
  visibilityTimeoutSeconds?: number;
  /** Messages per ReceiveMessage, 1..10 (default 10). */
  maxMessages?: number;
  /** Pause after a failed ReceiveMessage before polling again (default 1000 ms). */
  errorBackoffMs?: number;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** SQS caps a batch request at 256 KiB of bodies. */
const MAX_BATCH_BYTES = 256 * 1024;

interface Outgoing {
  entry: SendMessageBatchRequestEntry;
  bytes: number;
  resolve(): void;
  reject(err: unknown): void;
}

interface Consumer {
  controller: AbortController;
  loop: Promise<void>;
}

export class SqsQueue implements Queue {
  readonly kind = 'sqs' as const;
  readonly #client: SQSClient;
  readonly #queueUrl: string;
  readonly #fifo: boolean;
  readonly #waitTimeSeconds: number;
  readonly #visibilityTimeout: number | undefined;
  readonly #maxMessages: number;
  readonly #errorBackoffMs: number;
  readonly #consumers = new Set<Consumer>();
  readonly #outbox: Outgoing[] = [];
  #closed = false;
  readonly #sending = new Set<Promise<void>>();

  constructor(opts: SqsQueueOptions) {
    this.#queueUrl = opts.queueUrl;
    this.#fifo = opts.queueUrl.endsWith('.fifo');
    this.#waitTimeSeconds = opts.waitTimeSeconds ?? 20;
    this.#visibilityTimeout = opts.visibilityTimeoutSeconds;
    this.#maxMessages = Math.min(10, Math.max(1, opts.maxMessages ?? 10));
    this.#errorBackoffMs = opts.errorBackoffMs ?? 1000;
    // A local emulator accepts any signature, but the SDK refuses to sign without credentials.
    const credentials = opts.credentials
      ?? (opts.endpoint && !process.env.AWS_ACCESS_KEY_ID ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined);
    this.#client = new SQSClient({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(credentials ? { credentials } : {}),
    });
  }

  /** Messages sent in the same tick (the events of one commit) go out together, up to 10 per SendMessageBatch. */
  send(message: QueueMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('queue closed'));
    let body: string;
    try {
      body = JSON.stringify({ id: message.id, type: message.type, body: message.body });
    } catch (err) {
      return Promise.reject(err);
    }
    const sent = new Promise<void>((resolve, reject) => {
      const entry: SendMessageBatchRequestEntry = {
        Id: '', MessageBody: body,
        // FIFO queues need a group; the message id doubles as the deduplication id.
        ...(this.#fifo ? { MessageGroupId: message.type, MessageDeduplicationId: message.id } : {}),
      };
      this.#outbox.push({ entry, bytes: Buffer.byteLength(body), resolve, reject });
      if (this.#outbox.length === 1) queueMicrotask(() => this.#flush());
    });
    const settled = sent.then(() => {}, () => {});
    this.#sending.add(settled);
    void settled.finally(() => this.#sending.delete(settled));
    return sent;
  }

  async drain(): Promise<void> {
    while (this.#sending.size) await Promise.all([...this.#sending]);
  }

  #flush(): void {
    let batch: Outgoing[] = [];
    let bytes = 0;
    for (const o of this.#outbox.splice(0)) {
      if (batch.length === 10 || (batch.length && bytes + o.bytes > MAX_BATCH_BYTES)) {
        void this.#sendBatch(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(o);
      bytes += o.bytes;
    }
    if (batch.length) void this.#sendBatch(batch);
  }

  async #sendBatch(batch: Outgoing[]): Promise<void> {
    try {
      if (batch.length === 1) {
        const { MessageBody, MessageGroupId, MessageDeduplicationId } = batch[0].entry;
        await this.#client.send(new SendMessageCommand({ QueueUrl: this.#queueUrl, MessageBody, MessageGroupId, MessageDeduplicationId }));
        batch[0].resolve();
        return;
      }
      batch.forEach((o, i) => { o.entry.Id = `m${i}`; });
      const res = await this.#client.send(new SendMessageBatchCommand({ QueueUrl: this.#queueUrl, Entries: batch.map((o) => o.entry) }));
      const sent = new Set((res.Successful ?? []).map((e) => e.Id));
      const failed = new Map((res.Failed ?? []).map((e) => [e.Id, e]));
      for (const o of batch) {
        if (sent.has(o.entry.Id)) o.resolve();
        else o.reject(new Error(`SQS did not take the message: ${failed.get(o.entry.Id)?.Code ?? 'no answer'} ${failed.get(o.entry.Id)?.Message ?? ''}`.trim()));
      }
    } catch (err) {
      for (const o of batch) o.reject(err);
    }
  }

  consume(handler: QueueHandler): () => Promise<void> {
    if (this.#closed) throw new Error('queue closed');
    const controller = new AbortController();
    const consumer: Consumer = { controller, loop: Promise.resolve() };
    consumer.loop = this.#poll(handler, controller.signal);
    this.#consumers.add(consumer);
    return async () => {
      controller.abort();
      await consumer.loop;
      this.#consumers.delete(consumer);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const consumers = [...this.#consumers];
    for (const c of consumers) c.controller.abort();
    await Promise.allSettled(consumers.map((c) => c.loop));
    this.#consumers.clear();
    this.#client.destroy();
  }

  /** Receives until stopped. The handlers of one batch run together and are awaited before the next receive, which
   * bounds the work in flight to one batch and lets stop() wait for it by awaiting the loop. */
  async #poll(handler: QueueHandler, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let messages: Message[];
      try {
        const res = await this.#client.send(new ReceiveMessageCommand({
          QueueUrl: this.#queueUrl,
          MaxNumberOfMessages: this.#maxMessages,
          WaitTimeSeconds: this.#waitTimeSeconds,
          ...(this.#visibilityTimeout !== undefined ? { VisibilityTimeout: this.#visibilityTimeout } : {}),
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }), { abortSignal: signal });
        messages = res.Messages ?? [];
      } catch (err) {
        if (signal.aborted) break;
        console.error('queue: SQS receive failed, retrying:', err);
        await pause(this.#errorBackoffMs, signal);
        continue;
      }
      await Promise.allSettled(messages.map((m) => this.#handle(m, handler)));
    }
  }

  async #handle(m: Message, handler: QueueHandler): Promise<void> {
    const message = parse(m.Body);
    if (!message) {
      console.error(`queue: dropping unparsable SQS message ${m.MessageId}`);
      await this.#delete(m);
      return;
    }
    try {
      await handler(message);
    } catch (err) {
      if (err instanceof RetryLater) return;
      const count = m.Attributes?.ApproximateReceiveCount ?? '?';
      console.error(`queue: message ${message.id} (${message.type}) failed on receive ${count}; SQS delivers it again:`, err);
      return;
    }
    await this.#delete(m);
  }

  async #delete(m: Message): Promise<void> {
    try {
      await this.#client.send(new DeleteMessageCommand({ QueueUrl: this.#queueUrl, ReceiptHandle: m.ReceiptHandle }));
    } catch (err) {
      // The message comes back after its visibility timeout; consumers drop duplicates by id.
      console.error(`queue: could not delete SQS message ${m.MessageId}:`, err);
    }
  }
}

function parse(body: string | undefined): QueueMessage | null {
  if (!body) return null;
  let value: unknown;
  try { value = JSON.parse(body); } catch { return null; }
  if (typeof value !== 'object' || value === null) return null;
  const { id, type, body: inner } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof type !== 'string') return null;
  return { id, type, body: inner };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
