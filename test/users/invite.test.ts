import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';

let t: TestApp;
let smtp: TestSmtp;
let role: string;
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const q = (sql: string, params: unknown[] = []) => run<Record<string, any>>(t.services.database.db, sql, params);

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ env: { ...smtp.env, RATE_LIMITER_ENABLED: 'false', PUBLIC_URL: 'https://cms.example.com', USER_INVITE_URL_ALLOW_LIST: 'https://app.example.com/join' } });
  ({ role } = await createPrincipal(t.services, { token: 'invite-plain', permissions: [] }));
});
afterAll(async () => { await t.close(); await smtp.close(); });

describe('POST /users/invite', () => {
  it('creates an invited user and mails a link with a signed invite token; accept activates', async () => {
    const res = await t.req('POST', '/users/invite', { email: 'new@example.com', role });
    expect(res.status).toBe(204);
    const [user] = await q("select role, status, password from svc_users where email = 'new@example.com'");
    expect(user).toEqual({ role, status: 'invited', password: null });
    const mail = await smtp.next('new@example.com');
    expect(mail.from).toBe('svc@example.com');
    expect(mail.subject).toBe("You've been invited");
    expect(smtp.linkOf(mail).startsWith('https://cms.example.com/admin/accept-invite?token=')).toBe(true);
    const token = smtp.tokenOf(mail);
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims.email).toBe('new@example.com');
    expect(claims.scope).toBe('invite');
    expect(claims.exp - claims.iat).toBe(7 * 24 * 3600);

    // An invited user cannot log in yet.
    expect((await t.req('POST', '/auth/login', { email: 'new@example.com', password: 'whatever-1' }, { token: null })).status).toBe(401);
    const accept = await t.req('POST', '/users/invite/accept', { token, password: 'chosen-password-1' }, { token: null });
    expect(accept.status).toBe(204);
    const [after] = await q("select status, require_password_change from svc_users where email = 'new@example.com'");
    expect(after).toEqual({ status: 'active', require_password_change: false });
    expect((await t.req('POST', '/auth/login', { email: 'new@example.com', password: 'chosen-password-1' }, { token: null })).status).toBe(200);
    // Accepting twice: the user is no longer invited.
    const again = await t.req('POST', '/users/invite/accept', { token, password: 'chosen-password-2' }, { token: null });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toEqual({ message: "Email address new@example.com hasn't been invited.", extensions: { code: 'INVALID_PAYLOAD' } });
  });

  it('invites several emails, re-sends to invited users and skips active ones', async () => {
    const res = await t.req('POST', '/users/invite', { email: ['a@example.com', 'b@example.com', 'invite-plain@example.com'], role });
    expect(res.status).toBe(204);
    await smtp.next('a@example.com');
    await smtp.next('b@example.com');
    expect((await t.req('POST', '/users/invite', { email: 'a@example.com', role })).status).toBe(204);
    await smtp.next('a@example.com');
    expect(smtp.messages.some((m) => m.to.includes('invite-plain@example.com'))).toBe(false);
    expect(await q("select 1 from svc_users where email = 'a@example.com'")).toHaveLength(1);
  });

  it('does not depend on the mail server: a refused mail is a log the worker retries, the others go out', async () => {
    const refused = await t.req('POST', '/users/invite', { email: ['fine@example.com', 'refused@example.com'], role });
    expect(refused.status).toBe(204);
    expect(await q("select 1 from svc_users where email in ('fine@example.com', 'refused@example.com') and status = 'invited'")).toHaveLength(2);
    const sent = await smtp.next('fine@example.com');
    expect(smtp.linkOf(sent)).toMatch(/accept-invite\?token=/);
    // The refused one stays in the outbox: back to pending with an error and a next attempt (retried, visible in /notify/logs).
    for (let i = 0; i < 100; i++) {
      const [log] = await q("select status, attempts, error_message from svc_notify_logs where recipients::text like '%refused@example.com%'");
      if (log?.attempts >= 1 && log.status === 'pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const [log] = await q("select status, attempts, error_message, template_id, channel from svc_notify_logs where recipients::text like '%refused@example.com%'");
    expect(log).toMatchObject({ status: 'pending', attempts: 1, template_id: null, channel: 'email' });
    expect(log.error_message).toMatch(/550|recipients were rejected/);
  });

  it('answers 204 when no mail server is reachable: the invitation waits in the outbox', async () => {
    // Nothing listens on port 9 of this machine.
    const unreachable = await createTestApp({ env: { ...smtp.env, EMAIL_SMTP_PORT: '9' } });
    try {
      const [{ id: someRole }] = await run<{ id: string }>(unreachable.services.database.db, 'select id from svc_roles limit 1');
      const res = await unreachable.req('POST', '/users/invite', { email: 'nomail@example.com', role: someRole });
      expect(res.status).toBe(204);
      expect(await run(unreachable.services.database.db, "select 1 from svc_users where email = 'nomail@example.com'")).toHaveLength(1);
      const [log] = await run<Record<string, any>>(unreachable.services.database.db, "select status, metadata from svc_notify_logs where recipients::text like '%nomail@example.com%'");
      expect(['pending', 'sending']).toContain(log.status);
      expect(log.metadata).toEqual({ kind: 'invite' });
    } finally {
      await unreachable.close();
    }
  });

  it('uses an allowed invite_url and refuses any other', async () => {
    const ok = await t.req('POST', '/users/invite', { email: 'c@example.com', role, invite_url: 'https://app.example.com/join' });
    expect(ok.status).toBe(204);
    expect(smtp.linkOf(await smtp.next('c@example.com'))).toMatch(/^https:\/\/app\.example\.com\/join\?token=/);
    const evil = await t.req('POST', '/users/invite', { email: 'd@example.com', role, invite_url: 'https://evil.example.net/' });
    expect(evil.status).toBe(400);
    expect(evil.body.errors[0]).toEqual({ message: 'URL "https://evil.example.net/" can\'t be used to invite users.', extensions: { code: 'INVALID_PAYLOAD' } });
    expect(await q("select 1 from svc_users where email = 'd@example.com'")).toHaveLength(0);
  });

  it('validates the body and is admin only', async () => {
    expect(code(await t.req('POST', '/users/invite', { role }))).toBe('INVALID_PAYLOAD');
    expect(code(await t.req('POST', '/users/invite', { email: 'nope', role }))).toBe('INVALID_PAYLOAD');
    expect(code(await t.req('POST', '/users/invite', { email: 'e@example.com' }))).toBe('INVALID_PAYLOAD');
    expect(code(await t.req('POST', '/users/invite', { email: 'e@example.com', role: '00000000-0000-0000-0000-000000000000' }))).toBe('INVALID_PAYLOAD');
    const plain = await t.req('POST', '/users/invite', { email: 'e@example.com', role }, { token: 'invite-plain' });
    expect(plain.status).toBe(403);
    expect((await t.req('POST', '/users/invite', { email: 'e@example.com', role }, { token: null })).status).toBe(403);
    expect(await q("select 1 from svc_users where email = 'e@example.com'")).toHaveLength(0);
  });
});

describe('POST /users/invite/accept', () => {
  const secret = new TextEncoder().encode('test-secret-test-secret-test-secret');
  const forge = (claims: Record<string, unknown>, exp: number, key = secret) => new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' }).setIssuer('svc').setIssuedAt().setExpirationTime(exp).sign(key);

  it('expired -> 401 TOKEN_EXPIRED; forged, wrong scope or garbage -> 401 INVALID_TOKEN; missing values -> 400', async () => {
    await t.req('POST', '/users/invite', { email: 'late@example.com', role });
    const expired = await forge({ email: 'late@example.com', scope: 'invite' }, Math.floor(Date.now() / 1000) - 10);
    const res = await t.req('POST', '/users/invite/accept', { token: expired, password: 'pw-password-1' }, { token: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ errors: [{ message: 'Token expired.', extensions: { code: 'TOKEN_EXPIRED' } }] });
    const wrongKey = await forge({ email: 'late@example.com', scope: 'invite' }, Math.floor(Date.now() / 1000) + 60, new TextEncoder().encode('another-secret-another-secret-xx'));
    const wrongScope = await forge({ email: 'late@example.com', scope: 'password-reset' }, Math.floor(Date.now() / 1000) + 60);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ email: 'late@example.com', scope: 'invite', iss: 'svc', exp: 9999999999 })).toString('base64url')}.`;
    for (const token of [wrongKey, wrongScope, none, 'garbage']) {
      const r = await t.req('POST', '/users/invite/accept', { token, password: 'pw-password-1' }, { token: null });
      expect(r.status).toBe(401);
      expect(code(r)).toBe('INVALID_TOKEN');
    }
    expect(code(await t.req('POST', '/users/invite/accept', { password: 'x' }, { token: null }))).toBe('INVALID_PAYLOAD');
    expect(code(await t.req('POST', '/users/invite/accept', { token: expired }, { token: null }))).toBe('INVALID_PAYLOAD');
    const [user] = await q("select status, password from svc_users where email = 'late@example.com'");
    expect(user).toEqual({ status: 'invited', password: null });
  });

  it('enforces the password policy', async () => {
    await t.req('POST', '/users/invite', { email: 'policy@example.com', role });
    const token = smtp.tokenOf(await smtp.next('policy@example.com'));
    await q("update svc_settings set auth_password_policy = '/^.{20,}$/'");
    const res = await t.req('POST', '/users/invite/accept', { token, password: 'too-short' }, { token: null });
    await q('update svc_settings set auth_password_policy = null');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe("Provided password doesn't match password policy");
    const [user] = await q("select status from svc_users where email = 'policy@example.com'");
    expect(user.status).toBe('invited');
  });
});
