/** The extension host: at boot, every folder under EXTENSIONS_PATH that carries a manifest is registered in
 * svc_extensions, and the enabled ones are loaded once (SPEC.md > Extensions: no runtime toggle; a changed
 * `enabled` flag takes effect at the next start). A broken extension is logged and skipped, unless it is listed
 * in EXTENSIONS_MUST_LOAD, which makes the start fail. Hooks go onto the event bus with a time bound; endpoint
 * definitions are kept for the HTTP side to mount (functions/http/extension-endpoints.ts). */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inTransaction, run } from '../db/database.ts';
import { scheduleCron, parseCron } from '../schedule/cron.ts';
import type { ConfigPort, DatabasePort, EventsPort, SchemaPort } from '../ports.ts';
import type { ExtensionContext, ExtensionLogger, HookRegister, InitEvent, InitHook, ScheduleHook } from './api.ts';
import { prefixed, registerAction, registerFilter, runBounded } from './hooks.ts';
import { detachedContext, itemsApi } from './items-api.ts';
import { rememberLoaded, type LoadedExtension } from './loaded.ts';

export type ExtensionType = 'hook' | 'endpoint';
export const MANIFEST_KEY = 'svc:extension';

export interface ExtensionRecord {
  id: string;
  folder: string;
  enabled: boolean;
  type: ExtensionType | null;
  /** loaded; failed (with `error`); disabled (enabled = false); missing (a row whose folder is gone). */
  status: 'loaded' | 'failed' | 'disabled' | 'missing';
  error?: string;
}

export interface EndpointDefinition {
  /** The path segment the endpoint is mounted under: /{id}. */
  id: string;
  folder: string;
  /** The module's default export: a function (router, context) or `{id, handler}`. */
  handler: (router: any, context: ExtensionContext) => unknown;
}

interface Manifest { type: ExtensionType; path: string; description: string | null; version: string | null }

export class ExtensionHost {
  readonly records: ExtensionRecord[] = [];
  readonly endpoints: EndpointDefinition[] = [];
  readonly #inits = new Map<InitEvent, { folder: string; handler: InitHook }[]>();
  readonly #schedules: { folder: string; cron: string; handler: ScheduleHook }[] = [];
  readonly #services: ConfigPort & DatabasePort & EventsPort & SchemaPort;
  readonly #log: ExtensionLogger;

  constructor(services: ConfigPort & DatabasePort & EventsPort & SchemaPort, log: ExtensionLogger) {
    this.#services = services;
    this.#log = log;
  }

  /** Runs the init handlers of `event`; a failing one is logged (the start goes on). */
  async runInit(event: InitEvent, meta: { app?: unknown } = {}): Promise<void> {
    for (const { folder, handler } of this.#inits.get(event) ?? []) {
      try {
        await runBounded(() => handler(meta), this.#services.config.extensions.hookTimeoutMs, `init "${event}" of extension "${folder}"`);
      } catch (err) {
        this.#log.error(`extension "${folder}": init "${event}" failed: ${(err as Error).message}`);
      }
    }
  }

  /** Runs the init handlers of `event` without waiting for them (app construction is synchronous): a handler
   * that throws or rejects is logged. */
  fireInit(event: InitEvent, meta: { app?: unknown } = {}): void {
    for (const { folder, handler } of this.#inits.get(event) ?? []) {
      try {
        const result = handler(meta);
        if (result instanceof Promise) result.catch((err: Error) => this.#log.error(`extension "${folder}": init "${event}" failed: ${err?.message}`));
      } catch (err) {
        this.#log.error(`extension "${folder}": init "${event}" failed: ${(err as Error).message}`);
      }
    }
  }

  /** Starts the extensions' schedules (container and standalone). Returns a stop function. */
  startSchedules(opts: { checkEveryMs?: number } = {}): () => void {
    const stops = this.#schedules.map(({ folder, cron, handler }) => scheduleCron(cron, async () => {
      const context = { accountability: null, eventId: null, items: (c: string) => itemsApi(detachedContext(this.#services, null), c), logger: prefixed(this.#log, folder) };
      try {
        await runBounded(() => handler(context), this.#services.config.extensions.hookTimeoutMs, `schedule "${cron}" of extension "${folder}"`);
      } catch (err) {
        this.#log.error(`extension "${folder}": schedule "${cron}" failed: ${(err as Error).message}`);
      }
    }, undefined, opts.checkEveryMs));
    return () => stops.forEach((stop) => stop());
  }

  get scheduleCount(): number {
    return this.#schedules.length;
  }

  /** Loads one extension; throws what went wrong. */
  async load(record: ExtensionRecord, dir: string, manifest: Manifest): Promise<void> {
    const entry = resolve(dir, manifest.path);
    if (!entry.startsWith(resolve(dir))) throw new Error(`its entry "${manifest.path}" lies outside its folder`);
    if (!existsSync(entry)) throw new Error(`its entry "${manifest.path}" does not exist`);
    const mod = await import(pathToFileURL(entry).href) as { default?: unknown };
    const exported = mod.default;
    const context: ExtensionContext = { logger: prefixed(this.#log, record.folder), env: process.env };
    if (manifest.type === 'endpoint') {
      const def = typeof exported === 'function' ? { id: record.folder, handler: exported } : exported as { id?: unknown; handler?: unknown } | undefined;
      if (!def || typeof def.handler !== 'function') throw new Error('an endpoint module must export a function or {id, handler} as default');
      const id = typeof def.id === 'string' ? def.id : record.folder;
      if (!/^[a-z0-9][a-z0-9_-]*$/i.test(id)) throw new Error(`endpoint id "${id}" is not a valid path segment`);
      this.endpoints.push({ id, folder: record.folder, handler: def.handler as EndpointDefinition['handler'] });
      return;
    }
    if (typeof exported !== 'function') throw new Error('a hook module must export a function as default');
    // Registrations are collected first and applied only when the whole register function succeeded, so a hook
    // module that throws half-way leaves nothing behind.
    const pending: (() => void)[] = [];
    const register: HookRegister = {
      filter: (event, handler) => { pending.push(() => registerFilter(this.#services, record.folder, event, handler, this.#log)); },
      action: (event, handler) => {
        const index = pending.length;
        pending.push(() => registerAction(this.#services, record.folder, event, handler, `ext:${record.folder}:${event}:${index}`, this.#log));
      },
      init: (event, handler) => {
        pending.push(() => {
          const list = this.#inits.get(event) ?? [];
          list.push({ folder: record.folder, handler });
          this.#inits.set(event, list);
        });
      },
      schedule: (cron, handler) => {
        parseCron(cron);
        pending.push(() => { this.#schedules.push({ folder: record.folder, cron, handler }); });
      },
    };
    await runBounded(() => (exported as (r: HookRegister, c: ExtensionContext) => unknown)(register, context),
      this.#services.config.extensions.hookTimeoutMs, `loading extension "${record.folder}"`);
    for (const apply of pending) apply();
  }
}

function readManifest(dir: string): Manifest | null {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return null;
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const raw = pkg[MANIFEST_KEY] as { type?: unknown; path?: unknown } | undefined;
  if (!raw || typeof raw !== 'object') return null;
  if (raw.type !== 'hook' && raw.type !== 'endpoint') throw new Error(`"${MANIFEST_KEY}.type" must be hook or endpoint`);
  const path = typeof raw.path === 'string' ? raw.path : 'index.js';
  if (isAbsolute(path)) throw new Error(`"${MANIFEST_KEY}.path" must be relative`);
  const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim().slice(0, 300) : null);
  return { type: raw.type, path, description: text(pkg.description), version: text(pkg.version) };
}

/** Folders under `root` that carry a manifest (package.json with "svc:extension"); one whose package.json does
 * not parse is kept, so its failure shows in the log and in its record. */
function extensionFolders(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root).filter((name) => {
    const file = join(root, name, 'package.json');
    if (name.startsWith('.') || !statSync(join(root, name)).isDirectory() || !existsSync(file)) return false;
    try {
      return MANIFEST_KEY in (JSON.parse(readFileSync(file, 'utf8')) as object);
    } catch {
      return true;
    }
  }).sort();
}

/** Registers new folders (enabled) and returns every top-level row. One boot at a time registers. */
async function syncRecords(services: ConfigPort & DatabasePort & EventsPort & SchemaPort, folders: string[]): Promise<{ id: string; folder: string; enabled: boolean }[]> {
  return inTransaction(services.database.db, async (trx) => {
    await run(trx, "select pg_advisory_xact_lock(hashtext('svc_extensions'))");
    for (const folder of folders) {
      await run(trx, `insert into svc_extensions (id, enabled, folder, source)
        select $1::uuid, true, $2::varchar, 'local' where not exists (select 1 from svc_extensions where folder = $2::varchar and bundle is null)`, [randomUUID(), folder]);
    }
    return run<{ id: string; folder: string; enabled: boolean }>(trx, 'select id, folder, enabled from svc_extensions where bundle is null order by folder');
  });
}

const consoleLogger: ExtensionLogger = {
  info: (m, ...d) => console.log(m, ...d),
  warn: (m, ...d) => console.warn(m, ...d),
  error: (m, ...d) => console.error(m, ...d),
};

/** Loads the enabled extensions of EXTENSIONS_PATH. Throws when one listed in EXTENSIONS_MUST_LOAD (by id or
 * folder) does not load. */
export async function loadExtensions(services: ConfigPort & DatabasePort & EventsPort & SchemaPort, log: ExtensionLogger = consoleLogger): Promise<ExtensionHost> {
  const { path, mustLoad } = services.config.extensions;
  const host = new ExtensionHost(services, log);
  const root = resolve(path);
  const folders = extensionFolders(root);
  const rows = await syncRecords(services, folders);
  const must = new Set(mustLoad);
  const failures: string[] = [];
  const details = new Map<string, { description: string | null; version: string | null }>();
  for (const row of rows) {
    const record: ExtensionRecord = { id: row.id, folder: row.folder, enabled: row.enabled, type: null, status: 'disabled' };
    host.records.push(record);
    const required = must.has(row.id) || must.has(row.folder);
    if (!folders.includes(row.folder)) {
      record.status = 'missing';
      if (required) failures.push(`"${row.folder}" (${row.id}) is not in ${root}`);
      continue;
    }
    let manifest: Manifest | null = null;
    let manifestError: unknown = null;
    try {
      manifest = readManifest(join(root, row.folder));
      if (manifest) {
        record.type = manifest.type;
        details.set(row.id, { description: manifest.description, version: manifest.version });
      }
    } catch (err) {
      manifestError = err;
    }
    if (!row.enabled) {
      if (required) failures.push(`"${row.folder}" (${row.id}) is disabled`);
      continue;
    }
    try {
      if (manifestError) throw manifestError;
      if (!manifest) throw new Error(`its package.json has no "${MANIFEST_KEY}" entry`);
      await host.load(record, join(root, row.folder), manifest);
      record.status = 'loaded';
    } catch (err) {
      record.status = 'failed';
      record.error = (err as Error).message;
      log.error(`extension "${row.folder}" failed to load and is skipped: ${record.error}`);
      if (required) failures.push(`"${row.folder}" (${row.id}): ${record.error}`);
    }
  }
  for (const name of must) {
    if (!rows.some((r) => r.id === name || r.folder === name)) failures.push(`"${name}" is not an extension`);
  }
  rememberLoaded(services.database.db, new Map(host.records.map((r): [string, LoadedExtension] => [r.id, {
    type: r.type, status: r.status, description: details.get(r.id)?.description ?? null, version: details.get(r.id)?.version ?? null,
    ...(r.error !== undefined ? { error: r.error } : {}),
  }])));
  if (failures.length) throw new Error(`EXTENSIONS_MUST_LOAD: ${failures.join('; ')}`);
  await host.runInit('extensions.register');
  return host;
}
