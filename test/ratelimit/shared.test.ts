/** RATE_LIMITER_STORE=shared: Redis-backed buckets (keys svc:rate:{prefix}:{key}, under REDIS_NAMESPACE when
 * set) with the in-memory insurance limiter taking over when Redis is unreachable or drops, so limiting
 * never fails open. The dead-port case runs everywhere; the real-Redis cases need REDIS_URL (CI sets it). */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { RateLimits, useRateLimits } from '../../core/ratelimit/index.ts';
import { MemoryStore } from '../../core/store/index.ts';
import { RedisStore } from '../../core/store/redis-store.ts';
import type { Services } from '../../core/services.ts';
import { createStandaloneApp } from '../../container/app.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_EMAIL, testEnv } from '../helpers/template.ts';

const REDIS_URL = process.env.REDIS_URL;
const wrongLogin = { email: ADMIN_EMAIL, password: 'wrong-password' };

/** `services` with rate limits of `env` on their own Redis connection: only the limiter sees that connection
 * (login lockout and the schema cache keep theirs). */
function withLimiterRedis(services: Services, env: Record<string, string>, store: RedisStore, namespace = ''): Services {
  const config = loadConfig(testEnv({ REDIS_URL: 'redis://unused', ...env }));
  const copy = { ...services };
  useRateLimits(copy, new RateLimits(config.rateLimiter, 'silent', { client: store.client, namespace }));
  return copy;
}

/** The real app over `services`, driven in-process; returns the statuses of `n` wrong logins from `ip`. */
async function logins(services: Services, ip: string, n: number): Promise<number[]> {
  const app = createStandaloneApp(services);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await app.request('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify(wrongLogin),
    });
    out.push(res.status);
  }
  return out;
}

describe('shared store with Redis unreachable', () => {
  let t: TestApp;
  let dead: RedisStore;
  beforeAll(async () => {
    t = await createTestApp({ store: new MemoryStore() });
    dead = new RedisStore('redis://127.0.0.1:1');
  });
  afterAll(async () => {
    await dead.close();
    await t.close();
  });

  it('keeps limiting in memory (429 after the limit, never a 500)', async () => {
    const started = Date.now();
    const services = withLimiterRedis(t.services, { RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_STORE: 'shared', RATE_LIMITER_LOGIN_POINTS: '2' }, dead);
    expect(await logins(services, '198.51.100.10', 4)).toEqual([401, 401, 429, 429]);
    // The fallback answers at once instead of waiting for reconnection attempts.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('limits in memory when the shared store injected is not Redis', async () => {
    const m = await createTestApp({
      store: new MemoryStore(),
      env: { RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_STORE: 'shared', REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMITER_LOGIN_POINTS: '1' },
    });
    try {
      expect(await logins(m.services, '198.51.100.11', 2)).toEqual([401, 429]);
    } finally {
      await m.close();
    }
  });
});

describe.skipIf(!REDIS_URL)('shared store on a real Redis', () => {
  const namespace = `test-rl-${randomBytes(6).toString('hex')}`;
  const env = { REDIS_NAMESPACE: namespace, RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_STORE: 'shared', RATE_LIMITER_LOGIN_POINTS: '3' };
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp({ env });
    b = await createTestApp({ env });
  });
  afterAll(async () => {
    const client = (a.services.store as RedisStore).client;
    const keys = await client.keys(`svc:${namespace}:rate:*`);
    if (keys.length) await client.del(...keys);
    await b.close();
    await a.close();
  });

  it('shares the buckets between two app instances, under svc:{namespace}:rate:{prefix}:{key}', async () => {
    const ip = '198.51.100.20';
    expect(await logins(a.services, ip, 2)).toEqual([401, 401]);
    expect(await logins(b.services, ip, 2)).toEqual([401, 429]);
    expect(await logins(a.services, ip, 1)).toEqual([429]);
    const client = (a.services.store as RedisStore).client;
    expect(await client.get(`svc:${namespace}:rate:auth_login:${ip}`)).toBe('5');
    const ttl = await client.pttl(`svc:${namespace}:rate:auth_login:${ip}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('falls back to memory when the Redis connection drops mid-test', async () => {
    const store = new RedisStore(REDIS_URL!, namespace);
    await store.ready();
    try {
      const services = withLimiterRedis(a.services, env, store, namespace);
      await store.client.ping();
      const ip = '198.51.100.21';
      expect(await logins(services, ip, 2)).toEqual([401, 401]);
      expect(await store.client.get(`svc:${namespace}:rate:auth_login:${ip}`)).toBe('2');
      store.client.disconnect();
      // Counting continues in the insurance limiter (which starts from zero): limited, not open.
      expect(await logins(services, ip, 4)).toEqual([401, 401, 401, 429]);
    } finally {
      await store.close();
    }
  });
});
