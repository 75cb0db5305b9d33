/** Access tokens cut off by a password change stay refused when the store that held the cut-off forgets it: a
 * redis-server without persistence SIGKILLed and started again empty, and a standalone process on the in-memory
 * store restarted. A token signed before the store's epoch began is accepted only while the session it names
 * still exists (core/auth/token-cutoff.ts); the password change deleted that row in its own transaction.
 * Tokens of untouched sessions keep working, and impersonation tokens of that age are refused (whether they were
 * stopped is forgotten too). */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { call, type CallOptions } from '../split/harness.ts';
import { PG_SKIP, PG_URL, REDIS_URL, SHARED_SKIP, spawnServer, type FaultServer } from './harness.ts';
import { hasRedisServer, startVolatileRedis, type OutageRedis } from './redis-outage.ts';

const REDIS_SKIP = SHARED_SKIP || (hasRedisServer ? '' : ' (skipped: needs the redis-server binary to restart a Redis without persistence)');

const req = (server: FaultServer, method: string, path: string, opts: CallOptions = {}) => call(server.url, method, path, { timeoutMs: 30_000, ...opts });

/** Creates two users and signs each in (json mode: access tokens carrying their session's reference). */
async function signIn(server: FaultServer, tag: string): Promise<{ victim: { id: string; token: string }; bystander: { id: string; token: string } }> {
  const users: { id: string; token: string }[] = [];
  for (const name of ['victim', 'bystander']) {
    const email = `${name}-${tag}@example.com`;
    const created = await req(server, 'POST', '/users', { body: { email, password: `${name}-password-1`, status: 'active' } });
    expect(created.status, created.text).toBe(200);
    const login = await req(server, 'POST', '/auth/login', { body: { email, password: `${name}-password-1` }, token: null });
    expect(login.status, login.text).toBe(200);
    users.push({ id: created.body.data as string, token: login.body.data.access_token });
  }
  return { victim: users[0]!, bystander: users[1]! };
}

/** Waits until the process reaches the shared store again (/server/health says "ok", not "warn"). */
async function storeAnswers(server: FaultServer): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const health = await req(server, 'GET', '/server/health');
    if (health.body?.status === 'ok') return;
    if (Date.now() > deadline) throw new Error(`${server.url} did not reach Redis again: ${health.text}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const me = (server: FaultServer, token: string) => req(server, 'GET', '/users/me?fields=id', { token });

describe.skipIf(!PG_URL || !REDIS_URL || !hasRedisServer)(`access-token cut-offs across a Redis restart without persistence${REDIS_SKIP}`, () => {
  let database: TestDatabase;
  let redis: OutageRedis;
  let a: FaultServer;
  let b: FaultServer;

  beforeAll(async () => {
    [database, redis] = await Promise.all([cloneTestDatabase(), startVolatileRedis()]);
    const env = { REDIS_URL: redis.url, REDIS_NAMESPACE: `faults-${randomBytes(4).toString('hex')}` };
    [a, b] = await Promise.all([
      spawnServer({ databaseUrl: database.url!, env }),
      spawnServer({ databaseUrl: database.url!, mode: 'functions', env }),
    ]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map((s) => s.stop()));
    await redis?.close();
    await database?.drop();
  });

  it('a token cut off by a password change stays refused on every process after Redis comes back empty', async () => {
    const { victim, bystander } = await signIn(a, 'redis');
    const impersonation = await req(a, 'POST', '/auth/impersonate', { body: { user: bystander.id } });
    expect(impersonation.status, impersonation.text).toBe(200);
    const impersonating = impersonation.body.data.access_token as string;
    for (const s of [a, b]) expect((await me(s, impersonating)).status).toBe(200);

    const changed = await req(a, 'PATCH', `/users/${victim.id}`, { body: { password: 'a-new-password-2' } });
    expect(changed.status, changed.text).toBe(200);
    for (const s of [a, b]) expect((await me(s, victim.token)).status).toBe(401);

    await redis.down();
    await redis.up();
    // While a process cannot reach the store it reads no cut-offs at all (an outage must not log everybody out);
    // what is tested here is the store answering again, empty.
    for (const s of [a, b]) await storeAnswers(s);

    for (const s of [a, b]) {
      const after = await me(s, victim.token);
      expect(after.status, `${s.url}: ${after.text}`).toBe(401);
      expect(after.body.errors[0].extensions.code).toBe('TOKEN_REVOKED');
      // The bystander's session was not touched: its token still works.
      expect((await me(s, bystander.token)).status).toBe(200);
      // Whether the impersonation was stopped is forgotten as well: refused rather than trusted.
      expect((await me(s, impersonating)).status).toBe(401);
    }
    // Signing in again works, and the new token is accepted everywhere.
    const again = await req(a, 'POST', '/auth/login', { body: { email: 'victim-redis@example.com', password: 'a-new-password-2' }, token: null });
    expect(again.status, again.text).toBe(200);
    for (const s of [a, b]) expect((await me(s, again.body.data.access_token)).status).toBe(200);
  }, 180_000);
});

describe.skipIf(!PG_URL)(`access-token cut-offs across a restart of a process on the in-memory store${PG_SKIP}`, () => {
  let database: TestDatabase;
  let server: FaultServer | undefined;

  beforeAll(async () => { database = await cloneTestDatabase(); }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('a token cut off before the restart is refused after it; an untouched session keeps working', async () => {
    server = await spawnServer({ databaseUrl: database.url! });
    const { victim, bystander } = await signIn(server, 'memory');
    const changed = await req(server, 'PATCH', `/users/${victim.id}`, { body: { password: 'a-new-password-2' } });
    expect(changed.status, changed.text).toBe(200);
    expect((await me(server, victim.token)).status).toBe(401);

    await server.stop();
    server = await spawnServer({ databaseUrl: database.url! });

    const after = await me(server, victim.token);
    expect(after.status, after.text).toBe(401);
    expect(after.body.errors[0].extensions.code).toBe('TOKEN_REVOKED');
    expect((await me(server, bystander.token)).status).toBe(200);
  }, 180_000);
});
