/** The user's own profile in a real browser: name, avatar (picked in the file picker by keyboard) and appearance
 * (dark applies across the Studio at once), field errors that keep what was typed, the password change,
 * two-factor set-up from the secret on the page (then signing out and in with a code, and turning it off), and a
 * static token used against the API, then removed. Every screen is checked with axe-core and photographed. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { checkScreen, fillSignIn, JOURNEYS, launchBrowser, newPage, signIn, startStudioServer, type StudioServer } from './harness.ts';

const EMAIL = 'ada@example.com';
const PASSWORD = 'first-pass-word-1';
const NEW_PASSWORD = 'second-pass-word-2';

describe.skipIf(!JOURNEYS)('Studio: your profile', () => {
  let server: StudioServer;
  let browser: Browser;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'studio-profile-'));
    server = await startStudioServer({ env: { STORAGE_LOCAL_ROOT: root } });
    browser = await launchBrowser();
    // The journey's own admin account: its password change and two-factor leave the harness's admin alone.
    const policy = await server.t.req('POST', '/policies', { name: 'Desk admins', app_access: true, admin_access: true });
    const role = await server.t.req('POST', '/roles', { name: 'Desk admin', policies: [policy.body.data.id ?? policy.body.data] });
    const user = await server.t.req('POST', '/users', { email: EMAIL, password: PASSWORD, role: role.body.data.id ?? role.body.data, require_password_change: false });
    expect(user.status, JSON.stringify(user.body)).toBe(200);
    const other = await server.t.req('POST', '/users', { email: 'taken@example.com', password: 'other-pass-word-1', role: role.body.data.id ?? role.body.data });
    expect(other.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  async function me(token?: string): Promise<Record<string, any>> {
    const login = token ? null : await server.t.req('POST', '/auth/login', { email: EMAIL, password: currentPassword }, { token: null });
    const res = await server.t.req('GET', '/users/me?fields=*', undefined, { token: token ?? login!.body.data.access_token });
    return res.body.data;
  }
  let currentPassword = PASSWORD;

  /** A code of the current, previous or next 30-second window that was not spent yet (the server refuses replays). */
  const spent = new Set<string>();
  async function freshCode(secret: string): Promise<string> {
    for (const offset of [0, 30, -30]) {
      const code = await generate({ secret, epoch: Date.now() / 1000 + offset });
      if (!spent.has(code)) {
        spent.add(code);
        return code;
      }
    }
    throw new Error('no unspent code');
  }

  const theme = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme);

  it('edits the profile, changes the password, sets up and removes two-factor, and makes a static token', async () => {
    const { page, problems, context } = await newPage(browser);
    await signIn(page, server.url, EMAIL, PASSWORD);
    await expect.poll(() => page.getByRole('navigation', { name: 'Modules' }).count()).toBe(1);
    // An image in the library to pick as the avatar.
    const avatarPng = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#7a4df0' } }).png().toBuffer();
    const uploaded = await page.evaluate(async (b64) => {
      const form = new FormData();
      form.append('title', 'Portrait');
      form.append('file', new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'portrait.png', { type: 'image/png' }));
      const res = await fetch('/files', { method: 'POST', body: form });
      return ((await res.json()) as { data: { id: string } }).data.id;
    }, avatarPng.toString('base64'));

    await page.getByRole('link', { name: 'Your profile' }).click();
    await page.waitForURL(/\/admin\/profile/);
    await expect.poll(() => page.getByRole('heading', { name: 'Your profile', level: 1 }).count()).toBe(1);
    expect(await theme(page)).toBe('light');
    await checkScreen(page, 'profile');

    // Name, avatar (picked by keyboard in the picker) and the dark appearance, saved together.
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByRole('button', { name: 'Choose an avatar…' }).click();
    const picker = page.getByRole('dialog', { name: 'Choose an image' });
    await expect.poll(() => picker.getByRole('option').count()).toBe(1);
    await checkScreen(page, 'profile-avatar-picker');
    await picker.getByRole('listbox').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => picker.isVisible()).toBe(false);
    await expect.poll(() => page.getByRole('img', { name: 'Your avatar' }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    await page.getByRole('radio', { name: 'Dark' }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    await expect.poll(() => theme(page)).toBe('dark');
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(18, 21, 27)');
    await expect.poll(() => page.getByText('Ada Lovelace ·').count()).toBe(1);
    const saved = await me();
    expect(saved).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', appearance: 'dark', avatar: uploaded });
    // Across the app, and after a reload.
    await page.getByRole('link', { name: 'File library' }).click();
    await page.waitForURL(/\/admin\/files/);
    expect(await theme(page)).toBe('dark');
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'All files', level: 1 }).count()).toBe(1);
    expect(await theme(page)).toBe('dark');
    await page.getByRole('link', { name: 'Your profile' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Your profile', level: 1 }).count()).toBe(1);

    // Errors on their fields; what was typed stays.
    await page.getByLabel('First name').fill('Augusta');
    await page.getByLabel('Email').fill('not-an-address');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Email').fill('taken@example.com');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByText('Another account uses this email address.').count()).toBe(1);
    expect(await page.getByLabel('First name').inputValue()).toBe('Augusta');
    expect(await page.getByLabel('Email').inputValue()).toBe('taken@example.com');
    await checkScreen(page, 'profile-errors');
    await page.getByRole('button', { name: 'Discard changes' }).click();
    expect(await page.getByLabel('First name').inputValue()).toBe('Ada');

    // The password: a wrong current one is refused on its field, then the change goes through.
    await page.getByLabel('Current password').fill('not-my-password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByText('That is not your current password.').count()).toBe(1);
    expect(await page.getByLabel('New password', { exact: true }).inputValue()).toBe(NEW_PASSWORD);
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Password changed.' }).count()).toBe(1);
    currentPassword = NEW_PASSWORD;
    expect((await server.t.req('POST', '/auth/login', { email: EMAIL, password: NEW_PASSWORD }, { token: null })).status).toBe(200);
    expect((await server.t.req('POST', '/auth/login', { email: EMAIL, password: PASSWORD }, { token: null })).status).toBe(401);

    // Two-factor: the secret read from the page, a code computed from it.
    await page.getByRole('button', { name: 'Set up two-factor…' }).click();
    await page.getByLabel('Your password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    const qr = page.getByRole('img', { name: 'QR code to add this account to an authenticator app' });
    await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    const secret = await page.getByLabel('Secret key').inputValue();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await checkScreen(page, 'profile-tfa-setup');
    await page.getByLabel('One-time code').fill('000000');
    await page.getByRole('button', { name: 'Turn on two-factor' }).click();
    await expect.poll(() => page.getByLabel('One-time code').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('One-time code').fill(await freshCode(secret));
    await page.getByRole('button', { name: 'Turn on two-factor' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Two-factor sign-in is on' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('button', { name: 'Turn off two-factor' }).count()).toBe(1);

    // Signing out and in asks for a code.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/admin\/login/);
    await fillSignIn(page, EMAIL, NEW_PASSWORD);
    const otp = page.getByLabel('One-time code', { exact: true });
    await otp.waitFor();
    await otp.fill(await freshCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/admin\/profile/);
    await expect.poll(() => page.getByRole('button', { name: 'Turn off two-factor' }).count()).toBe(1);
    await checkScreen(page, 'profile-tfa-on');
    await page.getByLabel('One-time code').fill(await freshCode(secret));
    await page.getByRole('button', { name: 'Turn off two-factor' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Two-factor sign-in is off.' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('button', { name: 'Set up two-factor…' }).count()).toBe(1);

    // A static token, shown once, works against the API; removed, it is refused.
    await page.getByRole('button', { name: 'Generate a token' }).click();
    const tokenField = page.getByLabel(/Your new token/);
    await expect.poll(() => tokenField.count()).toBe(1);
    const token = await tokenField.inputValue();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await checkScreen(page, 'profile-token');
    const withToken = await server.t.req('GET', '/users/me?fields=email,first_name', undefined, { token });
    expect(withToken.status).toBe(200);
    expect(withToken.body.data).toMatchObject({ email: EMAIL, first_name: 'Ada' });
    await page.getByRole('button', { name: 'Remove token' }).click();
    await expect.poll(() => page.getByText('The token is removed').count()).toBe(1);
    expect((await server.t.req('GET', '/users/me', undefined, { token })).status).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
