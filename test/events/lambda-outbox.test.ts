/** A Lambda records its action events and answers without waiting for SQS: the functions' services
 * (sendEventsAfterCommit false, as functions/lambda.ts creates them) behind the Lambda handler, over the SQS test
 * server. With SQS stopped, a write through the handler still answers 200 at once, sends nothing, and leaves its
 * events committed in the outbox, due for the relay at once; the container's relay sends them, with their ids,
 * once SQS is back, and deletes the rows. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from 'aws-lambda';
import { loadConfig } from '../../core/config.ts';
import { run } from '../../core/db/database.ts';
import type { ActionEvent } from '../../core/events/bus.ts';
import { EventRelay } from '../../core/events/relay.ts';
import { SqsQueue } from '../../core/queue/sqs-queue.ts';
import { createServices, type Services } from '../../core/services.ts';
import { createLambdaHandler } from '../../functions/lambda.ts';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { jsonEvent } from '../helpers/lambda-event.ts';
import { startSqs, type SqsServer } from '../helpers/sqs-server.ts';
import { testEnv } from '../helpers/template.ts';

let sqs: SqsServer;
let queueUrl: string;
let db: TestDatabase;
let fn: Services;

beforeAll(async () => {
  sqs = await startSqs();
  queueUrl = await sqs.createQueue(`lambda-${randomBytes(4).toString('hex')}`);
  db = await cloneTestDatabase();
  const config = loadConfig(testEnv({ SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: sqs.endpoint, ...(db.url ? { DATABASE_URL: db.url } : {}) }));
  fn = await createServices(config, { database: await db.open(), skipMigrations: true, sendEventsAfterCommit: false });
  fn.events.action('items.create', () => {});
  await createContentModel(fn);
});
afterAll(async () => {
  await fn?.close();
  await db?.drop();
  await sqs?.close();
});

describe('Lambda and the action event outbox', () => {
  it('answers without SQS, leaves the events to the relay, which sends them once SQS is back', async () => {
    const port = Number(new URL(sqs.endpoint).port);
    const state = sqs.state;
    await sqs.close();

    const handler = createLambdaHandler(fn);
    const context = { functionName: 'svc-functions', awsRequestId: 'req-1' } as unknown as Context;
    const started = Date.now();
    const res = await handler(jsonEvent('POST', '/items/authors', { name: 'Frozen' }) as never, context as never) as { statusCode: number; body: string };
    expect(res.statusCode, res.body).toBe(200);
    // No send was tried: nothing waited on SQS retries.
    expect(Date.now() - started).toBeLessThan(5000);
    const key = JSON.parse(res.body).data;
    const rows = await run<{ body: ActionEvent; due: boolean }>(fn.database.db,
      'select body, relay_after <= now() as due from svc_event_outbox order by id');
    expect(rows.map((r) => r.body.event).sort()).toEqual(['authors.items.create', 'items.create']);
    expect(rows.every((r) => r.due && r.body.meta.key === key)).toBe(true);

    // The container's relay (own queue client, as in the container process) while SQS is down: nothing lost.
    const container = new SqsQueue({ queueUrl, endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1' });
    try {
      const relay = new EventRelay(fn.database.db, container, { intervalMs: 50, leaseMs: 60_000, retryMaxDelayMs: 50, log: () => {} });
      expect(await relay.scan()).toBe(0);
      expect(await run(fn.database.db, 'select 1 from svc_event_outbox')).toHaveLength(2);

      sqs = await startSqs({ port, restore: state });
      await new Promise((r) => setTimeout(r, 100));
      expect(await relay.scan()).toBe(2);
      expect(await run(fn.database.db, 'select 1 from svc_event_outbox')).toHaveLength(0);
      const queued = state.queues.get(queueUrl.split('/').pop()!)!.messages.map((m) => JSON.parse(m.body) as { id: string; body: ActionEvent });
      expect(queued.map((m) => m.body.event).sort()).toEqual(['authors.items.create', 'items.create']);
      expect(new Set(queued.map((m) => m.id))).toEqual(new Set(rows.map((r) => r.body.id)));
      await relay.stop();
    } finally {
      await container.close();
    }
  });
});
