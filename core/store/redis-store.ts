import { Redis } from 'ioredis';
import { ServiceUnavailableError } from '../errors.ts';
import type { SharedStore } from './shared-store.ts';

/** A command that failed because Redis is unreachable is the service being unavailable (503), not a fault of the
 * request (500). Callers that can do without the store catch it and fall back. */
async function unavailableOnFailure<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (err) {
    throw new ServiceUnavailableError('Shared store unavailable, try again.', err instanceof Error ? err.message : String(err));
  }
}

export class RedisStore implements SharedStore {
  readonly kind = 'redis' as const;
  readonly client: Redis;
  readonly #prefix: string;
  /** The key prefix, for other users of the same Redis namespace (core/realtime/redis-log.ts). */
  get prefix(): string { return this.#prefix; }
  readonly #ready: Promise<void>;

  /** Keys are `svc:{key}`, or `svc:{namespace}:{key}` when several deployments share one Redis. */
  constructor(url: string, namespace = '') {
    this.#prefix = namespace ? `svc:${namespace}:` : 'svc:';
    // No offline queue: while disconnected, commands fail at once and callers fall back (schema cache keeps
    // its overview, rate limits use their in-memory insurance) instead of hanging on reconnect attempts.
    // Named after the prefix, so an operator (or a test) can tell this deployment's connections apart.
    // commandTimeout: a Redis that accepts connections but stops answering (hung, partitioned) fails commands
    // after a second instead of holding every request.
    this.client = new Redis(url, {
      maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, commandTimeout: 1000,
      connectionName: this.#prefix.slice(0, -1),
    });
    // Connection errors surface on the commands that fail; the client keeps reconnecting.
    this.client.on('error', () => {});
    this.#ready = new Promise<void>((resolve) => {
      const done = () => resolve();
      this.client.once('ready', done);
      this.client.once('error', done);
      setTimeout(done, 3000).unref();
    });
  }

  /** Resolves once the first connection attempt has succeeded or failed. */
  ready(): Promise<void> {
    return this.#ready;
  }

  async get(key: string): Promise<string | null> {
    return unavailableOnFailure(this.client.get(this.#prefix + key));
  }

  async getMany(keys: readonly string[]): Promise<Array<string | null>> {
    if (keys.length === 0) return [];
    return unavailableOnFailure(this.client.mget(keys.map((key) => this.#prefix + key)));
  }

  async setIfAbsent(key: string, value: string): Promise<string> {
    // One atomic transaction (SET NX, then GET), which unlike SET NX GET also works before Redis 7.
    const res = await unavailableOnFailure(this.client.multi().set(this.#prefix + key, value, 'NX').get(this.#prefix + key).exec());
    const [err, stored] = res?.[1] ?? [new Error('redis transaction failed'), null];
    if (err) throw new ServiceUnavailableError('Shared store unavailable, try again.', err.message);
    if (typeof stored !== 'string') throw new ServiceUnavailableError('Shared store unavailable, try again.', 'the key vanished after SET NX');
    return stored;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    if (ttlMs) await unavailableOnFailure(this.client.set(this.#prefix + key, value, 'PX', ttlMs));
    else await unavailableOnFailure(this.client.set(this.#prefix + key, value));
  }

  async incr(key: string, ttlMs?: number): Promise<number> {
    if (!ttlMs) return unavailableOnFailure(this.client.incr(this.#prefix + key));
    // One round trip, atomic: the expiry is set only when the counter has none yet (a new counter).
    const res = await unavailableOnFailure(this.client.multi().incr(this.#prefix + key).pexpire(this.#prefix + key, ttlMs, 'NX').exec());
    const [err, value] = res?.[0] ?? [new Error('redis transaction failed'), null];
    if (err) throw new ServiceUnavailableError('Shared store unavailable, try again.', err.message);
    return Number(value);
  }

  async del(key: string): Promise<void> {
    await unavailableOnFailure(this.client.del(this.#prefix + key));
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
