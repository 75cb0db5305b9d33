import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';

let t: TestApp;
let smtp: TestSmtp;
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const anon = (path: string, body: unknown) => t.req('POST', path, body, { token: null });

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ env: { ...smtp.env, RATE_LIMITER_ENABLED: 'false', PUBLIC_URL: 'https://cms.example.com', PASSWORD_RESET_URL_ALLOW_LIST: 'https://app.example.com/reset' } });
  const res = await t.req('POST', '/users', { email: 'reset-me@example.com', password: 'old-password-1', require_password_change: true });
  expect(res.status).toBe(200);
});
afterAll(async () => { await t.close(); await smtp.close(); });

describe('password reset', () => {
  it('request is 204 and mails a token; reset sets the password once', async () => {
    expect((await anon('/auth/password/request', { email: 'Reset-Me@example.com' })).status).toBe(204);
    const mail = await smtp.next('reset-me@example.com');
    expect(mail.subject).toBe('Password Reset Request');
    expect(smtp.linkOf(mail)).toMatch(/^https:\/\/cms\.example\.com\/admin\/reset-password\?token=/);
    const token = smtp.tokenOf(mail);

    const res = await anon('/auth/password/reset', { token, password: 'new-password-1' });
    expect(res.status).toBe(204);
    expect((await anon('/auth/login', { email: 'reset-me@example.com', password: 'new-password-1' })).status).toBe(200);
    expect((await anon('/auth/login', { email: 'reset-me@example.com', password: 'old-password-1' })).status).toBe(401);
    const [row] = await run<{ require_password_change: boolean }>(t.services.database.db, "select require_password_change from svc_users where email = 'reset-me@example.com'");
    expect(row.require_password_change).toBe(false);

    const reused = await anon('/auth/password/reset', { token, password: 'third-password-1' });
    expect(reused.status).toBe(401);
    expect(code(reused)).toBe('INVALID_TOKEN');
    expect((await anon('/auth/login', { email: 'reset-me@example.com', password: 'new-password-1' })).status).toBe(200);
  });

  it('an unknown email is 204 as well and sends nothing', async () => {
    const before = smtp.messages.length;
    expect((await anon('/auth/password/request', { email: 'nobody@example.com' })).status).toBe(204);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.length).toBe(before);
  });

  it('reset_url must be allowed; missing or bad values are 400', async () => {
    expect((await anon('/auth/password/request', { email: 'reset-me@example.com', reset_url: 'https://app.example.com/reset' })).status).toBe(204);
    expect(smtp.linkOf(await smtp.next('reset-me@example.com'))).toMatch(/^https:\/\/app\.example\.com\/reset\?token=/);
    const evil = await anon('/auth/password/request', { email: 'reset-me@example.com', reset_url: 'https://evil.example.net/' });
    expect(evil.status).toBe(400);
    expect(code(evil)).toBe('INVALID_PAYLOAD');
    expect(code(await anon('/auth/password/request', {}))).toBe('INVALID_PAYLOAD');
    expect(code(await anon('/auth/password/request', { email: 'not-mail' }))).toBe('INVALID_PAYLOAD');
    expect(code(await anon('/auth/password/reset', { password: 'x' }))).toBe('INVALID_PAYLOAD');
    const garbage = await anon('/auth/password/reset', { token: 'a.b.c', password: 'new-password-9' });
    expect(garbage.status).toBe(401);
    expect(code(garbage)).toBe('INVALID_TOKEN');
  });

  it('the password policy applies to reset', async () => {
    await anon('/auth/password/request', { email: 'reset-me@example.com' });
    const token = smtp.tokenOf(await smtp.next('reset-me@example.com'));
    await run(t.services.database.db, "update svc_settings set auth_password_policy = '/^.{40,}$/'");
    const res = await anon('/auth/password/reset', { token, password: 'short-password-1' });
    await run(t.services.database.db, 'update svc_settings set auth_password_policy = null');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe("Provided password doesn't match password policy");
  });

  it('suspended users get no mail', async () => {
    await run(t.services.database.db, "update svc_users set status = 'suspended' where email = 'reset-me@example.com'");
    const before = smtp.messages.length;
    expect((await anon('/auth/password/request', { email: 'reset-me@example.com' })).status).toBe(204);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.length).toBe(before);
  });
});
