/** The split topology over SQS (the SQS test server, the real SDK): the functions half emits item actions and only
 * sends them; container instances on the same database consume them and run each handler exactly once per event,
 * through failures (SQS redelivers after the visibility timeout) and duplicated messages. */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { loadConfig } from '../../core/config.ts';
import type { Database } from '../../core/db/database.ts';
import { ACTION_MESSAGE, type ActionEvent, type EventMeta } from '../../core/events/bus.ts';
import { SqsQueue } from '../../core/queue/sqs-queue.ts';
import { createServices, type Services } from '../../core/services.ts';
import { MemoryStore } from '../../core/store/shared-store.ts';
import type { SharedStore } from '../../core/store/shared-store.ts';
import { openSharedStore } from '../../core/store/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { startSqs, type SqsServer } from '../helpers/sqs-server.ts';
import { ADMIN_TOKEN, testEnv } from '../helpers/template.ts';

let sqs: SqsServer;
let queueUrl: string;
let client: SQSClient;
let fn: TestApp & { database: { url: string | null; open(): Promise<Database> } };
let adminId: string;
/** Two container instances: each its own SqsQueue consumer; one shared store (Redis when REDIS_URL is set). */
const containers: Services[] = [];
let sharedStore: SharedStore;

/** What every container runs for items.create, keyed by event id: how many times each handler ran. */
const runs = new Map<string, { steady: number; flaky: number; meta: EventMeta & { event: string }; user: string | null }>();
/** Items whose create event makes the flaky handler fail on its first run (by name). */
const failFirstFor = new Set<string>();
const failedOnce = new Set<string>();

beforeAll(async () => {
  sqs = await startSqs();
  queueUrl = await sqs.createQueue(`events-${randomBytes(4).toString('hex')}`);
  client = new SQSClient({ region: 'us-east-1', endpoint: sqs.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

  // The functions half: SQS chosen from the environment, as in production.
  fn = await createTestApp({ env: { SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: sqs.endpoint } });
  await createContentModel(fn.services);
  const [{ id }] = await fn.services.database.db.selectFrom('svc_users').select('id').where('token', '=', ADMIN_TOKEN).execute();
  adminId = id;

  const namespace = `split-${randomBytes(6).toString('hex')}`;
  const redisUrl = process.env.REDIS_URL ?? null;
  sharedStore = redisUrl ? openSharedStore(redisUrl, namespace) : new MemoryStore();
  for (let i = 0; i < 2; i++) {
    const config = loadConfig(testEnv({ ...(fn.database.url ? { DATABASE_URL: fn.database.url } : {}) }));
    // Postgres: a pool of its own on the same database. PGlite: the one in-process instance (not closed here).
    const database: Database = fn.database.url ? await fn.database.open() : { ...fn.services.database, close: async () => {} };
    const services = await createServices(config, {
      database, skipMigrations: true,
      store: { ...storeFacade(sharedStore), close: async () => {} },
      queue: new SqsQueue({ queueUrl, endpoint: sqs.endpoint, region: 'us-east-1', waitTimeSeconds: 1, visibilityTimeoutSeconds: 1, errorBackoffMs: 100 }),
    });
    services.events.action('items.create', (meta, { event, accountability }) => {
      const r = entry(event.id, meta, accountability?.user ?? null);
      r.steady += 1;
    });
    services.events.action('items.create', async (meta, { event }) => {
      const r = runs.get(event.id)!;
      await new Promise((res) => setTimeout(res, 50)); // long enough for duplicates to overlap
      r.flaky += 1;
      const name = (meta.payload as { name?: string } | undefined)?.name ?? '';
      if (failFirstFor.has(name) && !failedOnce.has(event.id)) {
        failedOnce.add(event.id);
        throw new Error('transient failure');
      }
    });
    containers.push(services);
  }
});
afterEach(() => { vi.restoreAllMocks(); });
afterAll(async () => {
  for (const c of containers) await c.close();
  await sharedStore?.close();
  await fn?.close();
  client?.destroy();
  await sqs?.close();
});

function entry(id: string, meta: EventMeta & { event: string }, user: string | null) {
  let r = runs.get(id);
  if (!r) { r = { steady: 0, flaky: 0, meta, user }; runs.set(id, r); }
  return r;
}
/** A store whose methods call through to the shared one (each Services closes its own; this one is closed once). */
function storeFacade(s: SharedStore): SharedStore {
  return {
    kind: s.kind,
    get: (k) => s.get(k), set: (k, v, ttl) => s.set(k, v, ttl), incr: (k, ttl) => s.incr(k, ttl), del: (k) => s.del(k),
    getMany: (ks) => s.getMany(ks), setIfAbsent: (k, v) => s.setIfAbsent(k, v),
    close: async () => {},
  };
}
async function inQueue(): Promise<number> {
  const { Attributes } = await client.send(new GetQueueAttributesCommand({
    QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
  }));
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
}
async function until(check: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
const eventFor = (key: unknown) => [...runs.entries()].find(([, r]) => r.meta.key === key && r.meta.collection === 'authors');

describe('split delivery over SQS', () => {
  it('the functions half sends (kind sqs, no local handler) and does not consume', async () => {
    expect(fn.services.queue.kind).toBe('sqs');
    const res = await fn.req('POST', '/items/authors', { name: 'Sent', email: 'sent@example.com' });
    expect(res.status).toBe(200);
    await fn.services.events.drain();
    // items.create and authors.items.create, waiting for a consumer.
    expect(await inQueue()).toBe(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(await inQueue()).toBe(2);
    expect(runs.size).toBe(0);

    for (const c of containers) c.consumeEvents();
    await until(() => eventFor(res.body.data) !== undefined);
    await until(async () => await inQueue() === 0);
    const [, r] = eventFor(res.body.data)!;
    expect(r.meta).toMatchObject({ event: 'items.create', collection: 'authors', key: res.body.data, keys: [res.body.data], payload: { name: 'Sent', email: 'sent@example.com' } });
    expect(r.user).toBe(adminId);
    expect(r).toMatchObject({ steady: 1, flaky: 1 });
  });

  it('runs every handler exactly once per event across container instances', async () => {
    const res = await fn.req('POST', '/items/authors', [{ name: 'One' }, { name: 'Two' }, { name: 'Three' }]);
    expect(res.status).toBe(200);
    await fn.services.events.drain();
    await until(() => res.body.data.every((k: unknown) => eventFor(k)));
    await until(async () => await inQueue() === 0);
    await new Promise((r) => setTimeout(r, 1200)); // past the visibility timeout: nothing comes back
    for (const k of res.body.data) expect(eventFor(k)![1]).toMatchObject({ steady: 1, flaky: 1 });
  });

  it('a handler failing the first time runs again after SQS redelivers; the one that succeeded does not', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    failFirstFor.add('Flaky');
    try {
      const res = await fn.req('POST', '/items/authors', { name: 'Flaky', email: 'flaky@example.com' });
      await fn.services.events.drain();
      await until(() => (eventFor(res.body.data)?.[1].flaky ?? 0) >= 2, 8000);
      await until(async () => await inQueue() === 0);
      await new Promise((r) => setTimeout(r, 1200));
      expect(eventFor(res.body.data)![1]).toMatchObject({ steady: 1, flaky: 2 });
    } finally {
      failFirstFor.delete('Flaky');
    }
  });

  it('a change larger than an SQS message still reaches the container, without its payload', async () => {
    const res = await fn.req('POST', '/items/authors', { name: 'Big', bio: 'x'.repeat(300 * 1024) });
    expect(res.status).toBe(200);
    await fn.services.events.drain();
    await until(() => eventFor(res.body.data) !== undefined);
    const [, r] = eventFor(res.body.data)!;
    expect(r.meta).toEqual({ event: 'items.create', collection: 'authors', key: res.body.data, keys: [res.body.data], payloadOmitted: true });
    expect(r.steady).toBe(1);
  });

  it('a message duplicated on the queue runs each handler once, also when both copies arrive at once', async () => {
    const key = 900_001;
    const event: ActionEvent = {
      id: randomUUID(), event: 'items.create', accountability: null, emittedAt: new Date().toISOString(),
      meta: { collection: 'authors', key, keys: [key], payload: { name: 'Dup' } },
    };
    const message = { id: event.id, type: ACTION_MESSAGE, body: event };
    // Twice through the adapter, and twice more in one batch request.
    await fn.services.queue.send(message);
    await fn.services.queue.send(message);
    await client.send(new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: [{ Id: 'a', MessageBody: JSON.stringify(message) }, { Id: 'b', MessageBody: JSON.stringify(message) }],
    }));
    await until(() => eventFor(key) !== undefined);
    await until(async () => await inQueue() === 0, 10_000);
    await new Promise((r) => setTimeout(r, 1200));
    expect(eventFor(key)![1]).toMatchObject({ steady: 1, flaky: 1 });
  });
});
