import { Redis } from 'ioredis';
import type { SharedStore } from './shared-store.ts';

const PREFIX = 'svc:';

export class RedisStore implements SharedStore {
  readonly kind = 'redis' as const;
  readonly client: Redis;

  constructor(url: string) {
    this.client = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    // Connection errors surface on the commands that fail; the client keeps reconnecting.
    this.client.on('error', () => {});
  }

  async get(key: string): Promise<string | null> {
    return this.client.get(PREFIX + key);
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    if (ttlMs) await this.client.set(PREFIX + key, value, 'PX', ttlMs);
    else await this.client.set(PREFIX + key, value);
  }

  async incr(key: string): Promise<number> {
    return this.client.incr(PREFIX + key);
  }

  async del(key: string): Promise<void> {
    await this.client.del(PREFIX + key);
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
