/** The split topology with native processes (issue 12): the functions half and the container half as two
 * `container/main.ts` processes (SVC_MODE=functions|container) on one Postgres database, one Redis namespace and one
 * SQS queue (the SQS test server), storage on an s3rver bucket, mail to an smtp-server, and a router in front that
 * routes as infra/router.ts does. A third functions instance runs in this process behind the Lambda handler (API
 * Gateway v2 events). Runs when TEST_DATABASE_URL and REDIS_URL are both set (the third pass of .ci/run). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import pg from 'pg';
import { loadConfig } from '../../core/config.ts';
import { run } from '../../core/db/database.ts';
import { createServices, type Services } from '../../core/services.ts';
import { createLambdaHandler } from '../../functions/lambda.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { call, multipart, routeOf, SPLIT_ENABLED, SPLIT_SKIP_REASON, startSplit, until, type Split } from './harness.ts';

/** The shared-rate-limit scenario counts a service account's requests: that bucket is low and long, every other
 * bucket high (the admin and the other principals are ordinary users). */
const SERVICE_POINTS = 6;
const RATE_ENV = {
  RATE_LIMITER_ENABLED: 'true',
  RATE_LIMITER_STORE: 'shared',
  RATE_LIMITER_GLOBAL_ENABLED: 'false',
  RATE_LIMITER_POINTS: '100000',
  RATE_LIMITER_ASSETS_POINTS: '100000',
  RATE_LIMITER_USER_POINTS: '100000',
  RATE_LIMITER_SERVICE_POINTS: String(SERVICE_POINTS),
  RATE_LIMITER_SERVICE_DURATION: '3600',
};

const suite = SPLIT_ENABLED ? describe : describe.skip;

suite(SPLIT_ENABLED ? 'split topology with native processes' : `split topology with native processes (skipped: ${SPLIT_SKIP_REASON})`, () => {
  let split: Split;
  /** A functions instance in this process (as a Lambda would be): sends on the queue, never consumes. */
  let lambdaServices: Services;
  let lambda: ReturnType<typeof createLambdaHandler>;
  let fileId = '';
  const fileBytes = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 31) % 251));

  const db = () => lambdaServices.database.db;
  const hookRows = (item: string) => run<{ event_id: string }>(db(),
    "select event_id from hook_log where event = 'items.create' and collection = 'articles' and item = $1", [item]);
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await split.req(method, path, { body });
    if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${res.text}`);
    return res.body?.data;
  };

  beforeAll(async () => {
    split = await startSplit({
      // The container's worker scans for due notifications once an hour: only the SQS wake-up can move one.
      env: { ...RATE_ENV, NOTIFY_SCAN_INTERVAL: '1h' },
      async prepare(url) {
        // The collections the recorder and slugify extensions (test/extensions) work on.
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`
          create table articles (id serial primary key, title varchar(255), slug varchar(255));
          create table hook_log (id serial primary key, event varchar(64), collection varchar(64), item varchar(255), event_id varchar(64), user_id varchar(64));
          insert into svc_collections (collection, singleton, accountability) values ('articles', false, 'all'), ('hook_log', false, null);`);
        await c.end();
      },
    });
    lambdaServices = await createServices(loadConfig({ ...split.env, RATE_LIMITER_ENABLED: 'false' }), { skipMigrations: true });
    lambda = createLambdaHandler(lambdaServices);
    // Storage on the S3-protocol server, configured through the functions half: the first provider is the default.
    await ok('POST', '/system/storage-providers', { name: 's3', value: split.s3.config });
  }, 180_000);

  afterAll(async () => {
    await lambdaServices?.close();
    await split?.close();
  }, 60_000);

  it('the router sends what infra/router.ts sends to the container there, everything else to the functions', () => {
    const mp = 'multipart/form-data; boundary=x';
    expect(routeOf('GET', '/assets/abc?width=10', undefined)).toBe('container');
    expect(routeOf('POST', '/tus', 'application/offset+octet-stream')).toBe('container');
    expect(routeOf('PATCH', '/tus/abc', undefined)).toBe('container');
    expect(routeOf('POST', '/utils/import/articles', 'text/csv')).toBe('container');
    expect(routeOf('GET', '/utils/export/articles?format=csv', undefined)).toBe('container');
    expect(routeOf('POST', '/files', mp)).toBe('container');
    expect(routeOf('PATCH', '/files/abc', mp)).toBe('container');
    expect(routeOf('POST', '/files', 'application/json')).toBe('functions');
    expect(routeOf('PATCH', '/files/abc', 'application/json')).toBe('functions');
    expect(routeOf('PATCH', '/files', mp)).toBe('functions');
    expect(routeOf('GET', '/files/abc', undefined)).toBe('functions');
    expect(routeOf('GET', '/items/articles', undefined)).toBe('functions');
    expect(routeOf('GET', '/tusk', undefined)).toBe('functions');
    expect(routeOf('POST', '/utils/hash/generate', 'application/json')).toBe('functions');
  });

  it('an upload through the container lands in S3 and is read through the functions', async () => {
    const form = multipart({ title: 'Split upload' }, { name: 'split.bin', type: 'application/octet-stream', data: fileBytes });
    const up = await split.req('POST', '/files', { body: form.body, headers: { 'content-type': form.contentType } });
    expect(up.status, up.text).toBe(200);
    expect(split.routed.at(-1)).toMatchObject({ method: 'POST', path: '/files', half: 'container' });
    fileId = up.body.data.id;

    const read = await split.req('GET', `/files/${fileId}`);
    expect(split.routed.at(-1)!.half).toBe('functions');
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toMatchObject({ id: fileId, storage: 's3', title: 'Split upload', filename_download: 'split.bin' });
    expect(Number(read.body.data.filesize)).toBe(fileBytes.length);

    // The bytes are in the bucket, not on a local disk.
    const providers = await lambdaServices.storage.providers((await lambdaServices.schema.get()).version);
    const chunks: Buffer[] = [];
    for await (const c of await providers.get('s3').read(read.body.data.filename_disk)) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(fileBytes)).toBe(true);

    const asset = await split.req('GET', `/assets/${fileId}`);
    expect(split.routed.at(-1)!.half).toBe('container');
    expect(asset.status).toBe(200);
    expect(asset.bytes.equals(fileBytes)).toBe(true);

    // A JSON PATCH of the same file is the functions'; the container sees the new title at once.
    expect((await split.req('PATCH', `/files/${fileId}`, { body: { title: 'Renamed' } })).status).toBe(200);
    expect(split.routed.at(-1)!.half).toBe('functions');
    const exported = await split.req('GET', `/utils/export/svc_files?format=json&filter[id][_eq]=${fileId}&fields=id,title`);
    expect(split.routed.at(-1)!.half).toBe('container');
    expect(exported.status, exported.text).toBe(200);
    expect(JSON.parse(exported.text)).toEqual([{ id: fileId, title: 'Renamed' }]);
  });

  it('a schema change in the functions is seen by the container at once', async () => {
    const rows = [{ title: 'Imported', summary: 'from the container' }];
    // Before the field exists the container refuses it (and has the overview cached from here on).
    const before = await split.req('POST', '/utils/import/articles', { body: rows });
    expect(split.routed.at(-1)!.half).toBe('container');
    expect(before.status, before.text).toBe(400);

    expect((await split.req('POST', '/fields/articles', { body: { field: 'summary', type: 'string' } })).status).toBe(200);
    expect(split.routed.at(-1)!.half).toBe('functions');

    const after = await split.req('POST', '/utils/import/articles', { body: rows });
    expect(after.status, after.text).toBe(200);
    const read = await split.req('GET', '/items/articles?filter[summary][_eq]=from%20the%20container&fields=title,summary,slug');
    expect(read.body.data).toEqual([{ title: 'Imported', summary: 'from the container', slug: 'imported' }]);
  });

  it('a permission granted and revoked in the functions is seen by the container at once', async () => {
    const { policy } = await createPrincipal(lambdaServices, { token: 'split-reader', permissions: [] });
    const exportAs = () => split.req('GET', '/utils/export/articles?format=json&fields=title', { token: 'split-reader' });
    expect((await exportAs()).status).toBe(403);

    const granted = await ok('POST', '/permissions', { policy, collection: 'articles', action: 'read', fields: ['*'] });
    const permissionId = typeof granted === 'object' && granted !== null ? granted.id : granted;
    const allowed = await exportAs();
    expect(allowed.status, allowed.text).toBe(200);
    expect(JSON.parse(allowed.text)).toContainEqual({ title: 'Imported' });

    expect((await split.req('DELETE', `/permissions/${permissionId}`)).status).toBe(204);
    expect((await exportAs()).status).toBe(403);
    // And the other way round: the functions half agrees.
    expect((await split.req('GET', '/items/articles', { token: 'split-reader' })).status).toBe(403);
  });

  it('a notification triggered in the functions is sent by the container worker (woken over SQS)', async () => {
    const provider = await ok('POST', '/notify/providers', {
      name: 'split-smtp', channel: 'email', type: 'smtp', is_primary: true, enabled: true,
      config: { host: '127.0.0.1', port: split.smtp.port, from: 'split@example.com' },
    });
    const providerId = Number(typeof provider === 'object' && provider !== null ? provider.id : provider);
    await ok('POST', '/notify/templates', { id: 'split-tpl', name: 'split-tpl', status: 'published', channels: ['email'] });
    await ok('POST', '/notify/templates/split-tpl/contents', { active: true, provider_id: providerId, subject: 'Split {{n}}', content: '<p>{{n}}</p>' });

    const res = await split.req('POST', '/notify/trigger', { body: { template_id: 'split-tpl', recipients: ['reader@example.com'], variables: { n: 42 } } });
    expect(split.routed.at(-1)!.half).toBe('functions');
    expect(res.status, res.text).toBe(200);
    const mail = await split.smtp.next('reader@example.com', 30_000);
    expect(mail.subject).toBe('Split 42');
    const [log] = await until(async () => {
      const r = await run<{ status: string; claimed_by: string | null }>(db(), 'select status, claimed_by from svc_notify_logs where id = $1', [res.body.data.log_ids[0]]);
      return r[0]?.status === 'sent' ? r : null;
    }, 10_000, 'the log marked sent');
    expect(log.claimed_by).toBeTruthy();
  });

  it('an action hook emitted in the functions runs once, in the container', async () => {
    const res = await split.req('POST', '/items/articles', { body: [{ title: 'Hook One' }, { title: 'Hook Two' }] });
    expect(res.status, res.text).toBe(200);
    const keys = (res.body.data as number[]).map(String);
    // The filter (slugify) ran inline in the functions half.
    const [row] = await run<{ slug: string }>(db(), 'select slug from articles where id = $1', [keys[0]]);
    expect(row.slug).toBe('hook-one');
    for (const k of keys) await until(async () => (await hookRows(k)).length > 0, 30_000, `the hook row of article ${k}`);
    // Handled and acknowledged: the queue is empty and stays so, and each event ran once.
    await until(async () => (await queueDepth(split)) === 0, 10_000, 'the queue to empty');
    for (const k of keys) expect(await hookRows(k)).toHaveLength(1);
  });

  it('the Lambda handler (API Gateway v2 events) reads what the container wrote and its writes reach the container', async () => {
    const read = await invoke(lambda, { method: 'GET', path: '/items/articles', query: 'filter[title][_eq]=Imported&fields=title,summary' });
    expect(read.statusCode, read.body).toBe(200);
    expect(JSON.parse(read.body!).data).toEqual([{ title: 'Imported', summary: 'from the container' }]);
    const file = await invoke(lambda, { method: 'GET', path: `/files/${fileId}`, query: 'fields=id,storage,filesize' });
    expect(file.statusCode, file.body).toBe(200);
    expect(JSON.parse(file.body!).data).toMatchObject({ id: fileId, storage: 's3' });

    const created = await invoke(lambda, { method: 'POST', path: '/items/articles', body: JSON.stringify({ title: 'From Lambda' }), headers: { 'content-type': 'application/json' } });
    expect(created.statusCode, created.body).toBe(200);
    const key = keyOf(JSON.parse(created.body!).data);
    await until(async () => (await hookRows(key)).length > 0, 30_000, 'the hook row of the Lambda-created article');
  });

  it('rate limits are shared by both halves through Redis', async () => {
    const { role } = await createPrincipal(lambdaServices, { token: 'split-robot', permissions: [] });
    await run(db(), 'update svc_roles set service_account = true where id = $1', [role]);
    await lambdaServices.schema.invalidate();
    const statuses: number[] = [];
    // Half of the points on each half: a per-process limit would let every one of the next requests through.
    for (let i = 0; i < SERVICE_POINTS; i++) {
      const path = i % 2 === 0 ? '/users/me' : `/assets/${fileId}`;
      statuses.push((await split.req('GET', path, { token: 'split-robot' })).status);
    }
    expect(new Set(split.routed.slice(-SERVICE_POINTS).map((r) => r.half))).toEqual(new Set(['functions', 'container']));
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const overFunctions = await split.req('GET', '/users/me', { token: 'split-robot' });
    expect(overFunctions.status).toBe(429);
    expect(overFunctions.body.errors[0].extensions.code).toBe('REQUESTS_EXCEEDED');
    expect((await split.req('GET', `/assets/${fileId}`, { token: 'split-robot' })).status).toBe(429);
    // Other principals are not affected.
    expect((await split.req('GET', '/users/me')).status).toBe(200);
  });

  it('the container killed: the functions keep answering, the router fails container routes cleanly; after a restart events emitted meanwhile are delivered', async () => {
    await split.killContainer();

    expect((await split.req('GET', '/items/articles?fields=id', { timeoutMs: 15_000 })).status).toBe(200);
    const created = await split.req('POST', '/items/articles', { body: { title: 'While Down' }, timeoutMs: 15_000 });
    expect(created.status, created.text).toBe(200);
    const key = keyOf(created.body.data);
    expect((await split.req('GET', `/files/${fileId}`, { timeoutMs: 15_000 })).status).toBe(200);

    const asset = await split.req('GET', `/assets/${fileId}`, { timeoutMs: 15_000 });
    expect(asset.status).toBe(502);
    expect(asset.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    const form = multipart({}, { name: 'down.bin', type: 'application/octet-stream', data: Buffer.from('down') });
    expect((await split.req('POST', '/files', { body: form.body, headers: { 'content-type': form.contentType }, timeoutMs: 15_000 })).status).toBe(502);

    // Nobody consumes while the container is down: the event waits in SQS.
    await until(async () => (await queueDepth(split)) > 0, 10_000, 'the event in the queue');
    expect(await hookRows(key)).toHaveLength(0);

    await split.restartContainer();
    const again = await split.req('GET', `/assets/${fileId}`);
    expect(again.status).toBe(200);
    expect(again.bytes.equals(fileBytes)).toBe(true);
    await until(async () => (await hookRows(key)).length > 0, 30_000, 'the event emitted while the container was down');
    expect(await hookRows(key)).toHaveLength(1);
  }, 120_000);

  it('each half serves only its own routes when called directly', async () => {
    expect((await call(split.container.url, 'GET', '/server/ping', { token: null })).status).toBe(200);
    expect((await call(split.container.url, 'GET', '/items/articles')).status).toBe(404);
    expect((await call(split.functions.url, 'GET', `/assets/${fileId}`)).status).toBe(404);
  });
});

/** The key of a created item: the answer is the key itself, or the item when fields were asked for. */
function keyOf(data: unknown): string {
  return String(typeof data === 'object' && data !== null ? (data as { id: unknown }).id : data);
}

async function queueDepth(split: Split): Promise<number> {
  const res = await fetch(split.sqs.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.GetQueueAttributes' },
    body: JSON.stringify({ QueueUrl: split.queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  });
  const { Attributes } = await res.json() as { Attributes: Record<string, string> };
  return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
}

interface LambdaInput { method: string; path: string; query?: string; body?: string; headers?: Record<string, string> }

/** An API Gateway HTTP API (payload 2.0) event for the `$default` route, with the admin's token. */
async function invoke(handler: ReturnType<typeof createLambdaHandler>, i: LambdaInput): Promise<APIGatewayProxyStructuredResultV2> {
  const headers: Record<string, string> = {
    accept: '*/*', host: 'abc123.execute-api.eu-west-1.amazonaws.com', authorization: `Bearer ${ADMIN_TOKEN}`,
    'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https', ...i.headers,
  };
  if (i.body !== undefined) headers['content-length'] = String(Buffer.byteLength(i.body));
  const event: APIGatewayProxyEventV2 = {
    version: '2.0', routeKey: '$default', rawPath: i.path, rawQueryString: i.query ?? '', headers,
    ...(i.query ? { queryStringParameters: Object.fromEntries(new URLSearchParams(i.query)) } : {}),
    requestContext: {
      accountId: '123456789012', apiId: 'abc123', domainName: 'abc123.execute-api.eu-west-1.amazonaws.com', domainPrefix: 'abc123',
      http: { method: i.method, path: i.path, protocol: 'HTTP/1.1', sourceIp: '198.51.100.7', userAgent: 'split-test/1.0' },
      requestId: `req-${Date.now()}`, routeKey: '$default', stage: '$default', time: '10/Mar/2026:10:00:00 +0000', timeEpoch: Date.now(),
    },
    ...(i.body !== undefined ? { body: i.body } : {}),
    isBase64Encoded: false,
  };
  const context = { functionName: 'svc-functions', awsRequestId: 'req-1' } as unknown as Context;
  return await handler(event as never, context as never) as unknown as APIGatewayProxyStructuredResultV2;
}
