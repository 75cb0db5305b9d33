/** Issue 24 point 9: logout ends the whole rotation chain of a refresh token. A rotated-away token stays usable
 * for a grace period (concurrent tabs); after a logout neither it nor its successors may refresh. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/template.ts';

let t: TestApp;
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const anon = { token: null } as const;

async function login(): Promise<string> {
  const res = await t.req('POST', '/auth/login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, anon);
  expect(res.status).toBe(200);
  return res.body.data.refresh_token;
}
async function rotate(token: string): Promise<string> {
  const res = await t.req('POST', '/auth/refresh', { refresh_token: token }, anon);
  expect(res.status).toBe(200);
  return res.body.data.refresh_token;
}
const refresh = (token: string) => t.req('POST', '/auth/refresh', { refresh_token: token }, anon);
const logout = (token: string) => t.req('POST', '/auth/logout', { refresh_token: token }, anon);

async function expectRevoked(token: string) {
  const res = await refresh(token);
  expect({ status: res.status, code: code(res) }).toEqual({ status: 401, code: 'TOKEN_REVOKED' });
}

beforeAll(async () => { t = await createTestApp({ env: { RATE_LIMITER_ENABLED: 'false' } }); });
afterAll(async () => { await t.close(); });

describe('POST /auth/logout revokes the refresh-token family', () => {
  const cases: { name: string; chain: number; logoutAt: number }[] = [
    { name: 'logout with the newest token: the rotated-away one no longer refreshes', chain: 2, logoutAt: 1 },
    { name: 'logout with the rotated-away token: its successor ends too', chain: 2, logoutAt: 0 },
    { name: 'logout in the middle of a chain of three: both ends go', chain: 3, logoutAt: 1 },
  ];

  it.each(cases)('$name', async ({ chain, logoutAt }) => {
    const tokens = [await login()];
    while (tokens.length < chain) tokens.push(await rotate(tokens[tokens.length - 1]));
    const unrelated = await login();
    expect((await logout(tokens[logoutAt])).status).toBe(204);
    for (const token of tokens) await expectRevoked(token);
    // Other sessions of the same user are not part of the family.
    expect((await refresh(unrelated)).status).toBe(200);
  });

  it('a second logout with any token of the family passes silently', async () => {
    const first = await login();
    const second = await rotate(first);
    expect((await logout(second)).status).toBe(204);
    expect((await logout(first)).status).toBe(204);
    await expectRevoked(first);
  });
});
