/** The SharedStore port: small shared state between processes (schema version, counters, locks).
 * Memory in standalone mode; Redis when REDIS_URL is set. */
export interface SharedStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  /** The values of several keys read at one instant (null for a missing key), in the order given. */
  getMany(keys: readonly string[]): Promise<Array<string | null>>;
  /** Stores `value` unless the key holds one already (SET NX); returns what the key holds afterwards. */
  setIfAbsent(key: string, value: string): Promise<string>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Atomically increments an integer counter and returns the new value; `ttlMs` sets its expiry when the
   * counter is created (a running counter keeps the expiry of its first increment). */
  incr(key: string, ttlMs?: number): Promise<number>;
  del(key: string): Promise<void>;
  close(): Promise<void>;
  /** Resolves when the store has tried to connect (start-up waits for it). */
  ready?(): Promise<void>;
}

export class MemoryStore implements SharedStore {
  readonly kind = 'memory' as const;
  readonly #values = new Map<string, { value: string; expires: number }>();

  async get(key: string): Promise<string | null> {
    return this.#read(key);
  }

  /** Synchronous, so read-modify-write operations cannot interleave with one another. */
  #read(key: string): string | null {
    const entry = this.#values.get(key);
    if (!entry) return null;
    if (entry.expires && entry.expires < Date.now()) {
      this.#values.delete(key);
      return null;
    }
    return entry.value;
  }

  async getMany(keys: readonly string[]): Promise<Array<string | null>> {
    return keys.map((key) => this.#read(key));
  }

  async setIfAbsent(key: string, value: string): Promise<string> {
    const current = this.#read(key);
    if (current !== null) return current;
    this.#values.set(key, { value, expires: 0 });
    return value;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.#values.set(key, { value, expires: ttlMs ? Date.now() + ttlMs : 0 });
  }

  async incr(key: string, ttlMs?: number): Promise<number> {
    const current = this.#read(key);
    const next = Number(current ?? '0') + 1;
    const entry = this.#values.get(key);
    const expires = current === null ? (ttlMs ? Date.now() + ttlMs : 0) : entry?.expires ?? 0;
    this.#values.set(key, { value: String(next), expires });
    return next;
  }

  async del(key: string): Promise<void> {
    this.#values.delete(key);
  }

  async close(): Promise<void> {}
}
