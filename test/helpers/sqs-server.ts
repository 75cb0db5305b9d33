/** A small SQS-compatible server for tests (no SQS emulator installs from npm). It speaks the AWS JSON 1.0 protocol
 * that @aws-sdk/client-sqs 3.x uses (POST /, `x-amz-target: AmazonSQS.<Action>`) and behaves like SQS for the
 * operations below: visibility timeouts with redelivery, receipt handles per receive, long polling that answers as
 * soon as a message is there, md5 of bodies. Standard queues only (no FIFO ordering or deduplication). */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const ACCOUNT = '000000000000';
const MAX_BODY = 256 * 1024;

interface StoredMessage {
  id: string;
  body: string;
  md5: string;
  sentAt: number;
  /** Epoch ms from which the message may be received. */
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt: number | null;
  /** The receipt handle of the latest receive; only it can delete the message. */
  receipt: string | null;
}

interface Waiter {
  max: number;
  visibility: number;
  attributes: string[];
  answer(messages: StoredMessage[]): void;
}

export interface SqsQueueState {
  name: string;
  url: string;
  visibilityTimeout: number;
  receiveWaitTime: number;
  delaySeconds: number;
  messages: StoredMessage[];
  waiters: Waiter[];
  timer: NodeJS.Timeout | null;
}

class SqsError extends Error {
  constructor(readonly type: string, message: string, readonly status = 400) { super(message); }
}

/** What a server holds: its queues with their messages, and the receipt handles it issued. */
export interface SqsState {
  queues: Map<string, SqsQueueState>;
  receipts: Map<string, { queue: string; messageId: string }>;
}

export interface SqsServer {
  endpoint: string;
  /** Its queues and messages: `startSqs({ port, restore: state })` brings a stopped server back with them, as SQS
   * keeps what it accepted through an outage. */
  state: SqsState;
  /** How many requests of each action the server has answered (tests of batching). */
  requests: Record<string, number>;
  /** Creates the queue (idempotent) and returns its URL. */
  createQueue(name: string, attributes?: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1, on a free port unless `port` is given (an outage test brings a server back on its port,
 * with `restore` the queues and messages the stopped one held). */
export async function startSqs(opts: { port?: number; restore?: SqsState } = {}): Promise<SqsServer> {
  const queues = opts.restore?.queues ?? new Map<string, SqsQueueState>();
  /** Every receipt handle ever issued, to tell a stale handle (accepted, deletes nothing) from a made-up one. */
  const receipts = opts.restore?.receipts ?? new Map<string, { queue: string; messageId: string }>();
  let endpoint = '';
  const requests: Record<string, number> = {};

  function createQueue(name: string, attributes: Record<string, string> = {}): SqsQueueState {
    if (!/^[A-Za-z0-9_-]{1,80}(\.fifo)?$/.test(name)) throw new SqsError('InvalidParameterValue', `Invalid queue name ${name}`);
    const existing = queues.get(name);
    if (existing) return existing;
    const q: SqsQueueState = {
      name,
      url: `${endpoint}/${ACCOUNT}/${name}`,
      visibilityTimeout: seconds(attributes.VisibilityTimeout, 30, 0, 43_200, 'VisibilityTimeout'),
      receiveWaitTime: seconds(attributes.ReceiveMessageWaitTimeSeconds, 0, 0, 20, 'ReceiveMessageWaitTimeSeconds'),
      delaySeconds: seconds(attributes.DelaySeconds, 0, 0, 900, 'DelaySeconds'),
      messages: [],
      waiters: [],
      timer: null,
    };
    queues.set(name, q);
    return q;
  }

  function queueOf(input: Record<string, unknown>): SqsQueueState {
    const url = input.QueueUrl;
    if (typeof url !== 'string' || !url) throw new SqsError('MissingParameter', 'The request must contain the parameter QueueUrl.');
    const name = url.split('/').pop() ?? '';
    const q = queues.get(name);
    if (!q) throw new SqsError('QueueDoesNotExist', 'The specified queue does not exist.');
    return q;
  }

  function enqueue(q: SqsQueueState, body: unknown, delay: unknown): { MessageId: string; MD5OfMessageBody: string } {
    if (typeof body !== 'string' || body.length === 0) throw new SqsError('MissingParameter', 'The request must contain the parameter MessageBody.');
    if (Buffer.byteLength(body) > MAX_BODY) throw new SqsError('InvalidParameterValue', `Message must be shorter than ${MAX_BODY} bytes.`);
    const now = Date.now();
    const m: StoredMessage = {
      id: randomUUID(), body, md5: md5(body), sentAt: now,
      visibleAt: now + seconds(delay, q.delaySeconds, 0, 900, 'DelaySeconds') * 1000,
      receiveCount: 0, firstReceivedAt: null, receipt: null,
    };
    q.messages.push(m);
    serveWaiters(q);
    return { MessageId: m.id, MD5OfMessageBody: m.md5 };
  }

  /** Takes up to `max` visible messages, hides them for `visibility` seconds and gives each a new receipt handle. */
  function take(q: SqsQueueState, max: number, visibility: number): StoredMessage[] {
    const now = Date.now();
    const out: StoredMessage[] = [];
    for (const m of q.messages) {
      if (out.length >= max) break;
      if (m.visibleAt > now) continue;
      m.receiveCount += 1;
      m.firstReceivedAt ??= now;
      m.visibleAt = now + visibility * 1000;
      m.receipt = `${randomUUID()}:${m.id}`;
      receipts.set(m.receipt, { queue: q.name, messageId: m.id });
      out.push(m);
    }
    return out;
  }

  /** Answers waiting long polls while messages are visible; otherwise wakes up when the next hidden one reappears. */
  function serveWaiters(q: SqsQueueState): void {
    while (q.waiters.length) {
      const w = q.waiters[0];
      const got = take(q, w.max, w.visibility);
      if (!got.length) break;
      q.waiters.shift();
      w.answer(got);
    }
    if (q.timer) { clearTimeout(q.timer); q.timer = null; }
    if (!q.waiters.length) return;
    const next = Math.min(...q.messages.map((m) => m.visibleAt));
    if (Number.isFinite(next)) q.timer = setTimeout(() => { q.timer = null; serveWaiters(q); }, Math.max(0, next - Date.now()) + 5);
  }

  function wire(m: StoredMessage, attributes: string[]): Record<string, unknown> {
    const all = attributes.includes('All');
    const attrs: Record<string, string> = {};
    if (all || attributes.includes('ApproximateReceiveCount')) attrs.ApproximateReceiveCount = String(m.receiveCount);
    if (all || attributes.includes('SentTimestamp')) attrs.SentTimestamp = String(m.sentAt);
    if (all || attributes.includes('ApproximateFirstReceiveTimestamp')) attrs.ApproximateFirstReceiveTimestamp = String(m.firstReceivedAt);
    return {
      MessageId: m.id, ReceiptHandle: m.receipt, MD5OfBody: m.md5, Body: m.body,
      ...(Object.keys(attrs).length ? { Attributes: attrs } : {}),
    };
  }

  /** The message a receipt handle may act on: null for a stale handle (SQS accepts it and does nothing). */
  function byReceipt(q: SqsQueueState, handle: unknown): StoredMessage | null {
    if (typeof handle !== 'string' || !handle) throw new SqsError('MissingParameter', 'The request must contain the parameter ReceiptHandle.');
    const issued = receipts.get(handle);
    if (!issued || issued.queue !== q.name) throw new SqsError('ReceiptHandleIsInvalid', `The input receipt handle "${handle}" is not a valid receipt handle.`);
    return q.messages.find((m) => m.receipt === handle) ?? null;
  }

  type Action = (input: Record<string, unknown>, res: ServerResponse) => Promise<unknown> | unknown;
  const actions: Record<string, Action> = {
    CreateQueue: (input) => {
      if (typeof input.QueueName !== 'string') throw new SqsError('MissingParameter', 'The request must contain the parameter QueueName.');
      return { QueueUrl: createQueue(input.QueueName, (input.Attributes ?? {}) as Record<string, string>).url };
    },
    GetQueueUrl: (input) => {
      const q = queues.get(String(input.QueueName));
      if (!q) throw new SqsError('QueueDoesNotExist', 'The specified queue does not exist.');
      return { QueueUrl: q.url };
    },
    SendMessage: (input) => enqueue(queueOf(input), input.MessageBody, input.DelaySeconds),
    SendMessageBatch: (input) => {
      const q = queueOf(input);
      const entries = Array.isArray(input.Entries) ? input.Entries as Record<string, unknown>[] : [];
      if (!entries.length) throw new SqsError('EmptyBatchRequest', 'There should be at least one SendMessageBatchRequestEntry in the request.');
      if (entries.length > 10) throw new SqsError('TooManyEntriesInBatchRequest', 'Maximum number of entries per request are 10.');
      const ids = entries.map((e) => e.Id);
      if (new Set(ids).size !== ids.length) throw new SqsError('BatchEntryIdsNotDistinct', 'Two or more batch entries in the request have the same Id.');
      const Successful: unknown[] = [];
      const Failed: unknown[] = [];
      for (const e of entries) {
        try {
          Successful.push({ Id: e.Id, ...enqueue(q, e.MessageBody, e.DelaySeconds) });
        } catch (err) {
          Failed.push({ Id: e.Id, SenderFault: true, Code: (err as SqsError).type, Message: (err as Error).message });
        }
      }
      return { Successful, Failed };
    },
    ReceiveMessage: (input, res) => {
      const q = queueOf(input);
      const max = seconds(input.MaxNumberOfMessages, 1, 1, 10, 'MaxNumberOfMessages');
      const visibility = seconds(input.VisibilityTimeout, q.visibilityTimeout, 0, 43_200, 'VisibilityTimeout');
      const wait = seconds(input.WaitTimeSeconds, q.receiveWaitTime, 0, 20, 'WaitTimeSeconds');
      const attributes = [...asStrings(input.AttributeNames), ...asStrings(input.MessageSystemAttributeNames)];
      const answer = (messages: StoredMessage[]) => ({ Messages: messages.map((m) => wire(m, attributes)) });
      const now = take(q, max, visibility);
      if (now.length || wait === 0) return answer(now);
      return new Promise((resolve) => {
        const waiter: Waiter = {
          max, visibility, attributes,
          answer: (messages) => { clearTimeout(timer); resolve(answer(messages)); },
        };
        const leave = () => {
          const i = q.waiters.indexOf(waiter);
          if (i >= 0) q.waiters.splice(i, 1);
          clearTimeout(timer);
        };
        const timer = setTimeout(() => { leave(); resolve(answer([])); }, wait * 1000);
        // A client that gave up (aborted its long poll) must not take messages it will never see.
        res.on('close', () => { if (!res.writableFinished) leave(); });
        q.waiters.push(waiter);
        serveWaiters(q);
      });
    },
    DeleteMessage: (input) => {
      const q = queueOf(input);
      const m = byReceipt(q, input.ReceiptHandle);
      if (m) q.messages.splice(q.messages.indexOf(m), 1);
      return {};
    },
    ChangeMessageVisibility: (input) => {
      const q = queueOf(input);
      const timeout = seconds(input.VisibilityTimeout, NaN, 0, 43_200, 'VisibilityTimeout');
      const m = byReceipt(q, input.ReceiptHandle);
      if (!m || m.visibleAt <= Date.now()) throw new SqsError('MessageNotInflight', 'The message referred to is not in flight.');
      m.visibleAt = Date.now() + timeout * 1000;
      serveWaiters(q);
      return {};
    },
    PurgeQueue: (input) => {
      queueOf(input).messages.length = 0;
      return {};
    },
    GetQueueAttributes: (input) => {
      const q = queueOf(input);
      const names = asStrings(input.AttributeNames);
      const now = Date.now();
      const all: Record<string, string> = {
        ApproximateNumberOfMessages: String(q.messages.filter((m) => m.visibleAt <= now).length),
        ApproximateNumberOfMessagesNotVisible: String(q.messages.filter((m) => m.visibleAt > now && m.receipt).length),
        ApproximateNumberOfMessagesDelayed: String(q.messages.filter((m) => m.visibleAt > now && !m.receipt).length),
        VisibilityTimeout: String(q.visibilityTimeout),
        ReceiveMessageWaitTimeSeconds: String(q.receiveWaitTime),
        DelaySeconds: String(q.delaySeconds),
        QueueArn: `arn:aws:sqs:us-east-1:${ACCOUNT}:${q.name}`,
      };
      const pick = names.includes('All') ? all : Object.fromEntries(names.filter((n) => n in all).map((n) => [n, all[n]]));
      return { Attributes: pick };
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const target = String(req.headers['x-amz-target'] ?? '');
      if (req.method !== 'POST' || !target.startsWith('AmazonSQS.')) {
        throw new SqsError('UnknownOperationException', `Unsupported request ${req.method} ${req.url} ${target}`);
      }
      const name = target.slice('AmazonSQS.'.length);
      const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
      if (!action) throw new SqsError('UnknownOperationException', `Unknown operation ${target}`);
      requests[name] = (requests[name] ?? 0) + 1;
      let input: Record<string, unknown>;
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        input = text ? JSON.parse(text) as Record<string, unknown> : {};
      } catch {
        throw new SqsError('SerializationException', 'The request body is not valid JSON.');
      }
      const out = await action(input, res);
      if (res.destroyed) return;
      send(res, 200, out);
    } catch (err) {
      if (err instanceof SqsError) send(res, err.status, { __type: `com.amazonaws.sqs#${err.type}`, message: err.message });
      else send(res, 500, { __type: 'com.amazonaws.sqs#InternalError', message: String(err) });
    }
  }

  const server = createServer((req, res) => { void handle(req, res); });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    endpoint,
    state: { queues, receipts },
    requests,
    createQueue: async (name, attributes) => createQueue(name, attributes).url,
    async close() {
      for (const q of queues.values()) {
        if (q.timer) clearTimeout(q.timer);
        for (const w of q.waiters.splice(0)) w.answer([]);
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body ?? {});
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(text);
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** An integer parameter within bounds, or the fallback when absent (attributes arrive as strings). */
function seconds(value: unknown, fallback: number, min: number, max: number, name: string): number {
  if (value === undefined || value === null) {
    if (Number.isNaN(fallback)) throw new SqsError('MissingParameter', `The request must contain the parameter ${name}.`);
    return fallback;
  }
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new SqsError('InvalidParameterValue', `Value ${String(value)} for parameter ${name} is invalid. Must be between ${min} and ${max}.`);
  }
  return n;
}
