/** Sign-in journeys in a real browser: the public page built from the settings, wrong password, a suspended account,
 * two-factor's second step, the forced password change, an invitation accepted from its mail, a password reset from
 * its mail, last_page restored at the next sign-in, sign out, and a reload (no refresh while the token is good, a
 * refresh first when it is about to run out, the sign-in page when the session is gone). Every screen is checked with
 * axe-core and photographed in light and dark. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from 'otplib';
import type { Browser } from 'playwright-core';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, checkScreen, JOURNEYS, fillSignIn, launchBrowser, newPage, signIn, startStudioServer, type StudioServer } from './harness.ts';

describe.skipIf(!JOURNEYS)('Studio: signing in', () => {
  let server: StudioServer;
  let browser: Browser;
  let smtp: TestSmtp;
  let editorRole: string;

  async function createUser(email: string, password: string, extra: Record<string, unknown> = {}): Promise<string> {
    // A password an admin sets forces a change at the next sign-in unless the admin says otherwise.
    const res = await server.t.req('POST', '/users', { email, password, role: editorRole, require_password_change: false, ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id ?? res.body.data;
  }

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startStudioServer({ env: { ...smtp.env } });
    browser = await launchBrowser();
    const policy = await server.t.req('POST', '/policies', { name: 'Editors', app_access: true, admin_access: false });
    const role = await server.t.req('POST', '/roles', { name: 'Editor', policies: [policy.body.data.id ?? policy.body.data] });
    editorRole = role.body.data.id ?? role.body.data;
    await server.t.req('PATCH', '/settings', { project_name: 'Harbour Press', project_descriptor: 'Newsroom', public_note: 'Staff only. Ask the desk for an account.', project_color: '#0b6e4f' });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
  });

  it('shows the project on the sign-in page, refuses a wrong password with a message, and signs the admin in', async () => {
    const { page, problems, context } = await newPage(browser);
    await page.goto(`${server.url}/admin/`);
    await page.waitForURL(/\/admin\/login/);
    await expect.poll(() => page.getByText('Harbour Press').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByText('Staff only. Ask the desk for an account.').count()).toBe(1);
    await checkScreen(page, 'sign-in');

    await signIn(page, server.url, ADMIN_EMAIL, 'not-the-password');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong email or password');
    await checkScreen(page, 'sign-in-error');

    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/admin\/content/);
    await expect.poll(() => page.getByRole('navigation', { name: 'Modules' }).count()).toBe(1);
    // The session lives in an httpOnly cookie: nothing for a script to steal.
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'directus_session_token' || c.name.endsWith('session_token'));
    expect(session?.httpOnly).toBe(true);
    expect(await page.evaluate(() => document.cookie)).not.toContain('session');
    // Storage holds only when the token runs out (a time, no secret: a reload then skips the refresh).
    const stored = await page.evaluate(() => ({ ...localStorage }));
    expect(Object.keys(stored)).toEqual(['studio.session-expires']);
    expect(stored['studio.session-expires']).toMatch(/^\d+$/);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/admin\/login/);
    const me = await page.evaluate(async () => (await fetch('/users/me')).status);
    expect(me).toBe(401);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).toBe('{}');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('tells a suspended account apart from a wrong password', async () => {
    await createUser('suspended@example.com', 'suspended-pass-1', { status: 'suspended' });
    const { page, context } = await newPage(browser);
    await signIn(page, server.url, 'suspended@example.com', 'suspended-pass-1');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('suspended');
    await context.close();
  });

  it('asks for the one-time code when two-factor is on, and refuses a wrong code', async () => {
    const id = await createUser('tfa@example.com', 'tfa-password-1');
    const login = await server.t.req('POST', '/auth/login', { email: 'tfa@example.com', password: 'tfa-password-1' }, { token: null });
    const token = login.body.data.access_token;
    const gen = await server.t.req('POST', '/users/me/tfa/generate', { password: 'tfa-password-1' }, { token });
    const secret = gen.body.data.secret;
    const on = await server.t.req('POST', '/users/me/tfa/enable', { secret, otp: await generate({ secret }) }, { token });
    expect(on.status, JSON.stringify(on.body)).toBe(204);
    expect(id).toBeTruthy();

    const { page, context, problems } = await newPage(browser, { colorScheme: 'dark' });
    await signIn(page, server.url, 'tfa@example.com', 'tfa-password-1');
    const otp = page.getByLabel('One-time code', { exact: true });
    await otp.waitFor();
    await checkScreen(page, 'sign-in-otp');
    await otp.fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('one-time code is not right');
    // The code that enabled two-factor is spent (no replay): the next window's code, which the server still accepts.
    await otp.fill(await generate({ secret, epoch: Date.now() / 1000 + 30 }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/admin\/content/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('sends a user whose password an admin set to the change screen first, then into the Studio', async () => {
    await createUser('forced@example.com', 'admin-set-pass-1', { require_password_change: true });
    const { page, context } = await newPage(browser);
    await signIn(page, server.url, 'forced@example.com', 'admin-set-pass-1');
    await page.getByRole('heading', { name: 'Choose your own password' }).waitFor();
    await checkScreen(page, 'change-password');
    await page.getByLabel('Current password').fill('admin-set-pass-1');
    await page.getByLabel('New password', { exact: true }).fill('my-own-pass-2');
    await page.getByLabel('Repeat the new password').fill('my-own-pass-3');
    await expect.poll(() => page.getByText('The two passwords differ.').count()).toBe(1);
    await page.getByLabel('Repeat the new password').fill('my-own-pass-2');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(/\/admin\/content/);
    await context.close();
    const again = await server.t.req('POST', '/auth/login', { email: 'forced@example.com', password: 'my-own-pass-2' }, { token: null });
    expect(again.status).toBe(200);
    expect(again.body.data.require_password_change).toBeUndefined();
  });

  it('accepts an invitation from the link in its mail', async () => {
    const invite = await server.t.req('POST', '/users/invite', { email: 'invitee@example.com', role: editorRole });
    expect(invite.status, JSON.stringify(invite.body)).toBe(204);
    const mail = await smtp.next('invitee@example.com');
    const link = smtp.linkOf(mail);
    expect(link.startsWith(`${server.url}/admin/accept-invite?token=`)).toBe(true);
    const { page, context } = await newPage(browser);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
    await checkScreen(page, 'accept-invite');
    await page.getByLabel('New password', { exact: true }).fill('invited-pass-1');
    await page.getByLabel('Repeat the new password').fill('invited-pass-1');
    await page.getByRole('button', { name: 'Set password and continue' }).click();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await signIn(page, server.url, 'invitee@example.com', 'invited-pass-1');
    await page.waitForURL(/\/admin\/content/);
    await context.close();
  });

  it('resets a forgotten password from the link in the reset mail', async () => {
    await createUser('forgetful@example.com', 'forgotten-pass-1');
    const { page, context } = await newPage(browser);
    await page.goto(`${server.url}/admin/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill('forgetful@example.com');
    await page.getByRole('button', { name: 'Send the reset link' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('on its way');
    await checkScreen(page, 'reset-requested');
    const mail = await smtp.next('forgetful@example.com');
    await page.goto(smtp.linkOf(mail));
    await page.getByLabel('New password', { exact: true }).fill('remembered-pass-2');
    await page.getByLabel('Repeat the new password').fill('remembered-pass-2');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Your password is changed');
    await signIn(page, server.url, 'forgetful@example.com', 'remembered-pass-2');
    await page.waitForURL(/\/admin\/content/);
    await context.close();
  });

  it('opens the page the user last had open at the next sign-in, and a deep link after signing in', { timeout: 90_000 }, async () => {
    await createUser('returning@example.com', 'returning-pass-1');
    const { page, context } = await newPage(browser);
    await signIn(page, server.url, 'returning@example.com', 'returning-pass-1');
    await page.waitForURL(/\/admin\/content/);
    await page.getByRole('link', { name: 'Your profile' }).click();
    await page.waitForURL(/\/admin\/profile/);
    await expect.poll(async () => (await server.t.req('GET', '/users?filter[email][_eq]=returning@example.com&fields=last_page')).body.data[0].last_page, { timeout: 10_000 }).toBe('/profile');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/admin\/login/);
    await signIn(page, server.url, 'returning@example.com', 'returning-pass-1');
    await page.waitForURL(/\/admin\/profile/);

    await page.getByRole('button', { name: 'Sign out' }).click();
    // Navigating before the sign-out's request is answered would cancel it and keep the session alive.
    await page.waitForURL(/\/admin\/login/);
    await page.goto(`${server.url}/admin/files`);
    await page.waitForURL(/\/admin\/login\?next=/);
    await fillSignIn(page, 'returning@example.com', 'returning-pass-1');
    await page.waitForURL(/\/admin\/files/);
    await context.close();
  });

  it('reloads a signed-in Studio without refreshing first while the token is good, refreshes first when it is about to run out, and signs out a session ended elsewhere', { timeout: 90_000 }, async () => {
    await createUser('reloading@example.com', 'reloading-pass-1');
    const { page, context, problems } = await newPage(browser);
    await signIn(page, server.url, 'reloading@example.com', 'reloading-pass-1');
    await page.waitForURL(/\/admin\/content$/);
    const modules = page.getByRole('navigation', { name: 'Modules' });
    await modules.waitFor();
    const sent: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (!url.pathname.startsWith('/admin') && (r.method() === 'GET' || url.pathname === '/auth/refresh')) sent.push(`${r.method()} ${url.pathname}`);
    });

    // The token is good: the user, the schema, the permissions and the saved views are asked for together.
    await page.reload();
    await page.getByRole('list', { name: 'All collections' }).or(page.getByRole('heading', { name: 'No collections yet' })).waitFor();
    const together = ['GET /users/me', 'GET /collections', 'GET /fields', 'GET /relations', 'GET /permissions/me', 'GET /policies/me/globals', 'GET /presets'];
    await expect.poll(() => together.every((r) => sent.includes(r))).toBe(true);
    expect(sent).not.toContain('POST /auth/refresh');

    // Five seconds left on the token: a refresh first (it extends the session too), then the user.
    sent.length = 0;
    await page.evaluate(() => localStorage.setItem('studio.session-expires', String(Date.now() + 5_000)));
    await page.reload();
    await modules.waitFor();
    await expect.poll(() => sent.includes('GET /users/me')).toBe(true);
    expect(sent.indexOf('POST /auth/refresh')).toBeGreaterThanOrEqual(0);
    expect(sent.indexOf('POST /auth/refresh')).toBeLessThan(sent.indexOf('GET /users/me'));
    expect(Number(await page.evaluate(() => localStorage.getItem('studio.session-expires')))).toBeGreaterThan(Date.now() + 60_000);

    // The session ended elsewhere (its cookie gone) while this browser still counts on it: the sign-in page.
    await context.clearCookies();
    await page.reload();
    await page.waitForURL(/\/admin\/login/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => JSON.stringify(localStorage))).toBe('{}');
    expect(problems).toEqual([]);
    await context.close();
  });
});
