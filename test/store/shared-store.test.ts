/** The SharedStore port: counters with an expiry set when they are created, a value set only once (SET NX) and
 * several keys read together, on memory and on Redis. */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, type SharedStore } from '../../core/store/index.ts';
import { RedisStore } from '../../core/store/redis-store.ts';

const stores: [string, () => Promise<SharedStore>][] = [['memory', async () => new MemoryStore()]];
if (process.env.REDIS_URL) {
  stores.push(['redis', async () => {
    const s = new RedisStore(process.env.REDIS_URL!, `test-${randomBytes(6).toString('hex')}`);
    await s.ready();
    return s;
  }]);
}
const opened: SharedStore[] = [];
afterAll(async () => { for (const s of opened) await s.close(); });

describe.each(stores)('%s store', (_name, open) => {
  it('counts atomically under concurrency and keeps the expiry of the first increment', async () => {
    const store = await open();
    opened.push(store);
    const counts = await Promise.all(Array.from({ length: 20 }, () => store.incr('c', 300)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await new Promise((r) => setTimeout(r, 150));
    expect(await store.incr('c', 300)).toBe(21); // a later increment does not push the expiry out
    await new Promise((r) => setTimeout(r, 250));
    expect(await store.get('c')).toBeNull();
  });

  it('without a ttl the counter stays', async () => {
    const store = await open();
    opened.push(store);
    expect(await store.incr('plain')).toBe(1);
    expect(await store.incr('plain')).toBe(2);
    await store.del('plain');
    expect(await store.get('plain')).toBeNull();
  });

  it('sets a value only when the key has none, and reads several keys together', async () => {
    const store = await open();
    opened.push(store);
    const winners = await Promise.all(Array.from({ length: 10 }, (_, i) => store.setIfAbsent('epoch', `e${i}`)));
    expect(new Set(winners).size).toBe(1); // every caller is told the one value that was stored
    expect(await store.setIfAbsent('epoch', 'later')).toBe(winners[0]);
    await store.incr('count');
    expect(await store.getMany(['epoch', 'count', 'missing'])).toEqual([winners[0], '1', null]);
    await store.del('epoch');
    expect(await store.setIfAbsent('epoch', 'fresh')).toBe('fresh');
  });
});
