/** POST /shares/auth against password guessing: it counts in the login rate-limit bucket (with /auth/login, by
 * client IP), and wrong share passwords lock the share after settings.auth_login_attempts failures for
 * AUTH_LOCKOUT_COOLDOWN, answering as /auth/login answers a suspended account, whatever password is sent. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { hashPassword } from '../../core/auth/passwords.ts';
import { onSecurityEvent, type SecurityEvent } from '../../core/events/security.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_EMAIL } from '../helpers/template.ts';

const code = (res: { body: any }) => res.body?.errors?.[0]?.extensions?.code;

async function addShare(t: TestApp, password: string | null): Promise<string> {
  const [{ role }] = await run<{ role: string }>(t.services.database.db, "select role from svc_users where email = 'share-limits@example.com'");
  const id = randomUUID();
  await run(t.services.database.db, "insert into svc_shares (id, collection, item, role, password) values ($1, 'posts', '1', $2, $3)",
    [id, role, password === null ? null : await hashPassword(password)]);
  return id;
}

async function setup(env: Record<string, string>): Promise<TestApp> {
  const t = await createTestApp({ env });
  await createContentModel(t.services);
  await createPrincipal(t.services, { token: 'share-limits', permissions: [{ collection: 'posts', action: 'read' }] });
  return t;
}

describe('rate limit', () => {
  let t: TestApp;
  const events: SecurityEvent[] = [];
  const stop = onSecurityEvent((e) => { events.push(e); });
  beforeAll(async () => {
    t = await setup({
      RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_POINTS: '5', RATE_LIMITER_DURATION: '60',
      RATE_LIMITER_LOGIN_POINTS: '2', RATE_LIMITER_LOGIN_DURATION: '60',
    });
  });
  afterAll(async () => { stop(); await t?.close(); });

  const from = (ip: string, path: string, body: unknown) => t.req('POST', path, body, { token: null, headers: { 'x-forwarded-for': ip } });

  it('counts POST /shares/auth in the login bucket, shared with /auth/login, not in the IP bucket', async () => {
    const ip = '203.0.113.77';
    const share = await addShare(t, 'sesame');
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await from(ip, '/shares/auth', { share, password: 'wrong' })).status);
    expect(statuses).toEqual([401, 401, 429]);
    const right = await from(ip, '/shares/auth', { share, password: 'sesame' });
    expect(right.status).toBe(429);
    expect(code(right)).toBe('REQUESTS_EXCEEDED');
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(events.map((e) => e.details)).toEqual([{ limiter: 'endpoint', key: ip, ip }]);
    // The same bucket as logins; the IP bucket (5 points) was not touched.
    expect((await from(ip, '/auth/login', { email: ADMIN_EMAIL, password: 'wrong-password' })).status).toBe(429);
    for (let i = 0; i < 5; i++) expect((await t.req('GET', '/server/ping', undefined, { token: null, headers: { 'x-forwarded-for': ip } })).status).toBe(200);
    // Another address is unaffected.
    expect((await from('203.0.113.78', '/shares/auth', { share, password: 'sesame' })).status).toBe(200);
  });
});

describe('lockout', () => {
  let t: TestApp;
  const auth = (share: string, password?: string) => t.req('POST', '/shares/auth', password === undefined ? { share } : { share, password }, { token: null });
  const attempts = async (share: string, n: number, password: string) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await auth(share, password)).status);
    return out;
  };
  const timesUsed = async (share: string) =>
    (await run<{ n: number }>(t.services.database.db, 'select times_used as n from svc_shares where id = $1', [share]))[0].n;

  beforeAll(async () => {
    t = await setup({ AUTH_LOCKOUT_COOLDOWN: '1s' });
    await run(t.services.database.db, 'update svc_settings set auth_login_attempts = 3');
  });
  afterAll(async () => t?.close());

  it('locks a share after auth_login_attempts wrong passwords, answering as /auth/login does for a suspended account', async () => {
    // What /auth/login answers for a locked (suspended) account that sends its right password.
    const { user } = await createPrincipal(t.services, { token: 'share-limits-suspended', permissions: [] });
    await run(t.services.database.db, "update svc_users set status = 'suspended', password = $2 where id = $1", [user, await hashPassword('right-password-1')]);
    const suspended = await t.req('POST', '/auth/login', { email: 'share-limits-suspended@example.com', password: 'right-password-1' }, { token: null });

    const share = await addShare(t, 'sesame');
    const other = await addShare(t, 'sesame');
    expect(await attempts(share, 3, 'wrong')).toEqual([401, 401, 401]);
    const locked = await auth(share, 'sesame');
    expect(locked.status).toBe(suspended.status);
    expect(code(locked)).toBe(code(suspended));
    // The message says until when, within the cooldown.
    const until = /locked .* until (\S+Z)\.$/.exec(locked.body.errors[0].message);
    expect(until).not.toBeNull();
    expect(Date.parse(until![1])).toBeGreaterThan(Date.now());
    expect(Date.parse(until![1])).toBeLessThanOrEqual(Date.now() + 1000);
    // Whatever password: a right guess answers the same while locked.
    expect((await auth(share, 'wrong')).status).toBe(suspended.status);
    expect(await timesUsed(share)).toBe(0);
    // Only that share is locked.
    expect((await auth(other, 'sesame')).status).toBe(200);

    // After the cooldown the share opens again, and its count starts from zero.
    await new Promise((r) => setTimeout(r, 1100));
    expect(await attempts(share, 2, 'wrong')).toEqual([401, 401]);
    expect((await auth(share, 'sesame')).status).toBe(200);
  });

  it('a successful login resets the count; a missing password is not counted', async () => {
    const share = await addShare(t, 'sesame');
    expect(await attempts(share, 2, 'wrong')).toEqual([401, 401]);
    expect((await auth(share, 'sesame')).status).toBe(200);
    expect(await attempts(share, 2, 'wrong')).toEqual([401, 401]);
    for (let i = 0; i < 3; i++) expect((await auth(share)).status).toBe(401);
    expect((await auth(share, 'sesame')).status).toBe(200);
  });

  it('counts nothing when auth_login_attempts is unset, and shares without a password never lock', async () => {
    const open = await addShare(t, null);
    expect(await attempts(open, 4, 'anything')).toEqual([200, 200, 200, 200]);
    await run(t.services.database.db, 'update svc_settings set auth_login_attempts = null');
    try {
      const share = await addShare(t, 'sesame');
      expect(await attempts(share, 5, 'wrong')).toEqual([401, 401, 401, 401, 401]);
      expect((await auth(share, 'sesame')).status).toBe(200);
    } finally {
      await run(t.services.database.db, 'update svc_settings set auth_login_attempts = 3');
    }
  });
});
