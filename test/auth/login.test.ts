import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, generateSecret } from 'otplib';
import { run } from '../../core/db/database.ts';
import { hashPassword } from '../../core/auth/passwords.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/template.ts';

let t: TestApp;
let adminId: string;
let adminRole: string;

async function addUser(fields: { status?: string; tfa_secret?: string | null; tfa_enabled?: boolean; password?: string | null; provider?: string } = {}) {
  const id = randomUUID();
  const email = `u-${id.slice(0, 8)}@example.com`;
  const password = fields.password === undefined ? 'user-password-1' : fields.password;
  await run(t.services.database.db, `insert into svc_users (id, email, password, role, status, tfa_secret, tfa_enabled, provider)
    values ($1, $2, $3, $4, $5, $6, $7, $8)`,
  [id, email, password === null ? null : await hashPassword(password), adminRole, fields.status ?? 'active', fields.tfa_secret ?? null,
    fields.tfa_enabled ?? Boolean(fields.tfa_secret), fields.provider ?? 'default']);
  return { id, email, password: password ?? '' };
}

const login = (body: unknown, headers: Record<string, string> = {}) => t.req('POST', '/auth/login', body, { token: null, headers });
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

beforeAll(async () => {
  t = await createTestApp();
  [{ id: adminId, role: adminRole }] = await run<{ id: string; role: string }>(t.services.database.db,
    'select id, role from svc_users where email = $1', [ADMIN_EMAIL]);
});
afterAll(async () => { await t.close(); });

describe('POST /auth/login', () => {
  it('returns access token, expires (ms) and a 64-character refresh token, exactly as Directus', async () => {
    const res = await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['access_token', 'expires', 'refresh_token']);
    expect(res.body.data.expires).toBe(15 * 60 * 1000);
    expect(res.body.data.refresh_token).toMatch(/^[A-Za-z0-9_-]{64}$/);
    const [, payload] = res.body.data.access_token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toMatchObject({ id: adminId, role: adminRole, app_access: true, admin_access: true, iss: 'svc' });
    expect(claims.exp - claims.iat).toBe(15 * 60);
    expect(claims.session).toBeUndefined();
  });

  it('stores the session, writes a login activity row and updates last_access', async () => {
    const before = Date.now();
    const res = await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      { 'user-agent': 'vitest-agent', origin: 'https://app.example.com' });
    expect(res.status).toBe(200);
    const [session] = await run<{ user: string; expires: Date; user_agent: string; origin: string }>(t.services.database.db,
      'select "user", expires, user_agent, origin from svc_sessions where token = $1', [res.body.data.refresh_token]);
    expect(session).toMatchObject({ user: adminId, user_agent: 'vitest-agent', origin: 'https://app.example.com' });
    const ttl = new Date(session.expires).getTime() - before;
    expect(ttl).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(ttl).toBeLessThan(7 * 86_400_000 + 60_000);
    const activity = await run<Record<string, unknown>>(t.services.database.db,
      `select action, collection, item, "user", user_agent, origin from svc_activity
       where action = 'login' and user_agent = 'vitest-agent' order by id desc limit 1`);
    expect(activity[0]).toEqual({ action: 'login', collection: 'svc_users', item: adminId, user: adminId, user_agent: 'vitest-agent', origin: 'https://app.example.com' });
    const [{ last_access }] = await run<{ last_access: Date }>(t.services.database.db, 'select last_access from svc_users where id = $1', [adminId]);
    expect(new Date(last_access).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('matches the email case-insensitively', async () => {
    const res = await login({ email: ADMIN_EMAIL.toUpperCase(), password: ADMIN_PASSWORD });
    expect(res.status).toBe(200);
  });

  it('issues a token that authenticates', async () => {
    const { body } = await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const me = await t.req('GET', '/auth/me', undefined, { token: body.data.access_token });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(adminId);
  });

  it.each([
    ['no body', undefined],
    ['missing email', { password: 'x' }],
    ['missing password', { email: ADMIN_EMAIL }],
    ['empty password', { email: ADMIN_EMAIL, password: '' }],
    ['non-string email', { email: 42, password: 'x' }],
    ['non-string password', { email: ADMIN_EMAIL, password: ['x'] }],
    ['malformed email', { email: 'not-an-email', password: 'x' }],
    ['unknown mode', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, mode: 'jwt' }],
    ['non-string otp', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, otp: 123456 }],
    ['an array body', [ADMIN_EMAIL, ADMIN_PASSWORD]],
  ])('rejects %s with 400 INVALID_PAYLOAD', async (_name, body) => {
    const res = await login(body);
    expect(res.status).toBe(400);
    expect(code(res)).toBe('INVALID_PAYLOAD');
  });

  it('rejects a wrong password and an unknown email alike with 401 INVALID_CREDENTIALS', async () => {
    const wrong = await login({ email: ADMIN_EMAIL, password: 'wrong-password' });
    const unknown = await login({ email: 'nobody@example.com', password: 'wrong-password' });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ errors: [{ message: 'Invalid user credentials.', extensions: { code: 'INVALID_CREDENTIALS' } }] });
    }
  });

  it('answers 403 USER_SUSPENDED for a suspended user with the right password only', async () => {
    const u = await addUser({ status: 'suspended' });
    const right = await login({ email: u.email, password: u.password });
    expect(right.status).toBe(403);
    expect(code(right)).toBe('USER_SUSPENDED');
    const wrong = await login({ email: u.email, password: 'nope-nope' });
    expect(wrong.status).toBe(401);
    expect(code(wrong)).toBe('INVALID_CREDENTIALS');
  });

  it.each(['invited', 'archived'])('answers 401 INVALID_CREDENTIALS for a %s user', async (status) => {
    const u = await addUser({ status });
    const res = await login({ email: u.email, password: u.password });
    expect(res.status).toBe(401);
    expect(code(res)).toBe('INVALID_CREDENTIALS');
  });

  it('refuses users without a local password or of another provider', async () => {
    const noPassword = await addUser({ password: null });
    expect(code(await login({ email: noPassword.email, password: 'anything' }))).toBe('INVALID_CREDENTIALS');
    const external = await addUser({ provider: 'sso' });
    expect(code(await login({ email: external.email, password: external.password }))).toBe('INVALID_CREDENTIALS');
  });

  it('requires a valid one-time code when the user has a TFA secret', async () => {
    const secret = generateSecret();
    const u = await addUser({ tfa_secret: secret });
    const missing = await login({ email: u.email, password: u.password });
    expect(missing.status).toBe(401);
    expect(missing.body.errors[0]).toEqual({ message: '"otp" is required', extensions: { code: 'INVALID_OTP' } });
    const current = await generate({ secret });
    const wrongOtp = String((Number(current) + 1) % 1_000_000).padStart(6, '0');
    const wrong = await login({ email: u.email, password: u.password, otp: wrongOtp });
    expect(wrong.status).toBe(401);
    expect(code(wrong)).toBe('INVALID_OTP');
    const ok = await login({ email: u.email, password: u.password, otp: current });
    expect(ok.status).toBe(200);
    // A wrong password is still a credentials error, whatever the otp.
    expect(code(await login({ email: u.email, password: 'wrong-password', otp: current }))).toBe('INVALID_CREDENTIALS');
  });

  it('does not ask for a code while the TFA secret awaits its first confirmation (tfa_enabled false)', async () => {
    const u = await addUser({ tfa_secret: generateSecret(), tfa_enabled: false });
    const res = await login({ email: u.email, password: u.password });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['access_token', 'expires', 'refresh_token']);
  });

  it('mode cookie: refresh token in an httpOnly cookie, not in the body', async () => {
    const res = await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD, mode: 'cookie' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['access_token', 'expires']);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^svc_refresh_token=[A-Za-z0-9_-]{64};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain(`Max-Age=${7 * 86_400}`);
  });

  it('mode session: the access token in a cookie, bound to its session (revoked when the session goes)', async () => {
    const res = await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD, mode: 'session' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['expires']);
    const cookie = /^svc_session_token=([^;]+);/.exec(res.headers.get('set-cookie')!)![1];
    const me = await t.req('GET', '/auth/me', undefined, { token: null, headers: { cookie: `other=1; svc_session_token=${cookie}` } });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(adminId);
    const claims = JSON.parse(Buffer.from(cookie.split('.')[1], 'base64url').toString());
    await run(t.services.database.db, 'delete from svc_sessions where token = $1', [claims.session]);
    const after = await t.req('GET', '/auth/me', undefined, { token: null, headers: { cookie: `svc_session_token=${cookie}` } });
    expect(after.status).toBe(401);
    expect(code(after)).toBe('TOKEN_REVOKED');
  });
});
