/** The ports chosen once at start-up from configuration, handed to every handler. */
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import type { BootstrapResult } from './bootstrap.ts';
import { SchemaCache } from './schema/cache.ts';
import { AccessResolver } from './access/resolve.ts';
import { MemoryStore, type SharedStore } from './store/shared-store.ts';
import { StorageRegistry } from './storage/registry.ts';
import { AuthProviderRegistry } from './auth/sso/registry.ts';
import { EventBus } from './events/bus.ts';
import { registerWorkflowHooks } from './workflow/hooks.ts';
import { openQueue } from './queue/index.ts';
import type { Queue } from './queue/queue.ts';
import { LazyQueue } from './queue/lazy-queue.ts';
import { routeMessages } from './queue/router.ts';
import { ACTION_MESSAGE } from './events/bus.ts';
import { EventRelay } from './events/relay.ts';
import { NotifyWorker } from './notify/outbox/worker.ts';
import { WAKE_MESSAGE } from './notify/wake.ts';
import type { HttpMetrics } from './metrics/http-metrics.ts';
import { startPressureMonitor, type PressureMonitor } from './pressure/monitor.ts';
import { MemoryChangeLog, type ChangeLog } from './realtime/log.ts';
import { publishChanges } from './realtime/publish.ts';
import type { RedisStore } from './store/redis-store.ts';

export interface Services {
  config: Config;
  database: Database;
  store: SharedStore;
  schema: SchemaCache;
  access: AccessResolver;
  /** Storage providers, loaded per schema version. */
  storage: StorageRegistry;
  /** External sign-on providers (environment and records), loaded per schema version. */
  sso: AuthProviderRegistry;
  /** Filter and action events (core/events/bus.ts). */
  events: EventBus;
  /** In-process, or SQS in the split topology. */
  queue: Queue;
  /** The notification outbox worker (core/notify/outbox). Runs where the container half runs (container and
   * standalone: `notify.start()`); started automatically with the in-process queue, as consumeEvents. */
  notify: NotifyWorker;
  /** The relay of the action event outbox (core/events/relay.ts): sends the events their writer did not. Runs where
   * the queue is consumed (`relay.start()` in container and standalone); started automatically with the in-process
   * queue. */
  relay: EventRelay;
  /** Consumes the queue in this process (container and standalone; the functions half of a split deployment
   * leaves it to the container): one consumer routing action events to the event bus and `notify.wake` to the
   * notify worker (core/queue/router.ts). Started automatically with the in-process queue. */
  consumeEvents(): void;
  /** Committed item changes with increasing ids, kept for resume: what realtime subscribers are sent
   * (core/realtime). A Redis stream shared by every instance with REDIS_URL, else this process's own. */
  changes: ChangeLog;
  /** METRICS_ENABLED: this instance's Prometheus registry and HTTP metrics (core/metrics); null when off. */
  metrics: HttpMetrics | null;
  /** PRESSURE_LIMITER_ENABLED: the load sampler (core/pressure), stopped by close(); null when off. */
  pressure: PressureMonitor | null;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Reuse an already open database (tests clone a migrated template). */
  database?: Database;
  store?: SharedStore;
  queue?: Queue;
  /** Skip migrations and bootstrap (the database is known to be ready). */
  skipMigrations?: boolean;
  onBootstrap?: (result: BootstrapResult) => void;
  /** false: action events are written to the outbox and left to the container's relay instead of being sent after
   * commit (a Lambda is frozen once it answered: it must not wait for the Queue). Default true. */
  sendEventsAfterCommit?: boolean;
  /** false: the in-process queue's consumer, the notify worker and the relay are not started (a CLI process). */
  workers?: boolean;
}

export async function createServices(config: Config, opts: StartOptions = {}): Promise<Services> {
  // prom-client is loaded only with METRICS_ENABLED (its module sets up collectors at import).
  const metrics = config.metrics.enabled ? (await import('./metrics/http-metrics.ts')).createHttpMetrics(config.metrics) : null;
  const database = opts.database ?? await openDatabase({
    databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.dbPoolMax, wasmCompiler: config.pgliteWasmCompiler,
    statementTimeoutMs: config.dbStatementTimeoutMs, idleInTransactionTimeoutMs: config.dbIdleInTransactionTimeoutMs,
  });
  if (!opts.skipMigrations) {
    // Loaded only when they run: a Lambda cold start skips them (migrations run at deploy time).
    const [{ migrateToLatest }, { bootstrap }] = await Promise.all([import('./db/migrate.ts'), import('./bootstrap.ts')]);
    await migrateToLatest(database);
    const result = await bootstrap(database.db, config);
    opts.onBootstrap?.(result);
  }
  // ioredis is loaded only with REDIS_URL (core/store/index.ts's choice, without importing both adapters).
  const store: SharedStore = opts.store ?? (config.redisUrl
    ? new (await import('./store/redis-store.ts')).RedisStore(config.redisUrl, config.redisNamespace)
    : new MemoryStore());
  await store.ready?.();
  const schema = new SchemaCache(database.db, store);
  // SQS (split topology): the adapter and its SDK client are imported with the first message, not at start-up.
  const queue = opts.queue ?? (config.sqsQueueUrl ? new LazyQueue('sqs', () => openQueue(config)) : await openQueue(config));
  const events = new EventBus();
  events.connect(queue, store, {
    db: database.db, graceMs: config.events.relayGraceMs, sendAfterCommit: opts.sendEventsAfterCommit ?? true,
    pauseBeforeSendMs: config.events.testPauseBeforeSendMs,
  });
  const relay = new EventRelay(database.db, queue, {
    intervalMs: config.events.relayIntervalMs, leaseMs: 60_000, retryMaxDelayMs: config.events.relayRetryMaxDelayMs,
  });
  registerWorkflowHooks(events);
  const retention = { ms: config.realtime.retentionMs, events: config.realtime.retentionEvents };
  // ioredis is already loaded when the store is Redis; the in-process log otherwise.
  const changes: ChangeLog = store.kind === 'redis' && config.redisUrl
    ? new (await import('./realtime/redis-log.ts')).RedisChangeLog((store as RedisStore).client, config.redisUrl, (store as RedisStore).prefix, retention)
    : new MemoryChangeLog(retention);
  if (config.realtime.enabled) publishChanges(events, changes, queue);
  const notify = new NotifyWorker(database.db, config);
  let stopConsuming: (() => Promise<void>) | null = null;
  const consumeEvents = () => {
    stopConsuming ??= queue.consume(routeMessages({
      [ACTION_MESSAGE]: (message) => events.handleMessage(message),
      [WAKE_MESSAGE]: async () => notify.wake(),
    }));
  };
  if (queue.kind === 'memory' && opts.workers !== false) {
    consumeEvents();
    notify.start();
    relay.start();
  }
  const pressure = startPressureMonitor(config.pressure);
  return {
    config,
    database,
    store,
    schema,
    access: new AccessResolver(database.db),
    storage: new StorageRegistry(database.db, config),
    sso: new AuthProviderRegistry(database.db, config),
    events,
    queue,
    notify,
    relay,
    consumeEvents,
    changes,
    metrics,
    pressure,
    async close() {
      pressure?.stop();
      await relay.stop();
      await events.drain();
      await stopConsuming?.();
      await changes.close();
      await notify.stop();
      await queue.close();
      await store.close();
      await database.close();
    },
  };
}
