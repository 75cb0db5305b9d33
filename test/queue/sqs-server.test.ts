/** The SQS test server (test/helpers/sqs-server.ts) driven through the real @aws-sdk/client-sqs client: it must
 * behave like SQS for what the SqsQueue adapter and the split-topology tests rely on. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startSqs, type SqsServer } from '../helpers/sqs-server.ts';

let sqs: SqsServer;
let client: SQSClient;
let n = 0;

beforeAll(async () => {
  sqs = await startSqs();
  client = new SQSClient({ region: 'us-east-1', endpoint: sqs.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});
afterAll(async () => {
  client.destroy();
  await sqs.close();
});

const newQueue = async () => (await client.send(new CreateQueueCommand({ QueueName: `q${++n}` }))).QueueUrl!;
const receive = (QueueUrl: string, extra: { VisibilityTimeout?: number; WaitTimeSeconds?: number; MaxNumberOfMessages?: number } = {}) =>
  client.send(new ReceiveMessageCommand({ QueueUrl, MessageSystemAttributeNames: ['ApproximateReceiveCount'], ...extra }));
const counts = async (QueueUrl: string) => {
  const { Attributes } = await client.send(new GetQueueAttributesCommand({
    QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
  }));
  return { visible: Number(Attributes?.ApproximateNumberOfMessages), hidden: Number(Attributes?.ApproximateNumberOfMessagesNotVisible) };
};

describe('SQS test server through @aws-sdk/client-sqs', () => {
  it('creates queues idempotently and resolves their URL; an unknown queue is QueueDoesNotExist', async () => {
    const url = await newQueue();
    expect(url).toBe(`${sqs.endpoint}/000000000000/q${n}`);
    expect((await client.send(new CreateQueueCommand({ QueueName: `q${n}` }))).QueueUrl).toBe(url);
    expect((await client.send(new GetQueueUrlCommand({ QueueName: `q${n}` }))).QueueUrl).toBe(url);
    expect(await sqs.createQueue(`q${n}`)).toBe(url);
    await expect(client.send(new GetQueueUrlCommand({ QueueName: 'missing' }))).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
    await expect(client.send(new SendMessageCommand({ QueueUrl: `${sqs.endpoint}/000000000000/missing`, MessageBody: 'x' })))
      .rejects.toMatchObject({ name: 'QueueDoesNotExist', $metadata: { httpStatusCode: 400 } });
  });

  it('sends (md5 verified by the SDK), receives with a visibility timeout and deletes', async () => {
    const url = await newQueue();
    const sent = await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '{"hello":"wörld"}' }));
    expect(sent.MessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.MD5OfMessageBody).toBe(createHash('md5').update('{"hello":"wörld"}').digest('hex'));

    const first = await receive(url, { VisibilityTimeout: 30 });
    expect(first.Messages).toHaveLength(1);
    const [m] = first.Messages!;
    expect(m).toMatchObject({ MessageId: sent.MessageId, Body: '{"hello":"wörld"}', Attributes: { ApproximateReceiveCount: '1' } });
    expect(await counts(url)).toEqual({ visible: 0, hidden: 1 });
    // Hidden while its visibility timeout runs.
    expect((await receive(url)).Messages ?? []).toHaveLength(0);

    await client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
    expect(await counts(url)).toEqual({ visible: 0, hidden: 0 });
    await expect(client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: 'made-up' })))
      .rejects.toMatchObject({ name: 'ReceiptHandleIsInvalid' });
  });

  it('redelivers a message not deleted within its visibility timeout, with a new receipt handle', async () => {
    const url = await newQueue();
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'again' }));
    const first = (await receive(url, { VisibilityTimeout: 1 })).Messages![0];
    expect((await receive(url)).Messages ?? []).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 1100));
    const second = (await receive(url, { VisibilityTimeout: 30 })).Messages![0];
    expect(second).toMatchObject({ MessageId: first.MessageId, Body: 'again', Attributes: { ApproximateReceiveCount: '2' } });
    expect(second.ReceiptHandle).not.toBe(first.ReceiptHandle);

    // The stale handle is accepted but deletes nothing; the current one deletes.
    await client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: first.ReceiptHandle }));
    expect(await counts(url)).toEqual({ visible: 0, hidden: 1 });
    await client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: second.ReceiptHandle }));
    expect(await counts(url)).toEqual({ visible: 0, hidden: 0 });
  });

  it('long polling answers as soon as a message arrives, and empty after the wait', async () => {
    const url = await newQueue();
    const started = Date.now();
    const polling = receive(url, { WaitTimeSeconds: 10 });
    await new Promise((r) => setTimeout(r, 200));
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'late' }));
    const res = await polling;
    expect(res.Messages?.map((m) => m.Body)).toEqual(['late']);
    expect(Date.now() - started).toBeLessThan(2000);

    const emptyStart = Date.now();
    expect((await receive(url, { WaitTimeSeconds: 1 })).Messages ?? []).toHaveLength(0);
    expect(Date.now() - emptyStart).toBeGreaterThanOrEqual(950);
  });

  it('a long poll also answers when a hidden message becomes visible again', async () => {
    const url = await newQueue();
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'comes back' }));
    await receive(url, { VisibilityTimeout: 1 });
    const started = Date.now();
    const res = await receive(url, { WaitTimeSeconds: 5 });
    expect(res.Messages?.map((m) => m.Body)).toEqual(['comes back']);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('an aborted long poll takes no message', async () => {
    const url = await newQueue();
    const controller = new AbortController();
    const polling = client.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 10 }), { abortSignal: controller.signal });
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await expect(polling).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((r) => setTimeout(r, 50));
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'for the next poll' }));
    expect(await counts(url)).toEqual({ visible: 1, hidden: 0 });
  });

  it('honours MaxNumberOfMessages, batches, visibility changes and purge', async () => {
    const url = await newQueue();
    const batch = await client.send(new SendMessageBatchCommand({
      QueueUrl: url, Entries: Array.from({ length: 4 }, (_, i) => ({ Id: `e${i}`, MessageBody: `m${i}` })),
    }));
    expect(batch.Successful?.map((s) => s.Id)).toEqual(['e0', 'e1', 'e2', 'e3']);
    expect(batch.Failed ?? []).toEqual([]);
    const three = (await receive(url, { MaxNumberOfMessages: 3, VisibilityTimeout: 30 })).Messages!;
    expect(three.map((m) => m.Body)).toEqual(['m0', 'm1', 'm2']);
    expect(await counts(url)).toEqual({ visible: 1, hidden: 3 });

    // Visibility 0 releases a message at once.
    await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: three[0].ReceiptHandle, VisibilityTimeout: 0 }));
    const rest = (await receive(url, { MaxNumberOfMessages: 10, VisibilityTimeout: 30 })).Messages!;
    expect(rest.map((m) => m.Body).sort()).toEqual(['m0', 'm3']);

    await expect(receive(url, { MaxNumberOfMessages: 11 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await client.send(new PurgeQueueCommand({ QueueUrl: url }));
    expect(await counts(url)).toEqual({ visible: 0, hidden: 0 });
  });
});
