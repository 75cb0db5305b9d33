/** The per-process schema overview, validated on every request against a version kept in the shared store. A
 * change anywhere bumps the version, so every process reloads on its next request.
 *
 * The version is a pair, `{epoch}:{counter}`: the epoch is a random id set once (SET NX) beside the counter. A Redis
 * that restarts without persistence loses both; the counter then starts again from 0 and could climb back to a
 * number some process has cached (with a permission revoked since), but the epoch is new, so the pair differs and
 * every process reloads everything. */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../db/database.ts';
import type { SharedStore } from '../store/shared-store.ts';
import { loadSchemaOverview } from './load.ts';
import type { SchemaOverview } from './types.ts';

const VERSION_KEY = 'schema:version';
const EPOCH_KEY = 'schema:epoch';
/** While the shared store is unreachable a process cannot hear of other processes' changes (a suspended user, a
 * revoked permission): its overview and the access caches keyed on the version are reloaded from the database
 * this often, so what it missed takes effect within this bound. */
const OFFLINE_RELOAD_MS = 5000;

/** An epoch names when the store began remembering: `{ms since 1970}.{random id}`. What the store held before
 * (access-token cut-offs, stopped impersonations) is gone for anything older (core/auth/token-cutoff.ts). */
function newEpoch(): string {
  return `${Date.now()}.${randomUUID()}`;
}

/** The time (ms) the epoch of `version` began, or null for a version without one (the store unreachable). */
export function epochStartedAt(version: string): number | null {
  const dot = version.indexOf('.');
  if (dot <= 0 || dot > 15) return null;
  const ms = Number(version.slice(0, dot));
  return Number.isSafeInteger(ms) ? ms : null;
}

export class SchemaCache {
  #schema: SchemaOverview | null = null;
  #loading: Promise<SchemaOverview> | null = null;
  #checking: Promise<string> | null = null;
  #nextCheck: Promise<string> | null = null;
  /** A change made while the store was unreachable, not yet announced to the other processes. */
  #unannounced = false;
  /** The store failed since the last successful read: reload once it answers (changes may have been missed). */
  #missed = false;

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
    let version: string;
    try {
      await this.store.incr(VERSION_KEY);
      version = await this.#storedVersion();
    } catch {
      // The change has committed: this process reloads now and announces it when the store answers again. A
      // command that timed out may have landed all the same; announcing twice costs every process one more
      // reload, never a missed one.
      this.#unannounced = true;
      this.#missed = true;
      version = `offline-change-${Date.now()}`;
    }
    return this.#reload(version);
  }

  /** When the shared store cannot be reached the process keeps serving, on an overview reloaded from the
   * database at most OFFLINE_RELOAD_MS old; it catches up with the version (and announces its own changes) once
   * the store answers again. */
  async #readVersion(): Promise<string> {
    try {
      if (this.#unannounced) {
        await this.store.incr(VERSION_KEY);
        this.#unannounced = false;
      }
      const version = await this.#storedVersion();
      if (this.#missed) {
        // The version may equal the one from before the outage although a change was made meanwhile: reload.
        this.#missed = false;
        this.#schema = null;
      }
      return version;
    } catch {
      this.#missed = true;
      return `offline-${Math.floor(Date.now() / OFFLINE_RELOAD_MS)}`;
    }
  }

  /** The pair as the store holds it (epoch and counter read at one instant); a store without an epoch (new, or
   * restarted empty) gets one. Throws when the store cannot be reached. */
  async #storedVersion(): Promise<string> {
    const [epoch, counter] = await this.store.getMany([EPOCH_KEY, VERSION_KEY]);
    return `${epoch ?? await this.store.setIfAbsent(EPOCH_KEY, newEpoch())}:${counter ?? '0'}`;
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
