import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from 'otplib';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const login = (body: Record<string, unknown>) => t.req('POST', '/auth/login', body, { token: null });

async function userWithToken(email: string) {
  const res = await t.req('POST', '/users', { email, password: 'tfa-password-1', require_password_change: false });
  expect(res.status).toBe(200);
  const token = (await login({ email, password: 'tfa-password-1' })).body.data.access_token as string;
  return { id: res.body.data as string, token };
}

beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

describe('two-factor', () => {
  it('enable {password} (SPEC.md) answers the secret and two-factor is on at once: login needs the code', async () => {
    const { id, token } = await userWithToken('tfa1@example.com');
    const wrong = await t.req('POST', '/users/me/tfa/enable', { password: 'nope' }, { token });
    expect(wrong.status).toBe(401);
    expect(code(wrong)).toBe('INVALID_CREDENTIALS');
    const missing = await t.req('POST', '/users/me/tfa/enable', {}, { token });
    expect(missing.status).toBe(400);
    expect((await run(t.services.database.db, 'select 1 from svc_users where id = $1 and tfa_secret is null', [id])).length).toBe(1);

    const res = await t.req('POST', '/users/me/tfa/enable', { password: 'tfa-password-1' }, { token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['otpauth_url', 'secret']);
    const { secret, otpauth_url } = res.body.data;
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/.*tfa1%40example\.com\?.*secret=/);
    expect(otpauth_url).toContain(`secret=${secret}`);
    const [row] = await run<Record<string, unknown>>(t.services.database.db, 'select tfa_secret, tfa_enabled from svc_users where id = $1', [id]);
    expect(row).toEqual({ tfa_secret: secret, tfa_enabled: true });
    const me = await t.req('GET', '/users/me?fields=tfa_enabled', undefined, { token });
    expect(me.body).toEqual({ data: { tfa_enabled: true } });

    const noOtp = await login({ email: 'tfa1@example.com', password: 'tfa-password-1' });
    expect(noOtp.status).toBe(401);
    expect(code(noOtp)).toBe('INVALID_OTP');
    const wrongOtp = await login({ email: 'tfa1@example.com', password: 'tfa-password-1', otp: '000000' });
    expect(wrongOtp.status).toBe(401);
    expect(code(wrongOtp)).toBe('INVALID_OTP');
    // Each code works once (issue 24): the three uses below take the previous, current and next step's code.
    expect((await login({ email: 'tfa1@example.com', password: 'tfa-password-1', otp: await generate({ secret, epoch: Date.now() / 1000 - 30 }) })).status).toBe(200);

    // Enabling again, either way, is refused and keeps the secret.
    expect(code(await t.req('POST', '/users/me/tfa/enable', { password: 'tfa-password-1' }, { token }))).toBe('INVALID_PAYLOAD');
    expect(code(await t.req('POST', '/users/me/tfa/generate', { password: 'tfa-password-1' }, { token }))).toBe('INVALID_PAYLOAD');
    const [still] = await run<Record<string, unknown>>(t.services.database.db, 'select tfa_secret from svc_users where id = $1', [id]);
    expect(still.tfa_secret).toBe(secret);

    // Changing the password now needs the code too.
    const pw = await t.req('PATCH', '/users/me', { password: 'tfa-password-2', current_password: 'tfa-password-1' }, { token });
    expect(pw.status).toBe(401);
    expect(code(pw)).toBe('INVALID_OTP');
    const pwOk = await t.req('PATCH', '/users/me', { password: 'tfa-password-2', current_password: 'tfa-password-1', otp: await generate({ secret }) }, { token });
    expect(pwOk.status).toBe(200);

    // Disable needs a valid code.
    const badDisable = await t.req('POST', '/users/me/tfa/disable', { otp: '123456' }, { token });
    expect(badDisable.status).toBe(401);
    expect(code(badDisable)).toBe('INVALID_OTP');
    expect(code(await t.req('POST', '/users/me/tfa/disable', {}, { token }))).toBe('INVALID_OTP');
    expect((await t.req('POST', '/users/me/tfa/disable', { otp: await generate({ secret, epoch: Date.now() / 1000 + 30 }) }, { token })).status).toBe(204);
    expect((await login({ email: 'tfa1@example.com', password: 'tfa-password-2' })).status).toBe(200);
  });

  it("Directus' confirm-first flow: /tfa/generate changes nothing; enable {secret, otp} turns it on only with a valid code", async () => {
    const { id, token } = await userWithToken('tfa2@example.com');
    const gen = await t.req('POST', '/users/me/tfa/generate', { password: 'tfa-password-1' }, { token });
    expect(gen.status).toBe(200);
    expect(Object.keys(gen.body.data).sort()).toEqual(['otpauth_url', 'secret']);
    const { secret } = gen.body.data;
    expect((await login({ email: 'tfa2@example.com', password: 'tfa-password-1' })).status).toBe(200);

    const bad = await t.req('POST', '/users/me/tfa/enable', { secret, otp: '000000' }, { token });
    expect(bad.status).toBe(401);
    expect(code(bad)).toBe('INVALID_OTP');
    expect((await login({ email: 'tfa2@example.com', password: 'tfa-password-1' })).status).toBe(200);
    expect((await run(t.services.database.db, 'select 1 from svc_users where id = $1 and tfa_secret is null and not tfa_enabled', [id])).length).toBe(1);

    const ok = await t.req('POST', '/users/me/tfa/enable', { secret, otp: await generate({ secret }) }, { token });
    expect(ok.status).toBe(204);
    expect(code(await login({ email: 'tfa2@example.com', password: 'tfa-password-1' }))).toBe('INVALID_OTP');
    expect(code(await login({ email: 'tfa2@example.com', password: 'tfa-password-1', otp: '111111' }))).toBe('INVALID_OTP');
    // The code that confirmed is spent (issue 24): the next step's code logs in.
    expect((await login({ email: 'tfa2@example.com', password: 'tfa-password-1', otp: await generate({ secret, epoch: Date.now() / 1000 + 30 }) })).status).toBe(200);
  });

  it('enable {otp} confirms the pending secret from /tfa/generate', async () => {
    const { token } = await userWithToken('tfa4@example.com');
    const { secret } = (await t.req('POST', '/users/me/tfa/generate', { password: 'tfa-password-1' }, { token })).body.data;
    expect((await t.req('POST', '/users/me/tfa/enable', { otp: await generate({ secret }) }, { token })).status).toBe(204);
    expect(code(await login({ email: 'tfa4@example.com', password: 'tfa-password-1' }))).toBe('INVALID_OTP');
  });

  it('admins disable a user\'s two-factor without a code; others get 403', async () => {
    const { id, token } = await userWithToken('tfa3@example.com');
    expect((await t.req('POST', '/users/me/tfa/enable', { password: 'tfa-password-1' }, { token })).status).toBe(200);
    expect(code(await login({ email: 'tfa3@example.com', password: 'tfa-password-1' }))).toBe('INVALID_OTP');
    expect((await t.req('POST', `/users/${id}/tfa/disable`, undefined, { token })).status).toBe(403);
    expect((await t.req('POST', `/users/${id}/tfa/disable`)).status).toBe(204);
    expect((await login({ email: 'tfa3@example.com', password: 'tfa-password-1' })).status).toBe(200);
  });

  it('anonymous callers get 401 INVALID_CREDENTIALS', async () => {
    const res = await t.req('POST', '/users/me/tfa/enable', { password: 'x' }, { token: null });
    expect(res.status).toBe(401);
    expect(code(res)).toBe('INVALID_CREDENTIALS');
  });
});
