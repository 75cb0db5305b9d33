/** What a CLI command works against: a server over HTTP (`--url`, `--token`), or the database of this configuration
 * opened in this process (DATABASE_URL, or the embedded engine's DATA_DIR) with the rights of the system. Both give
 * the same answers: the local side calls the services the HTTP routes call. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { systemAccountability } from '../../core/access/accountability.ts';
import { withPersistentSecret } from '../../core/auth/secret.ts';
import { PG_SUBDIR } from '../../core/backup/manifest.ts';
import { loadConfig, type Config } from '../../core/config.ts';
import type { ServiceContext } from '../../core/context.ts';
import { ServiceError } from '../../core/errors.ts';
import { detachedContext } from '../../core/extensions/items-api.ts';
import { readItems } from '../../core/items/read.ts';
import { parseInclude, schemaApply, schemaDiff, schemaSnapshot, type SchemaSnapshot } from '../../core/schema/snapshot/index.ts';
import type { ApplyOptions, ApplyReport, SchemaDiffResult } from '../../core/schema/snapshot/index.ts';
import type { SchemaServiceContext } from '../../core/schema/ddl/context.ts';
import { createServices, type Services } from '../../core/services.ts';
import { exportChunks, planExport, type ExportFormat } from '../../core/transfer/export.ts';
import { checkImport, importStream, type ImportFormat } from '../../core/transfer/import.ts';
import { createUsers, updateUser } from '../../core/users/service.ts';
import { queryOf } from '../../functions/http/query-string.ts';
import { CliError } from './output.ts';

export interface UserRow { id: string; email: string | null; first_name: string | null; last_name: string | null; status: string; role: string | null }

export interface Target {
  /** Where the commands go, in words. */
  readonly where: string;
  /** `include`: configuration sections (`roles,policies` or `all`), as GET /schema/snapshot's. */
  snapshot(include?: string): Promise<SchemaSnapshot>;
  diff(snapshot: unknown, force: boolean): Promise<SchemaDiffResult | null>;
  /** The report of the steps run; a real apply over HTTP answers none (204). */
  apply(body: unknown, opts: ApplyOptions): Promise<ApplyReport | null>;
  read(collection: string, query: Record<string, unknown>): Promise<Record<string, unknown>[]>;
  createUser(body: Record<string, unknown>): Promise<string>;
  updateUser(id: string, body: Record<string, unknown>): Promise<void>;
  exportItems(collection: string, format: ExportFormat): AsyncIterable<string>;
  /** Imports one batch (its own transaction); answers when it is committed. */
  importBatch(collection: string, format: ImportFormat, text: string): Promise<void>;
  close(): Promise<void>;
}

/** The envelope's first error message, or the status. */
async function failure(res: Response, what: string): Promise<CliError> {
  const text = await res.text();
  try {
    const message = JSON.parse(text)?.errors?.[0]?.message;
    if (typeof message === 'string') return new CliError(`${what}: ${message} (HTTP ${res.status})`);
  } catch { /* not JSON */ }
  return new CliError(`${what}: HTTP ${res.status}${text ? ` ${text.slice(0, 200)}` : ''}`);
}

/** Paths of the system collections the CLI reads over HTTP. */
const SYSTEM_PATHS: Record<string, string> = { svc_users: '/users', svc_roles: '/roles' };

export function remoteTarget(url: string, token: string): Target {
  const base = url.replace(/\/+$/, '');
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined && !headers['content-type'] ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
    } catch (err) {
      throw new CliError(`${base} did not answer: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
    }
    if (!res.ok) throw await failure(res, `${method} ${path}`);
    return res;
  };
  const data = async (res: Response): Promise<any> => (res.status === 204 ? null : (await res.json()).data);
  const flags = (o: Record<string, boolean | undefined>): string => {
    const on = Object.entries(o).filter(([, v]) => v).map(([k]) => `${k}=true`);
    return on.length ? `?${on.join('&')}` : '';
  };
  return {
    where: base,
    snapshot: async (include) => data(await call('GET', `/schema/snapshot${include ? `?include=${encodeURIComponent(include)}` : ''}`)),
    diff: async (snapshot, force) => data(await call('POST', `/schema/diff${flags({ force })}`, snapshot)),
    apply: async (body, o) => data(await call('POST', `/schema/apply${flags({ allow_destructive: o.allowDestructive, dry_run: o.dryRun })}`, body)),
    async read(collection, query) {
      const path = SYSTEM_PATHS[collection] ?? `/items/${encodeURIComponent(collection)}`;
      const qs = Object.entries(query).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');
      return data(await call('GET', `${path}?${qs}`));
    },
    createUser: async (body) => {
      const key = await data(await call('POST', '/users', body));
      return String(typeof key === 'object' && key ? key.id : key);
    },
    updateUser: async (id, body) => { await call('PATCH', `/users/${encodeURIComponent(id)}`, body); },
    async *exportItems(collection, format) {
      const res = await call('GET', `/utils/export/${encodeURIComponent(collection)}?format=${format}`);
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) yield decoder.decode(chunk, { stream: true });
    },
    importBatch: async (collection, format, text) => {
      await call('POST', `/utils/import/${encodeURIComponent(collection)}`, text, { 'content-type': format === 'csv' ? 'text/csv' : 'application/json' });
    },
    close: async () => {},
  };
}

/** The embedded engine's data directory is held by the server that runs on it. */
function requireEmbeddedFree(config: Config): void {
  if (config.databaseUrl) return;
  const pid = join(config.dataDir, PG_SUBDIR, 'postmaster.pid');
  if (existsSync(pid)) {
    throw new CliError(`the embedded database in ${config.dataDir} is in use (a server runs on it, or did not shut down cleanly): `
      + 'stop it, or send the command to it with --url and --token');
  }
}

/** A service error as the CLI's one line. */
async function local<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ServiceError) throw new CliError(`${what}: ${err.message}`);
    throw err;
  }
}

export async function localTarget(configOverride?: Config): Promise<Target> {
  const config = configOverride ?? withPersistentSecret(loadConfig());
  requireEmbeddedFree(config);
  // Migrations and the first admin run as at a server start; no workers (outbox, relay) start in a CLI process.
  const services: Services = await createServices(config, {
    workers: false,
    onBootstrap: (result) => {
      // The CLI may be the first to open a new database: the admin it creates is told here, as at a server's start.
      if (result.created) {
        process.stderr.write(`First start: created admin ${result.adminEmail}${result.generatedPassword ? ` with password ${result.generatedPassword} (change it after your first login; it is not shown again)` : ''}\n`);
      }
    },
  });
  const context = detachedContext(services, null);
  const schemaCtx = (): SchemaServiceContext => ({ db: services.database.db, cache: services.schema, accountability: systemAccountability(), config });
  const sys = async (): Promise<ServiceContext> => ({ ...(await context()), system: true });
  return {
    where: config.databaseUrl ? 'the database of DATABASE_URL' : `the embedded database in ${config.dataDir}`,
    snapshot: (include) => local('snapshot', () => schemaSnapshot(schemaCtx(), { include: parseInclude(include) })),
    diff: (snapshot, force) => local('diff', () => schemaDiff(schemaCtx(), snapshot, { force })),
    apply: (body, o) => local('apply', () => schemaApply(schemaCtx(), body, o)),
    read: (collection, query) => local(`read ${collection}`, async () => {
      const text = await readItems(await sys(), collection, queryOf(config, query, { maxLimit: -1 }));
      return JSON.parse(text).data;
    }),
    createUser: (body) => local('create user', async () => String(await createUsers(services, await sys(), body))),
    updateUser: (id, body) => local('update user', async () => { await updateUser(services, await sys(), id, body); }),
    async *exportItems(collection, format) {
      const ctx = await sys();
      const plan = await local('export', () => planExport(ctx, collection, queryOf(config, {}, { maxLimit: -1 })));
      yield* exportChunks(ctx, plan, format);
    },
    importBatch: (collection, format, text) => local('import', async () => {
      const ctx = await sys();
      await importStream(ctx, await checkImport(ctx, collection), format, Readable.from([Buffer.from(text)]));
    }),
    close: () => services.close(),
  };
}
