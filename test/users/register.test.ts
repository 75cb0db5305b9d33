import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';

let t: TestApp;
let smtp: TestSmtp;
let role: string;
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const anon = (path: string, body: unknown) => t.req('POST', path, body, { token: null });
const q = (sql: string, params: unknown[] = []) => run<Record<string, any>>(t.services.database.db, sql, params);
const settings = (values: string) => q(`update svc_settings set ${values}`);

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ env: { ...smtp.env, RATE_LIMITER_ENABLED: 'false', PUBLIC_URL: 'https://cms.example.com' } });
  ({ role } = await createPrincipal(t.services, { token: 'reg-plain', permissions: [] }));
});
afterAll(async () => { await t.close(); await smtp.close(); });

describe('POST /users/register', () => {
  it('is 403 FORBIDDEN while public registration is off', async () => {
    const res = await anon('/users/register', { email: 'off@example.com', password: 'reg-password-1' });
    expect(res.status).toBe(403);
    expect(code(res)).toBe('FORBIDDEN');
    expect(await q("select 1 from svc_users where email = 'off@example.com'")).toHaveLength(0);
  });

  it('with verification: creates an unverified user with the registration role, mails a link that activates', async () => {
    await settings(`public_registration = true, public_registration_verify_email = true, public_registration_role = '${role}'`);
    const res = await anon('/users/register', { email: 'v@example.com', password: 'reg-password-1', first_name: 'Vee' });
    expect(res.status).toBe(204);
    const [user] = await q("select role, status, first_name from svc_users where email = 'v@example.com'");
    expect(user).toEqual({ role, status: 'unverified', first_name: 'Vee' });
    expect((await anon('/auth/login', { email: 'v@example.com', password: 'reg-password-1' })).status).toBe(401);

    const mail = await smtp.next('v@example.com');
    const link = smtp.linkOf(mail);
    expect(link).toMatch(/^https:\/\/cms\.example\.com\/users\/register\/verify-email\?token=/);
    const token = smtp.tokenOf(mail);
    const verify = await t.req('GET', `/users/register/verify-email?token=${encodeURIComponent(token)}`, undefined, { token: null });
    expect(verify.status).toBe(204);
    expect((await anon('/auth/login', { email: 'v@example.com', password: 'reg-password-1' })).status).toBe(200);
    const again = await t.req('GET', `/users/register/verify-email?token=${encodeURIComponent(token)}`, undefined, { token: null });
    expect(again.status).toBe(400);
    const bad = await t.req('GET', '/users/register/verify-email?token=nope', undefined, { token: null });
    expect(bad.status).toBe(401);
    expect(code(bad)).toBe('INVALID_TOKEN');
  });

  it('an email already taken gets the same 204 and changes nothing', async () => {
    const res = await anon('/users/register', { email: 'reg-plain@example.com', password: 'reg-password-1' });
    expect(res.status).toBe(204);
    const rows = await q("select status, password from svc_users where email = 'reg-plain@example.com'");
    expect(rows).toEqual([{ status: 'active', password: null }]);
  });

  it('without verification the user is active at once', async () => {
    await settings('public_registration_verify_email = false');
    expect((await anon('/users/register', { email: 'now@example.com', password: 'reg-password-1' })).status).toBe(204);
    expect((await anon('/auth/login', { email: 'now@example.com', password: 'reg-password-1' })).status).toBe(200);
  });

  it('the email filter: an array of domains or a Directus filter object', async () => {
    await settings(`public_registration_email_filter = '["allowed.org"]'`);
    expect((await anon('/users/register', { email: 'x@other.org', password: 'reg-password-1' })).status).toBe(403);
    expect((await anon('/users/register', { email: 'x@allowed.org', password: 'reg-password-1' })).status).toBe(204);
    await settings(`public_registration_email_filter = '{"_and":[{"email":{"_ends_with":"@corp.example"}}]}'`);
    expect((await anon('/users/register', { email: 'y@other.org', password: 'reg-password-1' })).status).toBe(403);
    expect((await anon('/users/register', { email: 'y@corp.example', password: 'reg-password-1' })).status).toBe(204);
    expect(await q("select 1 from svc_users where email in ('x@other.org', 'y@other.org')")).toHaveLength(0);
    await settings('public_registration_email_filter = null');
  });

  it('validates the body and the password policy', async () => {
    expect(code(await anon('/users/register', { password: 'reg-password-1' }))).toBe('INVALID_PAYLOAD');
    expect(code(await anon('/users/register', { email: 'z@example.com' }))).toBe('INVALID_PAYLOAD');
    expect(code(await anon('/users/register', { email: 'z@example.com', password: 'reg-password-1', verification_url: 'https://evil.example.net' }))).toBe('INVALID_PAYLOAD');
    await settings("auth_password_policy = '/^.{30,}$/'");
    const res = await anon('/users/register', { email: 'z@example.com', password: 'reg-password-1' });
    await settings('auth_password_policy = null');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe("Provided password doesn't match password policy");
    expect(await q("select 1 from svc_users where email = 'z@example.com'")).toHaveLength(0);
  });
});
