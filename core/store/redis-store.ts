import { Redis } from 'ioredis';
import type { SharedStore } from './shared-store.ts';


export class RedisStore implements SharedStore {
  readonly kind = 'redis' as const;
  readonly client: Redis;
  readonly #prefix: string;

  /** Keys are `svc:{key}`, or `svc:{namespace}:{key}` when several deployments share one Redis. */
  constructor(url: string, namespace = '') {
    this.#prefix = namespace ? `svc:${namespace}:` : 'svc:';
    this.client = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    // Connection errors surface on the commands that fail; the client keeps reconnecting.
    this.client.on('error', () => {});
  }

  async get(key: string): Promise<string | null> {
    return this.client.get(this.#prefix + key);
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    if (ttlMs) await this.client.set(this.#prefix + key, value, 'PX', ttlMs);
    else await this.client.set(this.#prefix + key, value);
  }

  async incr(key: string): Promise<number> {
    return this.client.incr(this.#prefix + key);
  }

  async del(key: string): Promise<void> {
    await this.client.del(this.#prefix + key);
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
