/** The Lambda entry answers only once the action events of the request are in the queue: Lambda freezes the
 * instance after the response, and a send still in flight then would be lost although the change was acknowledged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from 'aws-lambda';
import type { Queue, QueueMessage } from '../../core/queue/queue.ts';
import { createLambdaHandler } from '../../functions/lambda.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { jsonEvent } from '../helpers/lambda-event.ts';
import { run } from '../../core/db/database.ts';

/** A queue as slow as a remote one: a send takes 200 ms to be acknowledged. */
class SlowQueue implements Queue {
  readonly kind = 'sqs' as const;
  readonly acknowledged: QueueMessage[] = [];
  readonly #sending = new Set<Promise<void>>();
  send(message: QueueMessage): Promise<void> {
    const sent = new Promise<void>((r) => setTimeout(r, 200)).then(() => { this.acknowledged.push(message); });
    this.#sending.add(sent);
    void sent.finally(() => this.#sending.delete(sent));
    return sent;
  }
  consume(): () => Promise<void> { return async () => {}; }
  async drain(): Promise<void> { await Promise.all([...this.#sending]); }
  async close(): Promise<void> {}
}

let t: TestApp;
const queue = new SlowQueue();

beforeAll(async () => {
  t = await createTestApp({ queue });
  await createContentModel(t.services);
});
afterAll(async () => { await t.close(); });

describe('Lambda handler and action events', () => {
  it('returns after the events of the change are acknowledged by the queue', async () => {
    const handler = createLambdaHandler(t.services);
    const context = { functionName: 'svc-functions', awsRequestId: 'req-1' } as unknown as Context;
    const res = await handler(jsonEvent('POST', '/items/authors', { name: 'Lambda' }) as never, context as never) as { statusCode: number; body: string };
    expect(res.statusCode).toBe(200);
    const key = JSON.parse(res.body).data;
    expect(queue.acknowledged.map((m) => (m.body as { event: string }).event).sort()).toEqual(['authors.items.create', 'items.create']);
    expect(queue.acknowledged.every((m) => (m.body as { meta: { key: unknown } }).meta.key === key)).toBe(true);
  });

  it('returns after the worker wake-up of a queued mail is acknowledged (an invitation)', async () => {
    const handler = createLambdaHandler(t.services);
    const context = { functionName: 'svc-functions', awsRequestId: 'req-2' } as unknown as Context;
    const [role] = await run<{ id: string }>(t.services.database.db, 'select id from svc_roles limit 1');
    const before = queue.acknowledged.length;
    const res = await handler(jsonEvent('POST', '/users/invite', { email: 'lambda-invite@example.com', role: role.id }) as never, context as never) as { statusCode: number; body: string };
    expect(res.statusCode, res.body).toBe(204);
    expect(queue.acknowledged.slice(before).map((m) => m.type)).toContain('notify.wake');
  });
});
