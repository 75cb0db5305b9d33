/** The SQS adapter of the Queue port (split topology): send = SendMessage with the JSON of the message; consume =
 * a long-poll loop. A message whose handler resolves is deleted; one whose handler throws is left alone, so SQS
 * delivers it again once its visibility timeout runs out (a redrive policy on the queue bounds the attempts). */
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
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
  #closed = false;

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

  async send(message: QueueMessage): Promise<void> {
    if (this.#closed) throw new Error('queue closed');
    await this.#client.send(new SendMessageCommand({
      QueueUrl: this.#queueUrl,
      MessageBody: JSON.stringify({ id: message.id, type: message.type, body: message.body }),
      // FIFO queues need a group; the message id doubles as the deduplication id.
      ...(this.#fifo ? { MessageGroupId: message.type, MessageDeduplicationId: message.id } : {}),
    }));
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
