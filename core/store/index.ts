import { MemoryStore, type SharedStore } from './shared-store.ts';
import { RedisStore } from './redis-store.ts';

export type { SharedStore } from './shared-store.ts';
export { MemoryStore } from './shared-store.ts';

export function openSharedStore(redisUrl: string | null, namespace = ''): SharedStore {
  return redisUrl ? new RedisStore(redisUrl, namespace) : new MemoryStore();
}
