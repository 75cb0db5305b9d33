/** A real app over a private clone of the migrated template: PGlite by default, its own Postgres database
 * when TEST_DATABASE_URL is set. Requests go through Hono's app.request (no sockets). */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Hono } from 'hono';
import { loadConfig } from '../../core/config.ts';
import { openDatabase, type Database } from '../../core/db/database.ts';
import { createServices, type Services } from '../../core/services.ts';
import type { SharedStore } from '../../core/store/index.ts';
import type { Queue } from '../../core/queue/queue.ts';
import { createStandaloneApp } from '../../container/app.ts';
import { loadExtensions, type ExtensionHost } from '../../core/extensions/host.ts';
import type { ExtensionLogger } from '../../core/extensions/api.ts';
import type { AppEnv } from '../../functions/http/env.ts';
import { ADMIN_TOKEN, PG_TEMPLATE_DB, PGLITE_TEMPLATE_PATH, testEnv, withDatabase } from './template.ts';

export interface TestDatabase {
  /** Connection URL of the private Postgres database, or null for PGlite. */
  url: string | null;
  /** statementTimeoutMs: DB_STATEMENT_TIMEOUT of the app's config (a Postgres server only, as the service does). */
  open(opts?: { statementTimeoutMs?: number; idleInTransactionTimeoutMs?: number }): Promise<Database>;
  drop(): Promise<void>;
}

/** A private database cloned from the template. */
export async function cloneTestDatabase(): Promise<TestDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  if (base) {
    const name = `svc_t_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name} template ${PG_TEMPLATE_DB}`);
    await admin.end();
    const url = withDatabase(base, name);
    return {
      url,
      open: (o = {}) => openDatabase({
        databaseUrl: url, poolMax: 5, statementTimeoutMs: o.statementTimeoutMs, idleInTransactionTimeoutMs: o.idleInTransactionTimeoutMs,
      }),
      async drop() {
        const c = new pg.Client({ connectionString: base });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      },
    };
  }
  const dump = readFileSync(PGLITE_TEMPLATE_PATH);
  return {
    url: null,
    open: () => openDatabase({ databaseUrl: null, loadDataDir: new Blob([dump]) }),
    async drop() {},
  };
}

export interface TestApp {
  app: Hono<AppEnv>;
  services: Services;
  /** JSON request helper: returns status, parsed body (or text) and headers. */
  req(method: string, path: string, body?: unknown, opts?: { token?: string | null; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  store?: SharedStore;
  /** Share a database with another TestApp (two instances on one database). Only meaningful with
   * TEST_DATABASE_URL: under PGlite each open() loads its own copy of the template. */
  database?: TestDatabase;
  /** A Queue adapter instead of the one the env chooses (in-process unless SQS_QUEUE_URL is set). */
  queue?: Queue;
  /** Load the extensions of EXTENSIONS_PATH (set it in `env`) as `npm start` does; errors go to `extensionLog`. */
  extensions?: boolean;
  extensionLog?: ExtensionLogger;
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp & { database: TestDatabase; extensions?: ExtensionHost }> {
  const testDb = opts.database ?? await cloneTestDatabase();
  const redis: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, REDIS_NAMESPACE: `test-${randomBytes(6).toString('hex')}` } : {};
  const env = testEnv({ ...redis, ...opts.env });
  const config = loadConfig({ ...env, ...(testDb.url ? { DATABASE_URL: testDb.url } : {}) });
  const database = await testDb.open({
    statementTimeoutMs: config.dbStatementTimeoutMs, idleInTransactionTimeoutMs: config.dbIdleInTransactionTimeoutMs,
  });
  const services = await createServices(config, { database, skipMigrations: true, store: opts.store, queue: opts.queue });
  let extensions: ExtensionHost | undefined;
  try {
    extensions = opts.extensions ? await loadExtensions(services, opts.extensionLog) : undefined;
  } catch (err) {
    await services.close();
    if (!opts.database) await testDb.drop();
    throw err;
  }
  const app = createStandaloneApp(services, extensions);
  const ownsDb = !opts.database;
  return {
    app,
    services,
    database: testDb,
    extensions,
    async req(method, path, body, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      const token = o.token === undefined ? ADMIN_TOKEN : o.token;
      if (token) headers.authorization = `Bearer ${token}`;
      let payload: string | undefined;
      if (body !== undefined) {
        payload = typeof body === 'string' ? body : JSON.stringify(body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await app.request(path, { method, headers, body: payload });
      const text = await res.text();
      let parsed: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async close() {
      await services.close();
      if (ownsDb) await testDb.drop();
    },
  };
}
