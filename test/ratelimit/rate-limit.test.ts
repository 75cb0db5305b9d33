/** Rate limiting (SPEC.md > Limits) through the real HTTP app: the buckets, which one a request counts in, the
 * 429 envelope, and the RATE_LIMIT_TRIGGERED security event. In-process requests come from 127.0.0.1, which
 * the default TRUST_PROXY trusts, so X-Forwarded-For gives each test its own client IP. */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../core/db/database.ts';
import { signAccessToken } from '../../core/auth/tokens.ts';
import { emitSecurityEvent, onSecurityEvent, type SecurityEvent } from '../../core/events/security.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_EMAIL, ADMIN_TOKEN, testEnv } from '../helpers/template.ts';

const SECRET = testEnv().SECRET;
const code = (res: { body: any }) => res.body?.errors?.[0]?.extensions?.code;

let events: SecurityEvent[] = [];
const stop = onSecurityEvent((e) => { events.push(e); });
afterAll(() => stop());
afterEach(() => { events = []; });

let nextIp = 1;
/** A fresh client address per test, so buckets keyed by IP never leak between tests. */
const freshIp = () => `203.0.113.${nextIp++}`;

function limited(env: Record<string, string>): Promise<TestApp> {
  return createTestApp({ env: { RATE_LIMITER_ENABLED: 'true', ...env } });
}

function from(t: TestApp, ip: string, method: string, path: string, opts: { token?: string | null; body?: unknown } = {}) {
  return t.req(method, path, opts.body, { token: opts.token === undefined ? null : opts.token, headers: { 'x-forwarded-for': ip } });
}

async function statuses(n: number, send: () => Promise<{ status: number }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send()).status);
  return out;
}

describe('per-IP, assets, login and email buckets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await limited({
      RATE_LIMITER_POINTS: '2', RATE_LIMITER_DURATION: '60',
      RATE_LIMITER_ASSETS_POINTS: '3', RATE_LIMITER_ASSETS_DURATION: '60',
      RATE_LIMITER_LOGIN_POINTS: '2', RATE_LIMITER_LOGIN_DURATION: '60',
      RATE_LIMITER_EMAIL_POINTS: '1', RATE_LIMITER_EMAIL_DURATION: '60',
    });
  });
  afterAll(async () => { await t.close(); });

  it('answers 429 REQUESTS_EXCEEDED with Retry-After, limit and reset once an anonymous IP is over its limit', async () => {
    const ip = freshIp();
    expect(await statuses(2, () => from(t, ip, 'GET', '/server/info'))).toEqual([200, 200]);
    const before = Date.now();
    const res = await from(t, ip, 'GET', '/server/info');
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ errors: [{ message: 'Hit rate limit', extensions: { code: 'REQUESTS_EXCEEDED', limit: 2, reset: expect.any(String) } }] });
    const reset = Date.parse(res.body.errors[0].extensions.reset);
    expect(reset).toBeGreaterThan(before);
    expect(reset).toBeLessThanOrEqual(Date.now() + 60_000);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(new Date(reset).toISOString()).toBe(res.body.errors[0].extensions.reset);
    // Unauthenticated endpoints are counted too; another IP is unaffected.
    expect((await from(t, ip, 'GET', '/server/ping')).status).toBe(429);
    expect((await from(t, freshIp(), 'GET', '/server/ping')).status).toBe(200);
  });

  it('emits RATE_LIMIT_TRIGGERED once per window with {limiter, key, ip}', async () => {
    const ip = freshIp();
    await statuses(5, () => from(t, ip, 'GET', '/server/ping'));
    expect(events).toEqual([{ type: 'RATE_LIMIT_TRIGGERED', severity: 'warning', details: { limiter: 'ip', key: ip, ip } }]);
  });

  it('counts anonymous /assets/* in the assets bucket, not the IP bucket', async () => {
    const ip = freshIp();
    const asset = `/assets/${randomUUID()}`;
    const first = await statuses(3, () => from(t, ip, 'GET', asset));
    expect(first).not.toContain(429);
    expect((await from(t, ip, 'GET', asset)).status).toBe(429);
    expect(events.map((e) => e.details)).toEqual([{ limiter: 'assets', key: ip, ip }]);
    expect(await statuses(2, () => from(t, ip, 'GET', '/server/ping'))).toEqual([200, 200]);
  });

  it('counts POST /auth/login in the login bucket only (limiter endpoint), before the credentials are checked', async () => {
    const ip = freshIp();
    const wrong = { email: ADMIN_EMAIL, password: 'wrong-password' };
    expect(await statuses(3, () => from(t, ip, 'POST', '/auth/login', { body: wrong }))).toEqual([401, 401, 429]);
    const res = await from(t, ip, 'POST', '/auth/login', { body: { email: ADMIN_EMAIL, password: testEnv().ADMIN_PASSWORD } });
    expect(res.status).toBe(429);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'REQUESTS_EXCEEDED', limit: 2 });
    expect(events.map((e) => e.details)).toEqual([{ limiter: 'endpoint', key: ip, ip }]);
    // The IP bucket was not touched by the logins.
    expect(await statuses(2, () => from(t, ip, 'GET', '/server/ping'))).toEqual([200, 200]);
  });

  it('counts the external sign-on password endpoints (POST /auth/login/{provider}, /auth/link/{provider}) in the login bucket', async () => {
    for (const path of ['/auth/login/corp', '/auth/link/corp']) {
      const ip = freshIp();
      const body = { identifier: 'someone', password: 'guess' };
      // 404: no such provider here; the bucket is consumed before the route runs, as for POST /auth/login.
      expect(await statuses(3, () => from(t, ip, 'POST', path, { body }))).toEqual([404, 404, 429]);
      expect(events.at(-1)?.details).toEqual({ limiter: 'endpoint', key: ip, ip });
      expect(await statuses(2, () => from(t, ip, 'GET', '/server/ping'))).toEqual([200, 200]);
    }
  });

  it('counts the password reset and invitation endpoints in one email bucket per IP', async () => {
    const ip = freshIp();
    const first = await from(t, ip, 'POST', '/auth/password/request', { body: { email: 'nobody@example.com' } });
    expect(first.status).not.toBe(429);
    for (const path of ['/auth/password/request', '/auth/password/reset', '/users/invite', '/users/invite/accept']) {
      const res = await from(t, ip, 'POST', path, { body: {} });
      expect({ path, status: res.status, code: code(res) }).toEqual({ path, status: 429, code: 'REQUESTS_EXCEEDED' });
    }
    expect(events.map((e) => e.details)).toEqual([{ limiter: 'email', key: ip, ip }]);
    // Other methods on those paths are ordinary requests.
    expect((await from(t, ip, 'GET', '/server/ping')).status).toBe(200);
  });

  it('skips the IP bucket for a valid token', async () => {
    const ip = freshIp();
    expect(await statuses(5, () => from(t, ip, 'GET', '/server/info', { token: ADMIN_TOKEN }))).toEqual([200, 200, 200, 200, 200]);
    expect(await statuses(3, () => from(t, ip, 'GET', '/server/info'))).toEqual([200, 200, 429]);
  });

  it('never counts a valid token in the IP bucket, on any route (ping and health included)', async () => {
    const ip = freshIp();
    for (const path of ['/server/ping', '/server/health', '/server/info', '/auth/me', '/items/svc_nope']) {
      const res = await statuses(3, () => from(t, ip, 'GET', path, { token: ADMIN_TOKEN }));
      expect(res, path).not.toContain(429);
    }
    // The IP's own bucket is untouched: its two anonymous requests still pass.
    expect(await statuses(3, () => from(t, ip, 'GET', '/server/ping'))).toEqual([200, 200, 429]);
  });

  it('answers a garbage token with 401 INVALID_TOKEN on every route, counted against the IP', async () => {
    const ip = freshIp();
    for (const path of ['/server/ping', '/server/health']) {
      const res = await from(t, ip, 'GET', path, { token: 'garbage-token' });
      expect(res.status, path).toBe(401);
      expect(code(res)).toBe('INVALID_TOKEN');
    }
    expect((await from(t, ip, 'GET', '/server/ping', { token: 'garbage-token' })).status).toBe(429);
  });

  it('counts a token that matches no strategy against the IP before the 401', async () => {
    const ip = freshIp();
    const res = await from(t, ip, 'GET', '/auth/me', { token: 'no-such-token' });
    expect(res.status).toBe(401);
    expect(code(res)).toBe('INVALID_TOKEN');
    expect(code(await from(t, ip, 'GET', '/auth/me', { token: 'a.b.c' }))).toBe('INVALID_TOKEN');
    const third = await from(t, ip, 'GET', '/auth/me', { token: 'another-guess' });
    expect(third.status).toBe(429);
    expect(code(third)).toBe('REQUESTS_EXCEEDED');
    // The same bucket as anonymous requests.
    expect((await from(t, ip, 'GET', '/server/ping')).status).toBe(429);
    expect(events.map((e) => e.details)).toEqual([{ limiter: 'ip', key: ip, ip }]);
  });

  it('counts a malformed Bearer header (INVALID_TOKEN) against the IP as well', async () => {
    const ip = freshIp();
    const send = () => t.req('GET', '/auth/me', undefined, { token: null, headers: { 'x-forwarded-for': ip, authorization: 'Bearer a b' } });
    expect(await statuses(3, send)).toEqual([401, 401, 429]);
  });

  it('does not count a genuine expired or revoked token against the IP', async () => {
    const ip = freshIp();
    const [admin] = await run<{ id: string; role: string }>(t.services.database.db, 'select id, role from svc_users where email = $1', [ADMIN_EMAIL]);
    const claims = { id: admin.id, role: admin.role, app_access: true, admin_access: true };
    const expired = await signAccessToken(claims, SECRET, -10_000);
    const revoked = await signAccessToken({ ...claims, session: 'no-such-session' }, SECRET, 60_000);
    for (let i = 0; i < 3; i++) {
      expect(code(await from(t, ip, 'GET', '/auth/me', { token: expired }))).toBe('TOKEN_EXPIRED');
      expect(code(await from(t, ip, 'GET', '/auth/me', { token: revoked }))).toBe('TOKEN_REVOKED');
    }
    expect(await statuses(2, () => from(t, ip, 'GET', '/server/ping'))).toEqual([200, 200]);
    expect(events).toEqual([]);
  });
});

describe('user and service buckets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await limited({
      RATE_LIMITER_POINTS: '1', RATE_LIMITER_DURATION: '60',
      RATE_LIMITER_USER_POINTS: '3', RATE_LIMITER_USER_DURATION: '60',
      RATE_LIMITER_SERVICE_POINTS: '5', RATE_LIMITER_SERVICE_DURATION: '60',
    });
  });
  afterAll(async () => { await t.close(); });

  it('keys the user bucket by user id, whatever the IP or credential', async () => {
    const p = await createPrincipal(t.services, { token: 'rl-user-token', permissions: [] });
    const jwt = await signAccessToken({ id: p.user, role: p.role, app_access: false, admin_access: false }, SECRET, 60_000);
    expect((await from(t, freshIp(), 'GET', '/auth/me', { token: 'rl-user-token' })).status).toBe(200);
    expect((await from(t, freshIp(), 'GET', '/auth/me', { token: jwt })).status).toBe(200);
    expect((await from(t, freshIp(), 'GET', '/auth/me', { token: 'rl-user-token' })).status).toBe(200);
    const ip = freshIp();
    const res = await from(t, ip, 'GET', '/auth/me', { token: jwt });
    expect(res.status).toBe(429);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'REQUESTS_EXCEEDED', limit: 3 });
    expect(events.map((e) => e.details)).toEqual([{ limiter: 'per-user', key: p.user, ip }]);
    // Other users have their own bucket.
    expect((await from(t, ip, 'GET', '/auth/me', { token: ADMIN_TOKEN })).status).toBe(200);
  });

  it('counts principals whose role has service_account in the service bucket', async () => {
    const p = await createPrincipal(t.services, { token: 'rl-service-token', permissions: [] });
    await run(t.services.database.db, 'update svc_roles set service_account = true where id = $1', [p.role]);
    await t.services.schema.invalidate();
    const ip = freshIp();
    expect(await statuses(6, () => from(t, ip, 'GET', '/auth/me', { token: 'rl-service-token' }))).toEqual([200, 200, 200, 200, 200, 429]);
    expect(events.map((e) => e.details)).toEqual([{ limiter: 'service', key: p.user, ip }]);
  });
});

describe('global bucket and switches', () => {
  it('counts every request in the global bucket besides its own', async () => {
    const t = await limited({ RATE_LIMITER_GLOBAL_POINTS: '4', RATE_LIMITER_GLOBAL_DURATION: '60' });
    try {
      expect((await from(t, freshIp(), 'GET', '/server/ping')).status).toBe(200);
      expect((await from(t, freshIp(), 'GET', '/server/info', { token: ADMIN_TOKEN })).status).toBe(200);
      expect((await from(t, freshIp(), 'POST', '/auth/login', { body: {} })).status).toBe(400);
      expect((await from(t, freshIp(), 'GET', '/auth/me', { token: 'bogus' })).status).toBe(401);
      const res = await from(t, freshIp(), 'GET', '/server/info', { token: ADMIN_TOKEN });
      expect(res.status).toBe(429);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'REQUESTS_EXCEEDED', limit: 4 });
      expect(events.map((e) => e.details)).toEqual([{ limiter: 'global', key: 'global', ip: expect.any(String) }]);
    } finally {
      await t.close();
    }
  });

  it('RATE_LIMITER_GLOBAL_ENABLED=false leaves only the specific buckets', async () => {
    const t = await limited({ RATE_LIMITER_GLOBAL_ENABLED: 'false', RATE_LIMITER_GLOBAL_POINTS: '1' });
    try {
      expect(await statuses(3, () => from(t, freshIp(), 'GET', '/server/ping'))).toEqual([200, 200, 200]);
    } finally {
      await t.close();
    }
  });

  it('RATE_LIMITER_ENABLED=false turns every bucket off', async () => {
    const t = await createTestApp({ env: { RATE_LIMITER_ENABLED: 'false', RATE_LIMITER_POINTS: '1', RATE_LIMITER_LOGIN_POINTS: '1' } });
    try {
      const ip = freshIp();
      expect(await statuses(3, () => from(t, ip, 'GET', '/server/ping'))).toEqual([200, 200, 200]);
      expect(await statuses(3, () => from(t, ip, 'POST', '/auth/login', { body: {} }))).toEqual([400, 400, 400]);
      expect(events).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('rejects invalid limiter settings at start-up', async () => {
    const { loadConfig } = await import('../../core/config.ts');
    expect(() => loadConfig(testEnv({ RATE_LIMITER_STORE: 'disk' }))).toThrow(/RATE_LIMITER_STORE/);
    expect(() => loadConfig(testEnv({ RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_STORE: 'shared' }))).toThrow(/REDIS_URL/);
    expect(() => loadConfig(testEnv({ RATE_LIMITER_POINTS: '0' }))).toThrow(/RATE_LIMITER_POINTS/);
    expect(() => loadConfig(testEnv({ RATE_LIMITER_ENABLED: 'maybe' }))).toThrow(/RATE_LIMITER_ENABLED/);
    const defaults = loadConfig({ SECRET: 'x' }).rateLimiter;
    expect(defaults).toEqual({
      enabled: true,
      store: 'memory',
      globalEnabled: true,
      buckets: {
        global: { points: 1000, duration: 1 },
        ip: { points: 50, duration: 1 },
        assets: { points: 300, duration: 1 },
        service: { points: 10000, duration: 60 },
        user: { points: 300, duration: 60 },
        login: { points: 10, duration: 60 },
        email: { points: 5, duration: 60 },
        webhook: { points: 100, duration: 1 },
      },
    });
  });
});

describe('security events', () => {
  it('are logged at warn level unless LOG_LEVEL is silent (or above warn), and reach subscribers either way', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const event: SecurityEvent = { type: 'RATE_LIMIT_TRIGGERED', severity: 'warning', details: { limiter: 'ip', key: '192.0.2.1', ip: '192.0.2.1' } };
      emitSecurityEvent(event, 'silent');
      emitSecurityEvent(event, 'error');
      expect(warn).not.toHaveBeenCalled();
      emitSecurityEvent(event, 'info');
      expect(warn).toHaveBeenCalledTimes(1);
      expect(JSON.parse(String(warn.mock.calls[0][0]))).toMatchObject({ level: 'warn', event: 'RATE_LIMIT_TRIGGERED', severity: 'warning', limiter: 'ip', key: '192.0.2.1', ip: '192.0.2.1' });
      expect(events).toEqual([event, event, event]);
    } finally {
      warn.mockRestore();
    }
  });

  it('survive a throwing subscriber', async () => {
    const off = onSecurityEvent(() => { throw new Error('sink down'); });
    const t = await limited({ RATE_LIMITER_POINTS: '1', RATE_LIMITER_DURATION: '60' });
    try {
      const ip = freshIp();
      expect(await statuses(2, () => from(t, ip, 'GET', '/server/ping'))).toEqual([200, 429]);
    } finally {
      off();
      await t.close();
    }
  });
});
