/** Redis outage and return under load, shared-store mode, for real: three server processes (one standalone, two
 * functions halves) share one database and a Redis of the test's own, which is SIGKILLed and started again on
 * the same port and data. What the code promises, checked while it is down and after it returns:
 * - items keep being served and written (200, never a 500); health says `warn` (200) naming the shared store;
 * - schema cache: a schema change made during the outage is served at once by the process that made it, by a
 *   process under load within the offline reload bound (5 s), and by a process idle during the outage as soon as
 *   Redis returns (the change is announced then);
 * - access revocation fails closed: a user suspended during the outage is refused by the other processes within
 *   that bound; a logged-out refresh token stays refused (401, never accepted, never a 500);
 * - lockout counters: a failed login during the outage is 401 and goes uncounted; the counts from before the
 *   outage survive it and lock the account (for AUTH_LOCKOUT_COOLDOWN) once it returns;
 * - rate limits fail closed: the login bucket keeps limiting (429) through the in-memory insurance limiter. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { ADMIN_EMAIL } from '../helpers/template.ts';
import { call, until, type CallOptions } from '../split/harness.ts';
import { PG_URL, REDIS_URL, SHARED_SKIP, sleep, spawnServer, withPg, type FaultServer } from './harness.ts';
import { startOutageRedis, type OutageRedis } from './redis-outage.ts';

let database: TestDatabase;
let redis: OutageRedis;
let a: FaultServer;
let b: FaultServer;
let idle: FaultServer;
const VICTIM = { email: 'victim@example.com', password: 'victim-password-1' };
const SUSPENDED_TOKEN = 'faults-user-to-suspend';
let suspendedId: string;
let stop = false;

const login = (server: FaultServer, ip: string, password: string, email = VICTIM.email) =>
  call(server.url, 'POST', '/auth/login', { body: { email, password }, token: null, headers: { 'x-forwarded-for': ip } });

const t0 = Date.now();
const step = (what: string) => { if (process.env.FAULTS_DEBUG) console.log(`${Date.now() - t0} ms: ${what}`); };

const req = (server: FaultServer, method: string, path: string, opts: CallOptions = {}) => call(server.url, method, path, { timeoutMs: 10_000, ...opts });

describe.skipIf(!PG_URL || !REDIS_URL)(`Redis outage and return under load${SHARED_SKIP}`, () => {
  beforeAll(async () => {
    [database, redis] = await Promise.all([cloneTestDatabase(), startOutageRedis()]);
    await withPg(database.url!, async (c) => {
      await c.query('create table notes (id serial primary key, title text)');
      await c.query("insert into svc_collections (collection, accountability) values ('notes', 'all')");
      await c.query('update svc_settings set auth_login_attempts = 3');
      const { rows: [{ role }] } = await c.query('select role from svc_users where email = $1', [ADMIN_EMAIL]);
      const { rows: [user] } = await c.query(`insert into svc_users (id, email, status, role, token) values (gen_random_uuid(), 'suspend-me@example.com', 'active', $1, $2)
        returning id`, [role, SUSPENDED_TOKEN]);
      suspendedId = user.id;
    });
    const env = {
      REDIS_URL: redis.url, REDIS_NAMESPACE: `faults-${randomBytes(4).toString('hex')}`,
      RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_STORE: 'shared',
      RATE_LIMITER_GLOBAL_POINTS: '100000', RATE_LIMITER_POINTS: '100000', RATE_LIMITER_USER_POINTS: '100000',
      RATE_LIMITER_SERVICE_POINTS: '100000', RATE_LIMITER_LOGIN_POINTS: '4', RATE_LIMITER_LOGIN_DURATION: '60',
    };
    [a, b, idle] = await Promise.all([
      spawnServer({ databaseUrl: database.url!, env }),
      spawnServer({ databaseUrl: database.url!, mode: 'functions', env }),
      spawnServer({ databaseUrl: database.url!, mode: 'functions', env }),
    ]);
    // Hashing the password takes a while on a loaded machine.
    const victim = await req(a, 'POST', '/users', { body: { ...VICTIM, status: 'active' }, timeoutMs: 30_000 });
    expect(victim.status, victim.text).toBe(200);
  }, 180_000);

  afterAll(async () => {
    stop = true;
    await Promise.all([a, b, idle].filter(Boolean).map((s) => s.stop()));
    await redis?.close();
    await database?.drop();
  });

  it('serves through the outage, fails closed where it matters, and catches up when Redis returns', async () => {
    step('Before: every');
    // Before: every process has warmed its caches; a refresh token is logged out; two failed logins are counted.
    for (const s of [a, b, idle]) {
      expect((await req(s, 'GET', '/items/notes?limit=1')).status).toBe(200);
      expect((await req(s, 'GET', '/items/notes?limit=1', { token: SUSPENDED_TOKEN })).status).toBe(200);
    }
    const session = await login(a, '10.0.0.1', VICTIM.password);
    expect(session.status, session.text).toBe(200);
    const refresh = session.body.data.refresh_token as string;
    expect((await req(a, 'POST', '/auth/logout', { body: { refresh_token: refresh }, token: null })).status).toBe(204);
    const revokedBefore = await req(b, 'POST', '/auth/refresh', { body: { refresh_token: refresh }, token: null });
    expect(revokedBefore.body.errors?.[0]?.extensions?.code).toBe('TOKEN_REVOKED');
    for (let i = 0; i < 2; i++) expect((await login(a, '10.0.0.1', 'wrong-password')).status).toBe(401);

    step('Load on A and B');
    // Load on A and B through the outage.
    const statuses: Array<{ server: string; path: string; status: number; text: string }> = [];
    const worker = (s: FaultServer, name: string, method: string, path: string, body?: unknown) => (async () => {
      while (!stop) {
        try {
          const r = await req(s, method, path, { body });
          statuses.push({ server: name, path, status: r.status, text: r.status === 200 ? '' : r.text });
        } catch (err) {
          statuses.push({ server: name, path, status: 0, text: (err as Error).message });
        }
        await sleep(20);
      }
    })();
    const load = [
      worker(a, 'A', 'GET', '/items/notes?limit=5'), worker(a, 'A', 'POST', '/items/notes', { title: 'load' }),
      worker(b, 'B', 'GET', '/items/notes?limit=5'), worker(b, 'B', 'POST', '/items/notes', [{ title: 'l1' }, { title: 'l2' }]),
    ];

    await sleep(300);
    await redis.down();
    try {
      step('Health: still');
    // Health: still serving (200), degraded, naming the shared store.
      const health = await until(async () => {
        const h = await req(a, 'GET', '/server/health');
        return h.body?.status === 'warn' ? h : null;
      }, 5000, 'health to report the shared store');
      expect(health.status).toBe(200);
      expect(health.body.checks.sharedStore[0].status).toBe('warn');

      step('A schema change d');
    // A schema change during the outage: served at once by the process that made it.
      const field = await req(a, 'POST', '/fields/notes', { body: { field: 'extra', type: 'string' } });
      expect(field.status, field.text).toBe(200);
      expect((await req(a, 'GET', '/items/notes?fields=extra&limit=1')).status).toBe(200);
      step('A user suspended');
    // A user suspended during the outage: A refuses the token at once.
      expect((await req(a, 'PATCH', `/users/${suspendedId}`, { body: { status: 'suspended' } })).status).toBe(200);
      expect((await req(a, 'GET', '/items/notes?limit=1', { token: SUSPENDED_TOKEN })).status).toBe(401);

      step('B (under load)');
    // B (under load) has no Redis to hear of either: it reloads from the database within the offline bound.
      const changedAt = Date.now();
      await until(async () => (await req(b, 'GET', '/items/notes?fields=extra&limit=1')).status === 200, 8000, 'B to see the new field');
      await until(async () => (await req(b, 'GET', '/items/notes?limit=1', { token: SUSPENDED_TOKEN })).status === 401, 8000, 'B to refuse the suspended user');
      expect(Date.now() - changedAt).toBeLessThan(7000);

      step('A logged-out');
    // A logged-out refresh token stays refused (the session row is gone); the finer code needs Redis.
      const revoked = await req(b, 'POST', '/auth/refresh', { body: { refresh_token: refresh }, token: null });
      expect(revoked.status, revoked.text).toBe(401);
      expect(['TOKEN_REVOKED', 'INVALID_TOKEN', 'INVALID_CREDENTIALS']).toContain(revoked.body.errors[0].extensions.code);

      step('Lockout: a failed');
    // Lockout: a failed login during the outage is a 401 (uncounted), not a 500.
      const failed = await login(a, '10.0.0.2', 'wrong-password');
      expect(failed.status, failed.text).toBe(401);
      expect(failed.body.errors[0].extensions.code).toBe('INVALID_CREDENTIALS');

      step('Rate limits fail');
    // Rate limits fail closed: the login bucket (4 per minute) still limits, in memory.
      const limited: number[] = [];
      for (let i = 0; i < 6; i++) limited.push((await login(a, '10.0.0.9', 'wrong-password', 'nobody@example.com')).status);
      expect(limited.slice(0, 4)).toEqual([401, 401, 401, 401]);
      expect(limited.slice(4)).toEqual([429, 429]);
    } finally {
      await redis.up();
    }

    step('Back: health');
    // Back: health ok everywhere; the process idle during the outage sees the change made during it.
    for (const s of [a, b, idle]) {
      await until(async () => (await req(s, 'GET', '/server/health')).body?.status === 'ok', 8000, 'health ok after the return');
    }
    expect((await req(idle, 'GET', '/items/notes?fields=extra&limit=1')).status).toBe(200);
    expect((await req(idle, 'GET', '/items/notes?limit=1', { token: SUSPENDED_TOKEN })).status).toBe(401);
    stop = true;
    await Promise.all(load);

    step('The counts from');
    // The counts from before the outage survived it: one more failure reaches the limit of 3 and locks the account
    // for the cooldown (it is not suspended); the lock lives in the shared store, so process B refuses even the right
    // password.
    expect((await login(a, '10.0.0.3', 'wrong-password')).status).toBe(401);
    await withPg(database.url!, async (c) => {
      expect((await c.query('select status from svc_users where email = $1', [VICTIM.email])).rows[0].status).toBe('active');
    });
    const locked = await login(b, '10.0.0.4', VICTIM.password);
    expect([locked.status, locked.body?.errors?.[0]?.extensions?.code]).toEqual([403, 'USER_SUSPENDED']);
    // The revocation marker is back too.
    expect((await req(idle, 'POST', '/auth/refresh', { body: { refresh_token: refresh }, token: null })).body.errors[0].extensions.code).toBe('TOKEN_REVOKED');

    expect(statuses.filter((s) => s.status !== 200)).toEqual([]);
    expect(statuses.length).toBeGreaterThan(20);
    for (const s of [a, b, idle]) expect(s.proc.exitCode, s.output()).toBeNull();
  }, 60_000);
});
