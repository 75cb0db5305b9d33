/** The per-process schema overview, validated on every request against a version number kept in the
 * shared store. A change anywhere bumps the version, so every process reloads on its next request. */
import type { Executor } from '../db/database.ts';
import type { SharedStore } from '../store/shared-store.ts';
import { loadSchemaOverview } from './load.ts';
import type { SchemaOverview } from './types.ts';

const VERSION_KEY = 'schema:version';

export class SchemaCache {
  #schema: SchemaOverview | null = null;
  #loading: Promise<SchemaOverview> | null = null;
  #checking: Promise<string> | null = null;
  #nextCheck: Promise<string> | null = null;

  constructor(private readonly db: Executor, private readonly store: SharedStore) {}

  /** The current overview. Concurrent callers share version checks, but each waits for a check that
   * started after it arrived, so a change committed before a request is always seen by it. */
  async get(): Promise<SchemaOverview> {
    const version = this.store.kind === 'memory' ? await this.#readVersion() : await this.#checkedVersion();
    const cached = this.#schema;
    if (cached && cached.version === version) return cached;
    return this.#reload(version);
  }

  /** Call after a schema change has committed. */
  async invalidate(): Promise<SchemaOverview> {
    const version = String(await this.store.incr(VERSION_KEY));
    return this.#reload(version);
  }

  /** When the shared store cannot be reached the process keeps serving the overview it has (or loads one),
   * rather than failing every request; it catches up with the version once the store answers again. */
  async #readVersion(): Promise<string> {
    try {
      return (await this.store.get(VERSION_KEY)) ?? '0';
    } catch {
      return this.#schema?.version ?? 'store-unavailable';
    }
  }

  #checkedVersion(): Promise<string> {
    if (!this.#checking) {
      this.#checking = this.#readVersion().finally(() => { this.#checking = null; });
      return this.#checking;
    }
    if (!this.#nextCheck) {
      this.#nextCheck = this.#checking.catch(() => undefined).then(() => {
        this.#nextCheck = null;
        return this.#checkedVersion();
      });
    }
    return this.#nextCheck;
  }

  async #reload(version: string): Promise<SchemaOverview> {
    if (this.#loading) {
      const loading = await this.#loading;
      if (loading.version === version) return loading;
    }
    const promise = loadSchemaOverview(this.db, version);
    this.#loading = promise;
    try {
      const schema = await promise;
      if (!this.#schema || this.#schema.version !== version) this.#schema = schema;
      return schema;
    } finally {
      if (this.#loading === promise) this.#loading = null;
    }
  }
}
