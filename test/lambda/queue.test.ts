/** The SQS queue of a Lambda instance is created on first use (core/queue/lazy-queue.ts, core/services.ts): a cold
 * start does not import the SQS adapter and its SDK client; the first message does, and behaves as the adapter
 * itself (one SendMessageBatch for the sends of one tick, drain() waits for sends still waiting for the adapter,
 * consumption). Against the SQS test server, through the real SDK. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LazyQueue } from '../../core/queue/lazy-queue.ts';
import type { Queue, QueueMessage } from '../../core/queue/queue.ts';
import { openQueue } from '../../core/queue/index.ts';
import { loadConfig } from '../../core/config.ts';
import { createServices } from '../../core/services.ts';
import { cloneTestDatabase } from '../helpers/app.ts';
import { startSqs, type SqsServer } from '../helpers/sqs-server.ts';
import { testEnv } from '../helpers/template.ts';

let sqs: SqsServer;
let n = 0;

beforeAll(async () => { sqs = await startSqs(); });
afterAll(async () => { await sqs?.close(); });

async function lazyQueue(): Promise<{ q: LazyQueue; opened: () => number }> {
  const url = await sqs.createQueue(`lazy${++n}`);
  const config = loadConfig(testEnv({ SQS_QUEUE_URL: url, SQS_ENDPOINT: sqs.endpoint }));
  let opens = 0;
  const q = new LazyQueue('sqs', async () => {
    opens++;
    return openQueue(config);
  });
  return { q, opened: () => opens };
}

const message = (i: number): QueueMessage => ({ id: `m${i}`, type: 'test.lazy', body: { i } });

describe('LazyQueue', () => {
  it('opens the adapter on the first send only; the sends of one tick still leave in one batch; drain waits for them', async () => {
    const { q, opened } = await lazyQueue();
    expect(q.kind).toBe('sqs');
    await q.drain(); // nothing sent: nothing to open
    expect(opened()).toBe(0);
    const before = sqs.requests.SendMessageBatch ?? 0;
    const sends = [1, 2, 3].map((i) => q.send(message(i)));
    await q.drain();
    await Promise.all(sends);
    expect(opened()).toBe(1);
    expect((sqs.requests.SendMessageBatch ?? 0) - before).toBe(1);
    await q.send(message(4));
    expect(opened()).toBe(1);

    const got: unknown[] = [];
    const stop = q.consume(async (m) => { got.push(m.body); });
    const end = Date.now() + 10_000;
    while (got.length < 4 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await stop();
    expect(got.map((b) => (b as { i: number }).i).sort()).toEqual([1, 2, 3, 4]);
    await q.close();
  });

  it('close before any use opens nothing', async () => {
    const { q, opened } = await lazyQueue();
    await q.close();
    expect(opened()).toBe(0);
  });

  it('a failed open fails the send and is retried by the next one', async () => {
    let attempt = 0;
    const url = await sqs.createQueue(`lazy${++n}`);
    const q = new LazyQueue('sqs', async (): Promise<Queue> => {
      if (attempt++ === 0) throw new Error('module not loaded');
      return openQueue(loadConfig(testEnv({ SQS_QUEUE_URL: url, SQS_ENDPOINT: sqs.endpoint })));
    });
    await expect(q.send(message(1))).rejects.toThrow('module not loaded');
    await q.send(message(2));
    await q.close();
  });
});

describe('services with SQS_QUEUE_URL', () => {
  it('get the lazy queue; a message sent through it reaches SQS', async () => {
    const url = await sqs.createQueue(`lazy${++n}`);
    const db = await cloneTestDatabase();
    const database = await db.open();
    const services = await createServices(loadConfig(testEnv({ SQS_QUEUE_URL: url, SQS_ENDPOINT: sqs.endpoint })), { database, skipMigrations: true });
    try {
      expect(services.queue).toBeInstanceOf(LazyQueue);
      const before = (sqs.requests.SendMessage ?? 0) + (sqs.requests.SendMessageBatch ?? 0);
      await services.queue.send(message(1));
      await services.queue.drain();
      expect((sqs.requests.SendMessage ?? 0) + (sqs.requests.SendMessageBatch ?? 0)).toBe(before + 1);
    } finally {
      await services.close();
      await db.drop();
    }
  });
});
