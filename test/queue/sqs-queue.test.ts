/** The SQS adapter of the Queue port (core/queue/sqs-queue.ts) against the SQS test server, through the real SDK. */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SqsQueue } from '../../core/queue/sqs-queue.ts';
import type { QueueMessage } from '../../core/queue/queue.ts';
import { startSqs, type SqsServer } from '../helpers/sqs-server.ts';

let sqs: SqsServer;
let client: SQSClient;
let n = 0;
const open: SqsQueue[] = [];

beforeAll(async () => {
  sqs = await startSqs();
  client = new SQSClient({ region: 'us-east-1', endpoint: sqs.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});
afterEach(async () => { await Promise.all(open.splice(0).map((q) => q.close())); vi.restoreAllMocks(); });
afterAll(async () => { client.destroy(); await sqs.close(); });

async function queue(opts: { visibilityTimeoutSeconds?: number; endpoint?: string } = {}) {
  const url = await sqs.createQueue(`adapter${++n}`);
  const q = new SqsQueue({ queueUrl: url, endpoint: opts.endpoint ?? sqs.endpoint, region: 'us-east-1', waitTimeSeconds: 1, errorBackoffMs: 100, ...opts });
  open.push(q);
  return { q, url };
}
const counts = async (QueueUrl: string) => {
  const { Attributes } = await client.send(new GetQueueAttributesCommand({
    QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
  }));
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
};
async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('SqsQueue', () => {
  it('is kind sqs; sends the JSON of the message and hands it to the consumer, then deletes it', async () => {
    const { q, url } = await queue();
    expect(q.kind).toBe('sqs');
    const got: QueueMessage[] = [];
    q.consume(async (m) => { got.push(m); });
    await q.send({ id: 'm1', type: 'test', body: { a: [1, 'x'] } });
    await until(() => got.length === 1);
    expect(got[0]).toEqual({ id: 'm1', type: 'test', body: { a: [1, 'x'] } });
    await until(async () => await counts(url) === 0);
  });

  it('sends the messages of one tick together, up to 10 per SendMessageBatch, and each send settles on its own', async () => {
    const { q, url } = await queue();
    const batches = sqs.requests.SendMessageBatch ?? 0;
    const singles = sqs.requests.SendMessage ?? 0;
    await Promise.all(Array.from({ length: 23 }, (_, i) => q.send({ id: `b${i}`, type: 'test', body: i })));
    expect(sqs.requests.SendMessageBatch - batches).toBe(3);
    expect((sqs.requests.SendMessage ?? 0) - singles).toBe(0);
    expect(await counts(url)).toBe(23);
    // One on its own is a plain SendMessage; one SQS refuses (too large) fails alone, its neighbour is sent.
    await q.send({ id: 'alone', type: 'test', body: null });
    expect(sqs.requests.SendMessage - singles).toBe(1);
    const results = await Promise.allSettled([
      q.send({ id: 'huge', type: 'test', body: 'x'.repeat(300 * 1024) }),
      q.send({ id: 'fine', type: 'test', body: 'ok' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(await counts(url)).toBe(25);
    const got: string[] = [];
    q.consume(async (m) => { got.push(m.id); });
    await until(() => got.length === 25);
    expect(got).toContain('fine');
    expect(got).not.toContain('huge');
  });

  it('leaves a message whose handler throws, so SQS delivers it again after the visibility timeout', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { q, url } = await queue({ visibilityTimeoutSeconds: 1 });
    const seen: number[] = [];
    q.consume(async () => {
      seen.push(Date.now());
      if (seen.length === 1) throw new Error('first try fails');
    });
    await q.send({ id: 'retry', type: 'test', body: null });
    await until(() => seen.length === 2, 5000);
    expect(seen[1] - seen[0]).toBeGreaterThanOrEqual(900);
    await until(async () => await counts(url) === 0);
  });

  it('deletes an unparsable message without calling the handler', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { q, url } = await queue();
    const handler = vi.fn(async () => {});
    q.consume(handler);
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'not json' }));
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '{"type":"no id"}' }));
    await until(async () => await counts(url) === 0);
    expect(handler).not.toHaveBeenCalled();
    expect(errors.mock.calls.filter((c) => String(c[0]).includes('unparsable'))).toHaveLength(2);
  });

  it('stop aborts the long poll at once and waits for handlers in flight', async () => {
    const { q, url } = await queue();
    const slow = new SqsQueue({ queueUrl: url, endpoint: sqs.endpoint, region: 'us-east-1', waitTimeSeconds: 20 });
    open.push(slow);
    let finished = false;
    const stop = slow.consume(async () => { await new Promise((r) => setTimeout(r, 300)); finished = true; });
    await q.send({ id: 'slow', type: 'test', body: null });
    await until(async () => await counts(url) === 1 && !finished);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await stop();
    expect(finished).toBe(true);
    // Stopping again mid long poll (20 s) returns at once.
    const stop2 = slow.consume(async () => {});
    await new Promise((r) => setTimeout(r, 100));
    const t2 = Date.now();
    await stop2();
    expect(Date.now() - t2).toBeLessThan(1000);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('survives network errors: logs, backs off and goes on polling', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const other = await startSqs();
    const url = await other.createQueue('flaky');
    const q = new SqsQueue({ queueUrl: url, endpoint: other.endpoint, region: 'us-east-1', waitTimeSeconds: 1, errorBackoffMs: 100 });
    open.push(q);
    const got: string[] = [];
    q.consume(async (m) => { got.push(m.id); });
    await other.close();
    await until(() => errors.mock.calls.some((c) => String(c[0]).includes('receive failed')));
    // A server on the same port again: the loop picks up where it left off.
    const port = new URL(other.endpoint).port;
    const again = await startSqs({ port: Number(port) });
    try {
      await again.createQueue('flaky');
      await new SqsQueue({ queueUrl: url, endpoint: again.endpoint, region: 'us-east-1' }).send({ id: 'after-outage', type: 't', body: 1 });
      await until(() => got.includes('after-outage'), 5000);
    } finally {
      await q.close();
      await again.close();
    }
  });

  it('uses dummy credentials for a local endpoint when the environment has none', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, profile: process.env.AWS_PROFILE };
    delete process.env.AWS_ACCESS_KEY_ID; delete process.env.AWS_SECRET_ACCESS_KEY; delete process.env.AWS_PROFILE;
    try {
      const url = await sqs.createQueue(`adapter${++n}`);
      const q = new SqsQueue({ queueUrl: url, endpoint: sqs.endpoint, region: 'us-east-1' });
      open.push(q);
      await q.send({ id: 'creds', type: 't', body: null });
      expect(await counts(url)).toBe(1);
    } finally {
      if (saved.id !== undefined) process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret !== undefined) process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.profile !== undefined) process.env.AWS_PROFILE = saved.profile;
    }
  });
});
