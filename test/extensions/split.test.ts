/** An extension's action hook in the split topology: the functions half (with the same extensions loaded, so its
 * filters run) emits items.create over SQS; two container instances with the extensions loaded consume the queue
 * and the recorder's action runs once per event, not once per instance. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { run, type Database } from '../../core/db/database.ts';
import type { ExtensionLogger } from '../../core/extensions/api.ts';
import { loadExtensions } from '../../core/extensions/host.ts';
import { ACTION_MESSAGE, type ActionEvent } from '../../core/events/bus.ts';
import { SqsQueue } from '../../core/queue/sqs-queue.ts';
import { createServices, type Services } from '../../core/services.ts';
import { openSharedStore } from '../../core/store/index.ts';
import { MemoryStore, type SharedStore } from '../../core/store/shared-store.ts';
import { createTestApp } from '../helpers/app.ts';
import { startSqs, type SqsServer } from '../helpers/sqs-server.ts';
import { testEnv } from '../helpers/template.ts';

const quiet: ExtensionLogger = { info: () => {}, warn: () => {}, error: () => {} };
const EXT = { EXTENSIONS_PATH: 'test/extensions' };
let sqs: SqsServer;
let fn: Awaited<ReturnType<typeof createTestApp>>;
let shared: SharedStore;
const containers: Services[] = [];

beforeAll(async () => {
  sqs = await startSqs();
  const queueUrl = await sqs.createQueue(`ext-${randomBytes(4).toString('hex')}`);
  fn = await createTestApp({ env: { ...EXT, SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: sqs.endpoint }, extensions: true, extensionLog: quiet });
  await run(fn.services.database.db, `
    create table articles (id serial primary key, title varchar(255), slug varchar(255));
    create table hook_log (id serial primary key, event varchar(64), collection varchar(64), item varchar(255), event_id varchar(64), user_id varchar(64));
    insert into svc_collections (collection, singleton, accountability) values ('articles', false, 'all'), ('hook_log', false, null);`);
  await fn.services.schema.invalidate();

  const redisUrl = process.env.REDIS_URL ?? null;
  shared = redisUrl ? openSharedStore(redisUrl, `ext-split-${randomBytes(6).toString('hex')}`) : new MemoryStore();
  const url = fn.database.url;
  for (let i = 0; i < 2; i++) {
    const config = loadConfig(testEnv({ ...EXT, ...(url ? { DATABASE_URL: url } : {}) }));
    const database: Database = url ? await fn.database.open() : { ...fn.services.database, close: async () => {} };
    const services = await createServices(config, {
      database, skipMigrations: true,
      store: { kind: shared.kind, get: (k) => shared.get(k), set: (k, v, ttl) => shared.set(k, v, ttl), incr: (k, ttl) => shared.incr(k, ttl), del: (k) => shared.del(k),
        getMany: (ks) => shared.getMany(ks), setIfAbsent: (k, v) => shared.setIfAbsent(k, v), close: async () => {} },
      queue: new SqsQueue({ queueUrl, endpoint: sqs.endpoint, region: 'us-east-1', waitTimeSeconds: 1, visibilityTimeoutSeconds: 1, errorBackoffMs: 100 }),
    });
    await loadExtensions(services, quiet);
    services.consumeEvents();
    containers.push(services);
  }
});
afterAll(async () => {
  for (const c of containers) await c.close();
  await shared?.close();
  await fn?.close();
  await sqs?.close();
});

describe('extension action hooks in the split topology', () => {
  it('run once per event across two container instances', async () => {
    const res = await fn.req('POST', '/items/articles', [{ title: 'One' }, { title: 'Two' }, { title: 'Three' }, { title: 'Four' }]);
    expect(res.status).toBe(200);
    // The functions half ran the slugify filter itself.
    const [first] = await run<{ slug: string }>(fn.services.database.db, 'select slug from articles where id = $1', [res.body.data[0]]);
    expect(first.slug).toBe('one');
    await fn.services.events.drain();
    const count = async () => (await run<{ n: number }>(fn.services.database.db, "select count(*)::int as n from hook_log where event = 'items.create' and collection = 'articles'"))[0].n;
    const end = Date.now() + 10_000;
    while (await count() < 4 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    // Past the visibility timeout: no message comes back to a second instance.
    await new Promise((r) => setTimeout(r, 1500));
    const rows = await run<{ item: string; event_id: string }>(fn.services.database.db,
      "select item, event_id from hook_log where event = 'items.create' and collection = 'articles' order by item");
    expect(rows.map((r) => r.item).sort()).toEqual(res.body.data.map(String).sort());
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(4);

    // SQS may deliver a message twice: two more copies of a handled event change nothing.
    const copy: ActionEvent = {
      id: rows[0].event_id, event: 'items.create', accountability: null, emittedAt: new Date().toISOString(),
      meta: { collection: 'articles', key: Number(rows[0].item), keys: [Number(rows[0].item)] },
    };
    for (const c of containers) await c.queue.send({ id: copy.id, type: ACTION_MESSAGE, body: copy });
    await new Promise((r) => setTimeout(r, 2500));
    expect(await count()).toBe(4);
  });
});
