/** Issue 24 point 9: a one-time code works once. A replay of the same TOTP code while it is still inside its
 * validity window is refused (401 INVALID_OTP) on every path that takes a code; another valid code works. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, generateSecret } from 'otplib';
import { run } from '../../core/db/database.ts';
import { hashPassword } from '../../core/auth/passwords.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
const PASSWORD = 'otp-password-1';
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
/** The code of the current 30-second step, or of the next one (also accepted: clock drift). */
const otpOf = (secret: string, step: 0 | 1 = 0) => generate({ secret, epoch: Date.now() / 1000 + 30 * step });

async function addUser(enabled = true) {
  const id = randomUUID();
  const email = `otp-${id.slice(0, 8)}@example.com`;
  const secret = generateSecret();
  await run(t.services.database.db, `insert into svc_users (id, email, password, status, tfa_secret, tfa_enabled, token)
    values ($1, $2, $3, 'active', $4, $5, $6)`, [id, email, await hashPassword(PASSWORD), enabled ? secret : null, enabled, `otp-static-${id}`]);
  await t.services.schema.invalidate();
  return { id, email, secret, token: `otp-static-${id}` };
}

const login = (email: string, otp: string) => t.req('POST', '/auth/login', { email, password: PASSWORD, otp }, { token: null });

beforeAll(async () => { t = await createTestApp({ env: { RATE_LIMITER_ENABLED: 'false' } }); });
afterAll(async () => { await t.close(); });

describe('a one-time code is spent by its first use', () => {
  type Use = (u: Awaited<ReturnType<typeof addUser>>, otp: string) => Promise<{ status: number; body: any }>;
  const uses: Record<string, Use> = {
    login: (u, otp) => login(u.email, otp),
    'password change': (u, otp) => t.req('PATCH', '/users/me', { password: PASSWORD, current_password: PASSWORD, otp }, { token: u.token }),
    'two-factor disable': (u, otp) => t.req('POST', '/users/me/tfa/disable', { otp }, { token: u.token }),
  };
  const cases = [
    { first: 'login', replay: 'login' },
    { first: 'login', replay: 'password change' },
    { first: 'login', replay: 'two-factor disable' },
    { first: 'password change', replay: 'login' },
  ];

  it.each(cases)('$first, then the same code for $replay: 401 INVALID_OTP', async ({ first, replay }) => {
    const u = await addUser();
    const otp = await otpOf(u.secret);
    expect((await uses[first](u, otp)).status).toBeLessThan(300);
    const again = await uses[replay](u, otp);
    expect({ status: again.status, code: code(again) }).toEqual({ status: 401, code: 'INVALID_OTP' });
  });

  it('another valid code (the next step\u2019s) still works after a replay was refused', async () => {
    const u = await addUser();
    const otp = await otpOf(u.secret);
    expect((await login(u.email, otp)).status).toBe(200);
    expect(code(await login(u.email, otp))).toBe('INVALID_OTP');
    expect((await login(u.email, await otpOf(u.secret, 1))).status).toBe(200);
  });

  it('the code that confirmed a new secret cannot log in as well', async () => {
    const u = await addUser(false);
    const { secret } = (await t.req('POST', '/users/me/tfa/generate', { password: PASSWORD }, { token: u.token })).body.data;
    const otp = await otpOf(secret);
    expect((await t.req('POST', '/users/me/tfa/enable', { secret, otp }, { token: u.token })).status).toBe(204);
    expect(code(await login(u.email, otp))).toBe('INVALID_OTP');
  });

  it('concurrent logins with one code: exactly one succeeds', async () => {
    const u = await addUser();
    const otp = await otpOf(u.secret);
    const results = await Promise.all(Array.from({ length: 4 }, () => login(u.email, otp)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401]);
  });

  it('users do not share spent codes', async () => {
    const a = await addUser();
    const b = await addUser();
    await run(t.services.database.db, 'update svc_users set tfa_secret = $2 where id = $1', [b.id, a.secret]);
    const otp = await otpOf(a.secret);
    expect((await login(a.email, otp)).status).toBe(200);
    expect((await login(b.email, otp)).status).toBe(200);
  });
});
