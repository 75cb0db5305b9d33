/** External sign-on through the real HTTP app against a real OpenID provider (test/helpers/oidc-idp.ts): the
 * redirect flow with PKCE, state and nonce, ID-token validation, the user rules, linking and the redirect checks.
 * Cookies are carried by hand; 302s are followed with redirect:'manual'. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { hashPassword } from '../../core/auth/passwords.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startOidcIdp, type TestIdp } from '../helpers/oidc-idp.ts';

const PUBLIC_URL = 'http://app.test';
const cb = (name: string) => `${PUBLIC_URL}/auth/login/${name}/callback`;
const EDITOR_ROLE = randomUUID();
const DEFAULT_ROLE = randomUUID();

let idp: TestIdp;
let t: TestApp;

beforeAll(async () => {
  idp = await startOidcIdp({
    clients: [
      { client_id: 'svc', client_secret: 'svc-secret', redirect_uris: [cb('idp'), cb('closed'), cb('gh'), cb('sync')] },
      { client_id: 'other', client_secret: 'other-secret', redirect_uris: [cb('idp')] },
    ],
    accounts: [
      { sub: 'alice', email: 'alice@idp.test', email_verified: true, given_name: 'Alice', family_name: 'Liddell', groups: ['editors'] },
      { sub: 'bob', email: 'bob@idp.test', email_verified: true, given_name: 'Bob', family_name: 'B' },
      { sub: 'mallory', email: 'local@example.com', email_verified: true, given_name: 'M', family_name: 'M' },
      { sub: 'carol', email: 'carol@idp.test', given_name: 'Carol', family_name: 'C', groups: [] },
      { sub: 'dave', email: 'dave@idp.test', given_name: 'Dave', family_name: 'D' },
      { sub: 'erin', email: 'erin@idp.test', given_name: 'Erin', family_name: 'E' },
    ],
  });
  const oidc = (name: string, extra: Record<string, string> = {}) => ({
    [`AUTH_${name}_DRIVER`]: 'openid',
    [`AUTH_${name}_CLIENT_ID`]: 'svc',
    [`AUTH_${name}_CLIENT_SECRET`]: 'svc-secret',
    [`AUTH_${name}_ISSUER_URL`]: idp.issuer,
    [`AUTH_${name}_SCOPE`]: 'openid email profile groups',
    ...extra,
  });
  t = await createTestApp({
    env: {
      PUBLIC_URL,
      AUTH_PROVIDERS: 'idp,closed,gh,sync',
      ...oidc('IDP', {
        AUTH_IDP_ALLOW_PUBLIC_REGISTRATION: 'true',
        AUTH_IDP_DEFAULT_ROLE_ID: DEFAULT_ROLE,
        AUTH_IDP_ROLE_MAPPING: JSON.stringify({ editors: EDITOR_ROLE }),
        AUTH_IDP_REDIRECT_ALLOW_LIST: 'https://site.example/app,https://other.example',
        AUTH_IDP_LABEL: 'Test IdP',
        AUTH_IDP_ICON: 'key',
      }),
      ...oidc('CLOSED'),
      AUTH_GH_DRIVER: 'oauth2',
      AUTH_GH_CLIENT_ID: 'svc',
      AUTH_GH_CLIENT_SECRET: 'svc-secret',
      AUTH_GH_AUTHORIZE_URL: idp.authorizeUrl,
      AUTH_GH_ACCESS_URL: idp.tokenUrl,
      AUTH_GH_PROFILE_URL: idp.userinfoUrl,
      AUTH_GH_IDENTIFIER_KEY: 'sub',
      AUTH_GH_FIRST_NAME_KEY: 'given_name',
      AUTH_GH_LAST_NAME_KEY: 'family_name',
      AUTH_GH_SCOPE: 'openid email profile',
      AUTH_GH_ALLOW_PUBLIC_REGISTRATION: 'true',
      ...oidc('SYNC', {
        AUTH_SYNC_ALLOW_PUBLIC_REGISTRATION: 'true',
        AUTH_SYNC_SYNC_USER_INFO: 'true',
        AUTH_SYNC_ROLE_MAPPING: JSON.stringify({ editors: EDITOR_ROLE }),
      }),
    },
  });
  const db = t.services.database.db;
  await run(db, 'insert into svc_roles (id, name) values ($1, $2), ($3, $4)', [EDITOR_ROLE, 'Editors', DEFAULT_ROLE, 'Members']);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await idp?.close();
});

function cookiesOf(res: Response): Map<string, { value: string; raw: string }> {
  const out = new Map<string, { value: string; raw: string }>();
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const eq = pair.indexOf('=');
    out.set(pair.slice(0, eq), { value: pair.slice(eq + 1), raw: c });
  }
  return out;
}

interface Flow { start: Response; flowCookie: string; idpUrl: string }

async function begin(provider: string, query = ''): Promise<Flow> {
  const start = await t.app.request(`/auth/login/${provider}${query}`, { redirect: 'manual' });
  expect(start.status).toBe(302);
  const flow = cookiesOf(start).get('svc_sso_flow');
  return { start, flowCookie: flow ? `svc_sso_flow=${flow.value}` : '', idpUrl: start.headers.get('location')! };
}

async function callback(url: string, cookie: string): Promise<Response> {
  const u = new URL(url);
  return t.app.request(u.pathname + u.search, { redirect: 'manual', headers: cookie ? { cookie } : {} });
}

async function signIn(provider: string, sub: string, query = ''): Promise<{ res: Response; location: URL; back: string; flow: Flow }> {
  const flow = await begin(provider, query);
  const back = await idp.signIn(flow.idpUrl, sub);
  const res = await callback(back, flow.flowCookie);
  expect(res.status).toBe(302);
  return { res, location: new URL(res.headers.get('location')!), back, flow };
}

async function userOf(sub: string) {
  const [row] = await run<Record<string, any>>(t.services.database.db,
    'select id, email, first_name, last_name, role, provider, external_identifier, auth_data, status from svc_users where external_identifier = $1', [sub]);
  return row;
}

describe('OpenID Connect sign-in', () => {
  it('GET /auth lists the providers', async () => {
    const res = await t.req('GET', '/auth', undefined, { token: null });
    expect(res.status).toBe(200);
    expect(res.body.disableDefault).toBe(false);
    expect(res.body.data).toContainEqual({ name: 'idp', driver: 'openid', label: 'Test IdP', icon: 'key' });
    expect(res.body.data).toContainEqual({ name: 'gh', driver: 'oauth2', label: 'Gh', icon: null });
  });

  it('starts with PKCE, state and nonce; the flow cookie is httpOnly and scoped to the provider', async () => {
    const { idpUrl, start } = await begin('idp');
    const url = new URL(idpUrl);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toBeTruthy();
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBe(cb('idp'));
    const raw = cookiesOf(start).get('svc_sso_flow')!.raw;
    expect(raw).toMatch(/HttpOnly/i);
    expect(raw).toMatch(/Path=\/auth\/login\/idp(;|$)/);
    expect(raw).toMatch(/Max-Age=600/);
  });

  it('creates the user on first sign-in (session mode), then signs in again matching by sub', async () => {
    const first = await signIn('idp', 'alice');
    expect(first.location.toString()).toBe(`${PUBLIC_URL}/admin/`);
    const cookies = cookiesOf(first.res);
    expect(cookies.get('svc_session_token')?.value).toBeTruthy();
    expect(cookies.get('svc_sso_flow')?.raw).toMatch(/Max-Age=0/);
    const user = await userOf('alice');
    expect(user).toMatchObject({ email: 'alice@idp.test', first_name: 'Alice', last_name: 'Liddell', provider: 'idp', status: 'active', role: EDITOR_ROLE });
    const me = await t.req('GET', '/auth/me', undefined, { token: cookies.get('svc_session_token')!.value });
    expect(me.body.data.id).toBe(user.id);
    // An email change at the IdP doesn't matter: the identity is the sub.
    idp.setAccount({ ...idp.accounts.get('alice')!, email: 'alice-new@idp.test' });
    const again = await signIn('idp', 'alice');
    expect(cookiesOf(again.res).get('svc_session_token')).toBeTruthy();
    const [{ n }] = await run<{ n: number }>(t.services.database.db, "select count(*)::int as n from svc_users where provider = 'idp' and external_identifier = 'alice'");
    expect(n).toBe(1);
    expect((await userOf('alice')).email).toBe('alice@idp.test');
    const logins = await run<{ n: number }>(t.services.database.db, "select count(*)::int as n from svc_activity where action = 'login' and \"user\" = $1", [user.id]);
    expect(logins[0].n).toBe(2);
  });

  it('cookie mode sets the refresh cookie and lands on an allowed redirect', async () => {
    const { res, location } = await signIn('idp', 'bob', `?mode=cookie&redirect=${encodeURIComponent('https://site.example/app/done?x=1')}`);
    expect(location.toString()).toBe('https://site.example/app/done?x=1');
    const cookies = cookiesOf(res);
    expect(cookies.get('svc_refresh_token')?.value).toBeTruthy();
    expect(cookies.has('svc_session_token')).toBe(false);
    const refreshed = await t.app.request('/auth/refresh', {
      method: 'POST', headers: { 'content-type': 'application/json', cookie: `svc_refresh_token=${cookies.get('svc_refresh_token')!.value}` },
      body: JSON.stringify({ mode: 'json' }),
    });
    expect(refreshed.status).toBe(400 /* json mode needs the token in the body */);
    const ok = await t.req('POST', '/auth/refresh', { refresh_token: cookies.get('svc_refresh_token')!.value, mode: 'json' }, { token: null });
    expect(ok.status).toBe(200);
  });

  it('refuses an unknown identity when public registration is off', async () => {
    const { location, res } = await signIn('closed', 'carol');
    expect(location.searchParams.get('reason')).toBe('INVALID_CREDENTIALS');
    expect(cookiesOf(res).has('svc_session_token')).toBe(false);
    expect(await userOf('carol')).toBeUndefined();
  });

  it('refuses a sign-in whose email belongs to an unlinked local user (no takeover)', async () => {
    await run(t.services.database.db, "insert into svc_users (id, email, status, password) values ($1, 'local@example.com', 'active', $2)", [randomUUID(), await hashPassword('pw-local-1')]);
    const { location } = await signIn('idp', 'mallory');
    expect(location.searchParams.get('reason')).toBe('ACCOUNT_NOT_LINKED');
    expect(await userOf('mallory')).toBeUndefined();
  });

  it('refuses a suspended user', async () => {
    await signIn('idp', 'dave');
    await run(t.services.database.db, "update svc_users set status = 'suspended' where external_identifier = 'dave'");
    const { location, res } = await signIn('idp', 'dave');
    expect(location.searchParams.get('reason')).toBe('USER_SUSPENDED');
    expect(cookiesOf(res).has('svc_session_token')).toBe(false);
  });

  it('an IdP denial comes back as a reason', async () => {
    const flow = await begin('idp');
    const back = await idp.deny(flow.idpUrl);
    expect(new URL(back).searchParams.get('error')).toBe('access_denied');
    const res = await callback(back, flow.flowCookie);
    expect(new URL(res.headers.get('location')!).searchParams.get('reason')).toBe('INVALID_CREDENTIALS');
  });

  it('refuses a missing flow cookie, a wrong state, and a replayed code', async () => {
    const a = await begin('idp');
    const backA = await idp.signIn(a.idpUrl, 'bob');
    const missing = await callback(backA, '');
    expect(missing.headers.get('location')).toBe(`${PUBLIC_URL}/admin/?reason=INVALID_TOKEN`);

    const b = await begin('idp');
    const backB = await idp.signIn(b.idpUrl, 'bob');
    const wrongState = new URL(backB);
    wrongState.searchParams.set('state', 'not-the-state');
    const bad = await callback(wrongState.toString(), b.flowCookie);
    expect(new URL(bad.headers.get('location')!).searchParams.get('reason')).toBe('INVALID_TOKEN');
    // Another flow's cookie doesn't fit either.
    const swapped = await callback(backB, a.flowCookie);
    expect(new URL(swapped.headers.get('location')!).searchParams.get('reason')).toBe('INVALID_TOKEN');

    const c = await begin('idp');
    const backC = await idp.signIn(c.idpUrl, 'bob');
    const once = await callback(backC, c.flowCookie);
    expect(cookiesOf(once).get('svc_session_token')).toBeTruthy();
    const replay = await callback(backC, c.flowCookie);
    expect(new URL(replay.headers.get('location')!).searchParams.get('reason')).toBe('INVALID_CREDENTIALS');
    expect(cookiesOf(replay).has('svc_session_token')).toBe(false);
  });

  it.each([
    ['an expired ID token', () => ({ exp: Math.floor(Date.now() / 1000) - 600, iat: Math.floor(Date.now() / 1000) - 1200 })],
    ['a wrong audience', () => ({ aud: 'other' })],
    ['a wrong issuer', () => ({ iss: 'http://127.0.0.1:1' })],
    ['a wrong nonce', () => ({ nonce: 'another-nonce' })],
  ])('refuses %s (validly signed by the issuer)', async (_label, patch) => {
    const flow = await begin('idp');
    const back = await idp.signIn(flow.idpUrl, 'bob');
    idp.tamperNextIdToken(patch());
    const res = await callback(back, flow.flowCookie);
    expect(new URL(res.headers.get('location')!).searchParams.get('reason')).toBe('INVALID_TOKEN');
    expect(cookiesOf(res).has('svc_session_token')).toBe(false);
  });

  it('still signs in after the IdP rotates its signing key (JWKS refetched)', async () => {
    await signIn('idp', 'bob');
    await idp.rotateKeys();
    const { res, location } = await signIn('idp', 'bob');
    expect(location.searchParams.get('reason')).toBeNull();
    expect(cookiesOf(res).get('svc_session_token')).toBeTruthy();
  });

  it('syncs names, email and the mapped role on each sign-in when SYNC_USER_INFO is on; leaving the group takes the role away', async () => {
    await signIn('sync', 'erin');
    expect(await userOf('erin')).toMatchObject({ first_name: 'Erin', role: null });
    idp.setAccount({ sub: 'erin', email: 'erin2@idp.test', given_name: 'Erin2', family_name: 'E2', groups: ['editors'] });
    await signIn('sync', 'erin');
    expect(await userOf('erin')).toMatchObject({ first_name: 'Erin2', last_name: 'E2', email: 'erin2@idp.test', role: EDITOR_ROLE });
    // Out of the group at the IdP: no mapped role, and this provider has no default role.
    idp.setAccount({ sub: 'erin', email: 'erin2@idp.test', given_name: 'Erin2', family_name: 'E2', groups: [] });
    await signIn('sync', 'erin');
    expect(await userOf('erin')).toMatchObject({ role: null });
  });

  it('signs in with the plain oauth2 driver (authorize/token/profile URLs)', async () => {
    const { res, location } = await signIn('gh', 'carol');
    expect(location.searchParams.get('reason')).toBeNull();
    expect(cookiesOf(res).get('svc_session_token')).toBeTruthy();
    const [row] = await run<Record<string, any>>(t.services.database.db, "select provider, first_name, email from svc_users where provider = 'gh' and external_identifier = 'carol'");
    expect(row).toMatchObject({ provider: 'gh', first_name: 'Carol', email: 'carol@idp.test' });
  });

  it('an unknown provider is 404', async () => {
    for (const path of ['/auth/login/nope', '/auth/login/nope/callback']) {
      const res = await t.req('GET', path, undefined, { token: null });
      expect(res.status).toBe(404);
      expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    expect((await t.req('POST', '/auth/login/nope', { identifier: 'a', password: 'b' }, { token: null })).status).toBe(404);
  });

  it('POST to a redirect provider is 400', async () => {
    const res = await t.req('POST', '/auth/login/idp', { identifier: 'a', password: 'b' }, { token: null });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
  });
});

describe('redirect allow-list', () => {
  it.each([
    [`${PUBLIC_URL}/admin/content`, true],
    [`${PUBLIC_URL}`, true],
    ['https://site.example/app', true],
    ['https://site.example/app/x?y=1#z', true],
    ['https://other.example/anything', true],
    ['https://site.example/apple', false],
    ['https://site.example/', false],
    ['http://site.example/app', false],
    ['https://site.example:444/app', false],
    ['https://site.example.evil/app', false],
    ['https://site.example@evil.test/app', false],
    ['https://evil.test\\@site.example/app', false],
    ['//evil.test', false],
    ['/\\evil.test', false],
    ['https:evil.test', false],
    ['javascript:alert(1)', false],
    ['data:text/html,hi', false],
    ['https://evil.test/?https://site.example/app', false],
    ['https://site.example/app\t', false],
  ])('%s -> allowed %s', async (redirect, allowed) => {
    const res = await t.app.request(`/auth/login/idp?redirect=${encodeURIComponent(redirect)}`, { redirect: 'manual' });
    if (allowed) {
      expect(res.status).toBe(302);
      expect(new URL(res.headers.get('location')!).origin).toBe(idp.issuer);
    } else {
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(((await res.json()) as any).errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
  });
});

describe('linking a local account', () => {
  const email = 'linker@example.com';
  const password = 'linker-pw-1';
  let token: string;
  let userId: string;

  beforeAll(async () => {
    userId = randomUUID();
    await run(t.services.database.db, "insert into svc_users (id, email, status, password) values ($1, $2, 'active', $3)", [userId, email, await hashPassword(password)]);
    const login = await t.req('POST', '/auth/login', { email, password }, { token: null });
    token = login.body.data.access_token;
  });

  it('needs a user and the right password', async () => {
    expect((await t.req('POST', '/auth/link/idp', { current_password: password }, { token: null })).status).toBe(401);
    const wrong = await t.req('POST', '/auth/link/idp', { current_password: 'nope' }, { token });
    expect(wrong.status).toBe(401);
    expect(wrong.body.errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
    expect((await t.req('POST', '/auth/link/idp', {}, { token })).status).toBe(400);
  });

  it('links through the provider after a password check, then signs in by the identity', async () => {
    idp.setAccount({ sub: 'frank', email, given_name: 'Frank', family_name: 'F' });
    // Before linking, the same email is refused.
    expect((await signIn('idp', 'frank')).location.searchParams.get('reason')).toBe('ACCOUNT_NOT_LINKED');
    const res = await t.req('POST', '/auth/link/idp', { current_password: password }, { token });
    expect(res.status).toBe(200);
    const url = new URL(res.body.data.url);
    expect(url.pathname).toBe('/auth/login/idp');
    expect(url.searchParams.get('redirect')).toBe(`${PUBLIC_URL}/admin/`);
    const linked = await signIn('idp', 'frank', url.search);
    expect(linked.location.toString()).toBe(`${PUBLIC_URL}/admin/`);
    expect(await userOf('frank')).toMatchObject({ id: userId, provider: 'idp' });
    const after = await signIn('idp', 'frank');
    expect(cookiesOf(after.res).get('svc_session_token')).toBeTruthy();
    // Now an external account: no second link, no password login.
    expect((await t.req('POST', '/auth/link/idp', { current_password: password }, { token })).status).toBe(400);
  });

  it('refuses a link to an identity bound to another user, and a forged link token', async () => {
    const other = randomUUID();
    await run(t.services.database.db, "insert into svc_users (id, email, status, password) values ($1, 'other-linker@example.com', 'active', $2)", [other, await hashPassword(password)]);
    const login = await t.req('POST', '/auth/login', { email: 'other-linker@example.com', password }, { token: null });
    const res = await t.req('POST', '/auth/link/idp', { current_password: password }, { token: login.body.data.access_token });
    const url = new URL(res.body.data.url);
    const taken = await signIn('idp', 'alice', url.search);
    expect(taken.location.searchParams.get('reason')).toBe('IDENTITY_ALREADY_LINKED');
    const forged = await t.req('GET', '/auth/login/idp?link=abc', undefined, { token: null });
    expect(forged.status).toBe(400);
  });
});
