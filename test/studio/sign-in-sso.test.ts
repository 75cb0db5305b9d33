/** External sign-on on the Studio's sign-in page, in a real browser against real providers: a real OpenID provider
 * (test/helpers/oidc-idp.ts: oidc-provider, its sign-in page clicked through) and, where Debian's slapd is installed,
 * a real LDAP directory (test/helpers/slapd.ts), both configured in the environment as an operator would.
 *
 * OpenID: a deep link, "Sign in with <label>", the provider's page, and back in the Studio signed in at the deep
 * link (the session cookie picked up by the Studio's opening refresh); a refused or cancelled sign-in comes back to
 * the sign-in page with the reason in a sentence, taken out of the address bar. The password form does not wait for
 * GET /auth, does not move when the buttons arrive, and stands alone when the list fails. LDAP: the form switched to
 * the directory, a wrong password told in the form with the username kept, then signed in; the one-time code step;
 * the directory down. Every screen is checked with axe-core and photographed in light and dark.
 *
 * The server is started here rather than by the harness: the provider must know its callback URL (so its port)
 * before the server, configured with the provider's issuer, starts. */
import { randomUUID } from 'node:crypto';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { generate, generateSecret } from 'otplib';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/free-port.ts';
import { startOidcIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { hasSlapd, startSlapd, type TestSlapd } from '../helpers/slapd.ts';
import { checkScreen, JOURNEYS, launchBrowser, newPage } from './harness.ts';

const LABEL = 'Harbour ID';
const DIRECTORY = 'Newsroom directory';
const WITH_LDAP = hasSlapd();

describe.skipIf(!JOURNEYS)('Studio: external sign-on', () => {
  let idp: TestIdp;
  let slapd: TestSlapd | undefined;
  let t: TestApp;
  let http: ServerType;
  let url: string;
  let browser: Browser;
  const roleId = randomUUID();

  beforeAll(async () => {
    // The provider must know the Studio server's callback before either starts: the port is chosen first.
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    idp = await startOidcIdp({
      clients: [{ client_id: 'studio', client_secret: 'studio-client-secret', redirect_uris: [`${url}/auth/login/idp/callback`] }],
      accounts: [
        { sub: 'ada', email: 'ada@example.org', email_verified: true, given_name: 'Ada', family_name: 'Lovelace' },
        { sub: 'grace', email: 'grace@example.org', email_verified: true, given_name: 'Grace', family_name: 'Hopper' },
      ],
    });
    if (WITH_LDAP) slapd = await startSlapd();
    const env: Record<string, string> = {
      PUBLIC_URL: url,
      AUTH_PROVIDERS: slapd ? 'idp,newsroom' : 'idp',
      AUTH_IDP_DRIVER: 'openid',
      AUTH_IDP_LABEL: LABEL,
      AUTH_IDP_CLIENT_ID: 'studio',
      AUTH_IDP_CLIENT_SECRET: 'studio-client-secret',
      AUTH_IDP_ISSUER_URL: idp.issuer,
      AUTH_IDP_SCOPE: 'openid email profile',
      AUTH_IDP_ALLOW_PUBLIC_REGISTRATION: 'true',
      AUTH_IDP_DEFAULT_ROLE_ID: roleId,
    };
    if (slapd) {
      Object.assign(env, {
        AUTH_NEWSROOM_DRIVER: 'ldap',
        AUTH_NEWSROOM_LABEL: DIRECTORY,
        AUTH_NEWSROOM_CLIENT_URL: slapd.url,
        AUTH_NEWSROOM_BIND_DN: slapd.bindDn,
        AUTH_NEWSROOM_BIND_PASSWORD: slapd.bindPassword,
        AUTH_NEWSROOM_USER_DN: slapd.peopleDn,
        AUTH_NEWSROOM_USER_ATTRIBUTE: 'uid',
        AUTH_NEWSROOM_ALLOW_PUBLIC_REGISTRATION: 'true',
        AUTH_NEWSROOM_DEFAULT_ROLE_ID: roleId,
      });
    }
    t = await createTestApp({ env });
    http = await new Promise((resolve) => {
      const s = serve({ fetch: t.app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s));
    });
    browser = await launchBrowser();
    // The role users signing on for the first time get: the Studio, not administration.
    const policy = await t.req('POST', '/policies', { name: 'Newsroom', app_access: true, admin_access: false });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    const role = await t.req('POST', '/roles', { id: roleId, name: 'Newsroom', policies: [policy.body.data.id ?? policy.body.data] });
    expect(role.status, JSON.stringify(role.body)).toBe(200);
    await t.req('PATCH', '/settings', { project_name: 'Harbour Press', project_descriptor: 'Newsroom', project_color: '#0b6e4f' });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
    await t?.close();
    await idp?.close();
    await slapd?.stop();
  });

  async function signedInAs(page: Page, name: string): Promise<void> {
    await page.getByRole('link', { name: 'Your profile' }).click();
    await expect.poll(() => page.getByText(name).count()).toBeGreaterThan(0);
  }

  it('signs in through the OpenID provider from a deep link and lands there signed in', { timeout: 90_000 }, async () => {
    const { page, context, problems } = await newPage(browser);
    await page.goto(`${url}/admin/content`);
    await page.waitForURL(/\/admin\/login\?next=/);
    const button = page.getByRole('button', { name: `Sign in with ${LABEL}` });
    await button.waitFor();
    // The password form stays as it was, the provider beside it.
    await page.getByLabel('Email').waitFor();
    await checkScreen(page, 'sign-in-sso');

    await button.click();
    await page.waitForURL((u) => u.origin === idp.issuer);
    await page.getByRole('button', { name: 'Sign in as ada' }).click();
    await page.waitForURL(/\/admin\/content$/);
    await page.getByRole('navigation', { name: 'Modules' }).waitFor();
    await signedInAs(page, 'Ada Lovelace');
    // The user was created at the first sign-in, with the provider's identity and the default role.
    const users = await t.req('GET', '/users?filter[email][_eq]=ada@example.org&fields=provider,external_identifier,role');
    expect(users.body.data).toEqual([{ provider: 'idp', external_identifier: 'ada', role: roleId }]);
    // A reload keeps the session the provider's sign-in set.
    await page.reload();
    await page.getByRole('navigation', { name: 'Modules' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/profile');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('paints the password form without waiting for the providers, moves nothing when their buttons arrive, and is the password form alone when the list fails', async () => {
    const { page, context, problems } = await newPage(browser);
    // GET /auth held back (the real answer, late).
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    await page.route(`${url}/auth`, async (route) => { await held; await route.continue(); });
    await page.goto(`${url}/admin/login`);
    const email = page.getByLabel('Email');
    const submit = page.getByRole('button', { name: 'Sign in', exact: true });
    await email.waitFor();
    const before = [await email.boundingBox(), await submit.boundingBox()];
    expect(await page.getByRole('button', { name: `Sign in with ${LABEL}` }).count()).toBe(0);
    release();
    await page.getByRole('button', { name: `Sign in with ${LABEL}` }).waitFor();
    expect([await email.boundingBox(), await submit.boundingBox()]).toEqual(before);

    // The list cannot be had: the password form as it always was, and no error about something not asked for.
    await page.unroute(`${url}/auth`);
    await page.route(`${url}/auth`, (route) => route.abort('connectionrefused'));
    const failed = page.waitForEvent('requestfailed', (r) => r.url() === `${url}/auth`);
    await page.reload();
    await failed;
    await email.waitFor();
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    expect(await page.getByRole('button', { name: /^Sign in with/ }).count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByRole('link', { name: 'Forgot your password?' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('tells why the provider\'s sign-in was refused on the sign-in page, and takes the reason out of the address', { timeout: 90_000 }, async () => {
    // Grace signs in once (her user is created), then is suspended.
    const first = await newPage(browser);
    await first.page.goto(`${url}/admin/login`);
    await first.page.getByRole('button', { name: `Sign in with ${LABEL}` }).click();
    await first.page.getByRole('button', { name: 'Sign in as grace' }).click();
    await first.page.getByRole('navigation', { name: 'Modules' }).waitFor();
    await first.context.close();
    const grace = await t.req('GET', '/users?filter[email][_eq]=grace@example.org&fields=id');
    const suspended = await t.req('PATCH', `/users/${grace.body.data[0].id}`, { status: 'suspended' });
    expect(suspended.status, JSON.stringify(suspended.body)).toBe(200);

    const { page, context, problems } = await newPage(browser, { colorScheme: 'dark' });
    await page.goto(`${url}/admin/files`);
    await page.waitForURL(/\/admin\/login\?next=/);
    await page.getByRole('button', { name: `Sign in with ${LABEL}` }).click();
    await page.getByRole('button', { name: 'Sign in as grace' }).click();
    await page.waitForURL(/\/admin\/login/);
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toBe(`Sign-in with ${LABEL} failed: your account here is suspended or not active. Ask an administrator to reactivate it.`);
    await expect.poll(() => new URL(page.url()).searchParams.has('reason')).toBe(false);
    // Where the visitor was headed stays for the next try.
    expect(new URL(page.url()).searchParams.get('next')).toBe('/files');
    expect(await page.evaluate(() => location.search)).toBe('?next=%2Ffiles');
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in', exact: true }).count()).toBe(1);
    await checkScreen(page, 'sign-in-sso-refused');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('tells a sign-in cancelled at the provider apart', async () => {
    const { page, context } = await newPage(browser);
    await page.goto(`${url}/admin/login`);
    idp.nextDeny();
    await page.getByRole('button', { name: `Sign in with ${LABEL}` }).click();
    await expect.poll(() => page.getByRole('alert').textContent())
      .toBe(`Sign-in with ${LABEL} failed: it was cancelled, or there is no account here for you. Try again, or ask an administrator for an account.`);
    // page.url() follows history.replaceState a moment later than the page does.
    await expect.poll(() => new URL(page.url()).search).toBe('');
    await context.close();
  });

  it.skipIf(!WITH_LDAP)('signs in with the directory\'s form; a wrong password is told in the form and the username stays', { timeout: 90_000 }, async () => {
    const alice = slapd!.users.alice;
    const { page, context, problems } = await newPage(browser);
    await page.goto(`${url}/admin/login`);
    await page.getByRole('button', { name: `Sign in with ${DIRECTORY}` }).click();
    await page.getByRole('heading', { name: `Sign in with ${DIRECTORY}` }).waitFor();
    const username = page.getByLabel('Username');
    await expect.poll(() => username.evaluate((el) => el === document.activeElement)).toBe(true);
    await checkScreen(page, 'sign-in-ldap');

    await username.fill(alice.uid);
    await page.getByLabel('Password', { exact: true }).fill('not-her-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong username or password.');
    expect(await username.inputValue()).toBe(alice.uid);
    // Still signed out, on the same form (a wrong password is not an expired session).
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    await checkScreen(page, 'sign-in-ldap-error');

    await page.getByLabel('Password', { exact: true }).fill(alice.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/admin\/content/);
    await signedInAs(page, `${alice.givenName} ${alice.sn}`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it.skipIf(!WITH_LDAP)('asks a directory user with two-factor on for the one-time code, as for a password sign-in', { timeout: 90_000 }, async () => {
    const bob = slapd!.users.bob;
    // Bob's first sign-in creates his user; two-factor is then turned on for it (an LDAP user has no password here
    // to confirm the set-up screen with).
    const first = await t.req('POST', '/auth/login/newsroom', { identifier: bob.uid, password: bob.password, mode: 'json' }, { token: null });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const secret = generateSecret();
    await run(t.services.database.db, 'update svc_users set tfa_secret = $1, tfa_enabled = true where email = $2', [secret, bob.mail]);

    const { page, context, problems } = await newPage(browser, { colorScheme: 'dark' });
    await page.goto(`${url}/admin/login`);
    await page.getByRole('button', { name: `Sign in with ${DIRECTORY}` }).click();
    await page.getByLabel('Username').fill(bob.uid);
    await page.getByLabel('Password', { exact: true }).fill(bob.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const otp = page.getByLabel('One-time code', { exact: true });
    await otp.waitFor();
    await expect.poll(() => otp.evaluate((el) => el === document.activeElement)).toBe(true);
    await checkScreen(page, 'sign-in-ldap-otp');
    await otp.fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('one-time code is not right');
    await otp.fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/admin\/content/);
    await signedInAs(page, `${bob.givenName} ${bob.sn}`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it.skipIf(!WITH_LDAP)('goes back from the directory\'s form to email and password', async () => {
    const { page, context } = await newPage(browser);
    await page.goto(`${url}/admin/login`);
    await page.getByRole('button', { name: `Sign in with ${DIRECTORY}` }).click();
    await page.getByLabel('Username').fill('someone');
    await page.getByRole('button', { name: 'Sign in with email and password' }).click();
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    const email = page.getByLabel('Email');
    await expect.poll(() => email.evaluate((el) => el === document.activeElement)).toBe(true);
    // The way back and forth keeps what was typed.
    await page.getByRole('button', { name: `Sign in with ${DIRECTORY}` }).click();
    expect(await page.getByLabel('Username').inputValue()).toBe('someone');
    await context.close();
  });

  // Last: it stops the directory.
  it.skipIf(!WITH_LDAP)('tells that the directory cannot be reached, in the form, with the username kept', async () => {
    const { page, context, problems } = await newPage(browser);
    await page.goto(`${url}/admin/login`);
    await page.getByRole('button', { name: `Sign in with ${DIRECTORY}` }).click();
    await slapd!.stop();
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password', { exact: true }).fill('any-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 })
      .toBe(`${DIRECTORY} cannot be reached right now. Try again in a moment; if it keeps failing, tell an administrator.`);
    expect(await page.getByLabel('Username').inputValue()).toBe('alice');
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('any-password');
    expect(problems).toEqual([]);
    await context.close();
  });
});
