/** The split topology: the functions half triggers and only sends `notify.wake` over SQS (the SQS test server, the
 * real SDK); the container half consumes the queue through the router and its worker sends at once, with the periodic
 * scan set to an hour, so only the wake-up can have moved it. Unknown message types are acknowledged, not eaten
 * silently nor redelivered forever. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { loadConfig } from '../../core/config.ts';
import { run, type Database } from '../../core/db/database.ts';
import { SqsQueue } from '../../core/queue/sqs-queue.ts';
import { createServices, type Services } from '../../core/services.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startSqs, type SqsServer } from '../helpers/sqs-server.ts';
import { testEnv } from '../helpers/template.ts';
import { addContent, addProvider, addTemplate, waitFor } from './outbox-helpers.ts';

let sqs: SqsServer;
let smtp: TestSmtp;
let queueUrl: string;
let fn: TestApp & { database: { url: string | null; open(): Promise<Database> } };
let container: Services;

beforeAll(async () => {
  sqs = await startSqs();
  smtp = await startSmtp();
  queueUrl = await sqs.createQueue(`notify-${randomBytes(4).toString('hex')}`);
  const env = { SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: sqs.endpoint, NOTIFY_SCAN_INTERVAL: '1h', ...smtp.env };
  fn = await createTestApp({ env });
  const database: Database = fn.database.url ? await fn.database.open() : { ...fn.services.database, close: async () => {} };
  container = await createServices(loadConfig(testEnv({ ...env, ...(fn.database.url ? { DATABASE_URL: fn.database.url } : {}) })), {
    database, skipMigrations: true,
    queue: new SqsQueue({ queueUrl, endpoint: sqs.endpoint, region: 'us-east-1', waitTimeSeconds: 1, visibilityTimeoutSeconds: 1, errorBackoffMs: 100 }),
  });
  // What container/main.ts does in container mode.
  container.consumeEvents();
  container.notify.start();
});
afterAll(async () => { await container?.close(); await fn?.close(); await sqs?.close(); await smtp?.close(); });

describe('notify.wake over SQS', () => {
  it('the functions half does not run the worker; the container sends on the wake-up', async () => {
    expect(fn.services.queue.kind).toBe('sqs');
    expect(fn.services.notify.running).toBe(false);
    const pid = await addProvider(fn, { name: 'smtp', channel: 'email', type: 'smtp', config: { host: '127.0.0.1', port: smtp.port, from: 'split@example.com' } });
    await addTemplate(fn, { id: 'split' });
    await addContent(fn, 'split', { provider_id: pid, subject: 'Split {{n}}', content: '<p>{{n}}</p>' });
    await new Promise((r) => setTimeout(r, 300)); // the container's start-up scan is over
    const started = Date.now();
    const res = await fn.req('POST', '/notify/trigger', { template_id: 'split', recipients: ['split@example.com'], variables: { n: 1 } });
    expect(res.status).toBe(200);
    const mail = await smtp.next('split@example.com', 8000);
    expect(mail.subject).toBe('Split 1');
    expect(Date.now() - started).toBeLessThan(8000);
    const [log] = await run<Record<string, any>>(fn.services.database.db, 'select status, claimed_by from svc_notify_logs where id = $1', [res.body.data.log_ids[0]]);
    await waitFor(async () => (await run<Record<string, any>>(fn.services.database.db, 'select status from svc_notify_logs where id = $1', [res.body.data.log_ids[0]]))[0].status === 'sent', 5000, 'sent');
    expect(log.claimed_by).toBe(container.notify.id);
  });

  it('an unknown message type is acknowledged (deleted), not left to come back', async () => {
    const client = new SQSClient({ region: 'us-east-1', endpoint: sqs.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const before = sqs.requests.DeleteMessage ?? 0;
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ id: 'u1', type: 'mystery.type', body: {} }) }));
    await waitFor(() => (sqs.requests.DeleteMessage ?? 0) > before, 8000, 'the unknown message deleted');
    client.destroy();
  });
});
