/** Issue 24 point 9: settings.auth_login_attempts failures in a row lock the account for AUTH_LOCKOUT_COOLDOWN
 * (not a suspension for good) and notify the administrators in-app; wrong current_password guesses count. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { hashPassword } from '../../core/auth/passwords.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

let t: TestApp;
const PASSWORD = 'lock-password-1';
const LIMIT = 3;
const COOLDOWN_MS = 1500;
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const sql = <T = Record<string, any>>(text: string, params: unknown[] = []) => run<T>(t.services.database.db, text, params);
const login = (email: string, password: string) => t.req('POST', '/auth/login', { email, password }, { token: null });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let adminId: string;

async function addUser() {
  const id = randomUUID();
  const email = `lock-${id.slice(0, 8)}@example.com`;
  await sql(`insert into svc_users (id, email, password, status, token) values ($1, $2, $3, 'active', $4)`,
    [id, email, await hashPassword(PASSWORD), `lock-static-${id}`]);
  await t.services.schema.invalidate();
  return { id, email, token: `lock-static-${id}` };
}

const notices = (item: string) => sql<{ recipient: string; subject: string; message: string }>(
  "select recipient, subject, message from svc_notifications where collection = 'svc_users' and item = $1 order by id", [item]);

async function expectLocked(email: string) {
  for (const password of [PASSWORD, 'wrong-while-locked']) {
    const res = await login(email, password);
    expect({ status: res.status, code: code(res) }).toEqual({ status: 403, code: 'USER_SUSPENDED' });
    expect(res.body.errors[0].message).toMatch(/^Too many failed login attempts: the account is locked until \d{4}-\d\d-\d\dT/);
  }
}

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMITER_ENABLED: 'false', AUTH_LOCKOUT_COOLDOWN: `${COOLDOWN_MS}ms` } });
  await sql('update svc_settings set auth_login_attempts = $1', [LIMIT]);
  [{ id: adminId }] = await sql<{ id: string }>('select id from svc_users where token = $1', [ADMIN_TOKEN]);
});
afterAll(async () => { await t.close(); });

describe('lockout with a cooldown', () => {
  it('locks at the limit, answers 403 whatever the password, keeps the status, and opens after the cooldown', async () => {
    const u = await addUser();
    for (let i = 0; i < LIMIT; i++) expect(code(await login(u.email, `wrong-${i}`))).toBe('INVALID_CREDENTIALS');
    await expectLocked(u.email);
    expect((await sql('select status from svc_users where id = $1', [u.id]))[0].status).toBe('active');
    await sleep(COOLDOWN_MS + 200);
    expect((await login(u.email, PASSWORD)).status).toBe(200);
  });

  it('counts from zero after the cooldown', async () => {
    const u = await addUser();
    for (let i = 0; i < LIMIT; i++) await login(u.email, 'wrong');
    await sleep(COOLDOWN_MS + 200);
    for (let i = 0; i < LIMIT - 1; i++) expect(code(await login(u.email, 'wrong'))).toBe('INVALID_CREDENTIALS');
    expect((await login(u.email, PASSWORD)).status).toBe(200);
  });

  it('notifies every administrator in-app, once per lock', async () => {
    const u = await addUser();
    await Promise.all(Array.from({ length: LIMIT + 3 }, (_, i) => login(u.email, `guess-${i}`)));
    await expectLocked(u.email);
    const rows = await notices(u.id);
    expect(rows).toEqual([{
      recipient: adminId,
      subject: `Account locked after ${LIMIT} failed login attempts`,
      message: expect.stringContaining(`${u.email} is locked until `),
    }]);
    const inbox = await t.req('GET', `/notifications?filter[item][_eq]=${u.id}&fields=subject`, undefined, { token: ADMIN_TOKEN });
    expect(inbox.body.data).toEqual([{ subject: `Account locked after ${LIMIT} failed login attempts` }]);
  });

  it('an unknown email locks the same way (a lock does not tell that an account exists)', async () => {
    const email = `nobody-${randomUUID().slice(0, 8)}@example.com`;
    for (let i = 0; i < LIMIT; i++) expect(code(await login(email, 'wrong'))).toBe('INVALID_CREDENTIALS');
    await expectLocked(email);
  });
});

describe('guesses of the current password count towards the lockout', () => {
  const guesses: Record<string, (u: Awaited<ReturnType<typeof addUser>>) => Promise<{ status: number; body: any }>> = {
    'PATCH /users/me current_password': (u) => t.req('PATCH', '/users/me', { password: 'new-password-9', current_password: 'guess' }, { token: u.token }),
    'POST /users/me/tfa/generate password': (u) => t.req('POST', '/users/me/tfa/generate', { password: 'guess' }, { token: u.token }),
    'POST /users/me/tfa/enable password': (u) => t.req('POST', '/users/me/tfa/enable', { password: 'guess' }, { token: u.token }),
  };

  it.each(Object.keys(guesses))('%s: wrong guesses lock the login; then the right one proves nothing', async (name) => {
    const u = await addUser();
    expect(code(await login(u.email, 'wrong-login'))).toBe('INVALID_CREDENTIALS');
    for (let i = 0; i < LIMIT - 1; i++) expect(code(await guesses[name](u))).toBe('INVALID_CREDENTIALS');
    await expectLocked(u.email);
    const right = await t.req('PATCH', '/users/me', { password: 'new-password-9', current_password: PASSWORD }, { token: u.token });
    expect({ status: right.status, code: code(right) }).toEqual({ status: 403, code: 'USER_SUSPENDED' });
    expect(await notices(u.id)).toHaveLength(1);
  });
});
