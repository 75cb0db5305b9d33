/** SAML 2.0 sign-on (driver `saml`) through the real HTTP app against a real IdP (samlify, test/helpers/saml-idp.ts):
 * the AuthnRequest by redirect, the signed Response posted to the ACS with the flow in RelayState, the user rules,
 * and every check a Response must pass; each attack is a response the IdP library made (or one edited from it) that
 * must end with `?reason=` and no session. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { certBody, decode, encode, makeKeyPair, startSamlIdp, type PostedForm, type TestSamlIdp } from '../helpers/saml-idp.ts';
import { SamlLib } from 'samlify';

const PUBLIC_URL = 'http://app.test';
const ACS = `${PUBLIC_URL}/auth/login/corp/callback`;
const SP_ENTITY = `${PUBLIC_URL}/auth/login/corp/metadata`;
const EDITOR_ROLE = randomUUID();
const DEFAULT_ROLE = randomUUID();

let idp: TestSamlIdp;
let t: TestApp;

beforeAll(async () => {
  idp = await startSamlIdp();
  t = await createTestApp({
    env: {
      PUBLIC_URL,
      AUTH_PROVIDERS: 'corp,closed',
      AUTH_CORP_DRIVER: 'saml',
      AUTH_CORP_IDP_METADATA: idp.metadata,
      AUTH_CORP_ALLOW_PUBLIC_REGISTRATION: 'true',
      AUTH_CORP_DEFAULT_ROLE_ID: DEFAULT_ROLE,
      AUTH_CORP_ROLE_MAPPING: JSON.stringify({ editors: EDITOR_ROLE }),
      AUTH_CORP_FIRST_NAME_KEY: 'firstName',
      AUTH_CORP_LAST_NAME_KEY: 'lastName',
      AUTH_CORP_LABEL: 'Corp SSO',
      AUTH_CORP_ICON: 'badge',
      AUTH_CLOSED_DRIVER: 'saml',
      AUTH_CLOSED_IDP_SSO_URL: idp.ssoUrl,
      AUTH_CLOSED_IDP_CERT: idp.cert,
      AUTH_CLOSED_SP_ENTITY_ID: 'urn:app.test:closed',
    },
  });
  await run(t.services.database.db, 'insert into svc_roles (id, name) values ($1, $2), ($3, $4)', [EDITOR_ROLE, 'Editors', DEFAULT_ROLE, 'Members']);
  for (const name of ['corp', 'closed']) idp.registerSp(await (await t.app.request(`/auth/login/${name}/metadata`)).text());
}, 60_000);

afterAll(async () => {
  await t?.close();
  await idp?.close();
});

/** GET /auth/login/{name}: the 302 to the IdP. */
async function begin(provider = 'corp', query = ''): Promise<string> {
  const start = await t.app.request(`/auth/login/${provider}${query}`, { redirect: 'manual' });
  expect(start.status).toBe(302);
  expect(start.headers.getSetCookie()).toEqual([]);
  return start.headers.get('location')!;
}

/** The IdP's form posted to the ACS as a browser does: cross-site, no cookie. */
async function post(form: Pick<PostedForm, 'SAMLResponse' | 'RelayState'>, provider = 'corp'): Promise<{ res: Response; location: URL }> {
  const res = await t.app.request(`/auth/login/${provider}/callback`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: idp.base },
    body: new URLSearchParams({ SAMLResponse: form.SAMLResponse, RelayState: form.RelayState }).toString(),
  });
  expect(res.status).toBe(302);
  return { res, location: new URL(res.headers.get('location')!) };
}

/** A form from the IdP for this account (not posted yet). */
async function formFor(nameId: string, attributes: Record<string, string | string[]> = {}, overrides = {}, query = ''): Promise<PostedForm> {
  const url = await begin('corp', query);
  idp.nextLogin(nameId, attributes, overrides);
  const form = await idp.signIn(url);
  expect(form.action).toBe(ACS);
  return form;
}

function sessionOf(res: Response): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith('svc_session_token='));
}

async function expectRefused(form: Pick<PostedForm, 'SAMLResponse' | 'RelayState'>, reason = 'INVALID_TOKEN'): Promise<void> {
  const { res, location } = await post(form);
  expect(location.searchParams.get('reason')).toBe(reason);
  expect(sessionOf(res)).toBeUndefined();
  expect(res.headers.get('location')).not.toMatch(/Error|stack|BEGIN/);
}

async function userOf(identifier: string) {
  const [row] = await run<Record<string, any>>(t.services.database.db,
    'select id, email, first_name, last_name, role, provider, external_identifier, auth_data, status from svc_users where external_identifier = $1', [identifier]);
  return row;
}

/** The Response's assertion, as the IdP signed it. */
function signedAssertion(xml: string): string {
  const m = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml);
  if (!m) throw new Error('no assertion');
  return m[0];
}

/** An unsigned assertion like the signed one, for someone else. */
function forgedAssertion(xml: string, nameId: string): string {
  return signedAssertion(xml).replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '')
    .replace(/ID="[^"]+"/, `ID="_forged${randomUUID()}"`)
    .replace(/<saml:NameID([^>]*)>[^<]*<\/saml:NameID>/, `<saml:NameID$1>${nameId}</saml:NameID>`);
}

describe('SAML 2.0 sign-in', () => {
  it('GET /auth lists it with driver saml', async () => {
    const res = await t.req('GET', '/auth', undefined, { token: null });
    expect(res.body.data).toContainEqual({ name: 'corp', driver: 'saml', label: 'Corp SSO', icon: 'badge' });
  });

  it('serves the SP metadata: entity id, the ACS URL (HTTP-POST), assertions wanted signed', async () => {
    const res = await t.app.request('/auth/login/corp/metadata');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/samlmetadata\+xml/);
    const xml = await res.text();
    expect(xml).toContain(`entityID="${SP_ENTITY}"`);
    expect(xml).toMatch(new RegExp(`AssertionConsumerService[^>]*Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"[^>]*Location="${ACS}"`));
    expect(xml).toContain('WantAssertionsSigned="true"');
    expect((await t.app.request('/auth/login/nope/metadata')).status).toBe(404);
  });

  it('starts with an AuthnRequest by redirect; the flow is in a signed RelayState, no cookie', async () => {
    const url = new URL(await begin());
    expect(url.origin + url.pathname).toBe(idp.ssoUrl);
    expect(url.searchParams.get('SAMLRequest')).toBeTruthy();
    expect(url.searchParams.get('RelayState')!.split('.')).toHaveLength(3);
  });

  it('first sign-in creates the user (provider, NameID); groups map to a role; the second matches', async () => {
    const form = await formFor('pers-alice', { email: 'alice@corp.test', firstName: 'Alice', lastName: 'A', groups: ['staff', 'editors'] });
    const { res, location } = await post(form);
    expect(location.toString()).toBe(`${PUBLIC_URL}/admin/`);
    expect(sessionOf(res)).toBeTruthy();
    const user = await userOf('pers-alice');
    expect(user).toMatchObject({ provider: 'corp', email: 'alice@corp.test', first_name: 'Alice', last_name: 'A', role: EDITOR_ROLE, status: 'active' });
    expect(user.auth_data).toMatchObject({ nameID: 'pers-alice' });

    const again = await post(await formFor('pers-alice', { email: 'alice@corp.test' }));
    expect(sessionOf(again.res)).toBeTruthy();
    const [{ n }] = await run<{ n: number }>(t.services.database.db, "select count(*)::int as n from svc_users where provider = 'corp' and external_identifier = 'pers-alice'");
    expect(n).toBe(1);
  });

  it('a session from the ACS works for /users/me; mode and redirect come back from RelayState', async () => {
    const form = await formFor('pers-bob', { email: 'bob@corp.test' }, {}, `?redirect=${encodeURIComponent(`${PUBLIC_URL}/admin/content`)}`);
    const { res, location } = await post(form);
    expect(location.toString()).toBe(`${PUBLIC_URL}/admin/content`);
    const me = await t.app.request('/users/me', { headers: { cookie: sessionOf(res)!.split(';')[0] } });
    expect(me.status).toBe(200);
    expect((await me.json()).data.id).toBe((await userOf('pers-bob')).id);
    expect((await userOf('pers-bob')).role).toBe(DEFAULT_ROLE);
  });

  it('registration off: an unknown identity is refused', async () => {
    const url = await begin('closed');
    idp.nextLogin('pers-nobody', {});
    const form = await idp.signIn(url);
    const { res, location } = await post(form, 'closed');
    expect(location.searchParams.get('reason')).toBe('INVALID_CREDENTIALS');
    expect(sessionOf(res)).toBeUndefined();
    expect(await userOf('pers-nobody')).toBeUndefined();
  });

  it('an IdP error status (AuthnFailed) is a reason code', async () => {
    const url = await begin();
    idp.nextFailure('AuthnFailed');
    await expectRefused(await idp.signIn(url), 'INVALID_CREDENTIALS');
  });
});

describe('SAML responses that must be refused', () => {
  it('unsigned: the assertion without its signature', async () => {
    const form = await formFor('pers-unsigned');
    const xml = decode(form.SAMLResponse).replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, '');
    expect(xml).not.toContain('Signature');
    await expectRefused({ ...form, SAMLResponse: encode(xml) });
    expect(await userOf('pers-unsigned')).toBeUndefined();
  });

  it('signed by another key (the same response re-signed by an attacker)', async () => {
    const form = await formFor('pers-other-key');
    const attacker = makeKeyPair('attacker');
    const unsigned = decode(form.SAMLResponse).replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, '');
    const resigned = SamlLib.constructSAMLSignature({
      rawSamlMessage: unsigned, privateKey: attacker.key, signingCert: certBody(attacker.cert), isBase64Output: false,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      referenceTagXPath: "/*[local-name(.)='Response']/*[local-name(.)='Assertion']",
      signatureConfig: { prefix: 'ds', location: { reference: "/*[local-name(.)='Response']/*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } },
    });
    expect(resigned).toContain('SignatureValue');
    await expectRefused({ ...form, SAMLResponse: encode(resigned) });
    expect(await userOf('pers-other-key')).toBeUndefined();
  });

  it('signature wrapping: a second, unsigned assertion for the attacker before the signed one', async () => {
    const form = await formFor('pers-victim-1');
    const xml = decode(form.SAMLResponse);
    const wrapped = xml.replace(signedAssertion(xml), forgedAssertion(xml, 'pers-attacker-1') + signedAssertion(xml));
    await expectRefused({ ...form, SAMLResponse: encode(wrapped) });
    expect(await userOf('pers-attacker-1')).toBeUndefined();
  });

  it('signature wrapping: the signed assertion moved into Extensions, the attacker\'s in its place', async () => {
    const form = await formFor('pers-victim-2');
    const xml = decode(form.SAMLResponse);
    const wrapped = xml.replace(signedAssertion(xml), forgedAssertion(xml, 'pers-attacker-2'))
      .replace('</saml:Issuer>', `</saml:Issuer><samlp:Extensions>${signedAssertion(xml)}</samlp:Extensions>`);
    await expectRefused({ ...form, SAMLResponse: encode(wrapped) });
    expect(await userOf('pers-attacker-2')).toBeUndefined();
    expect(await userOf('pers-victim-2')).toBeUndefined();
  });

  it('signature wrapping: the signed assertion nested inside the attacker\'s (Advice)', async () => {
    const form = await formFor('pers-victim-3');
    const xml = decode(form.SAMLResponse);
    const forged = forgedAssertion(xml, 'pers-attacker-3').replace('</saml:Assertion>', `<saml:Advice>${signedAssertion(xml)}</saml:Advice></saml:Assertion>`);
    await expectRefused({ ...form, SAMLResponse: encode(xml.replace(signedAssertion(xml), forged)) });
    expect(await userOf('pers-attacker-3')).toBeUndefined();
  });

  it('expired: NotOnOrAfter past by more than the clock skew', async () => {
    await expectRefused(await formFor('pers-expired', {}, { notOnOrAfter: new Date(Date.now() - 5 * 60_000).toISOString() }));
    expect(await userOf('pers-expired')).toBeUndefined();
  });

  it('audience: not our SP entity id', async () => {
    await expectRefused(await formFor('pers-audience', {}, { audience: 'https://other-sp.example/metadata' }));
  });

  it('Destination: not our ACS URL', async () => {
    await expectRefused(await formFor('pers-destination', {}, { destination: `${PUBLIC_URL}/auth/login/other/callback` }));
    expect(await userOf('pers-destination')).toBeUndefined();
  });

  it('Recipient: not our ACS URL (in the signed assertion)', async () => {
    await expectRefused(await formFor('pers-recipient', {}, { recipient: 'https://other-sp.example/acs' }));
    expect(await userOf('pers-recipient')).toBeUndefined();
  });

  it('InResponseTo: not the AuthnRequest of the RelayState', async () => {
    await expectRefused(await formFor('pers-irt', {}, { inResponseTo: '_someotherrequest' }));
    expect(await userOf('pers-irt')).toBeUndefined();
  });

  it('a response for another flow posted with this flow\'s RelayState', async () => {
    const first = await formFor('pers-swap');
    const second = await formFor('pers-swap');
    await expectRefused({ SAMLResponse: first.SAMLResponse, RelayState: second.RelayState });
  });

  it('issuer: not the metadata\'s entity id', async () => {
    await expectRefused(await formFor('pers-issuer', {}, { issuer: 'https://evil-idp.example' }));
  });

  it('a tampered, missing or foreign RelayState', async () => {
    const form = await formFor('pers-relay');
    const [h, p, s] = form.RelayState.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, redirect: 'https://evil.example/' })).toString('base64url')}.${s}`;
    const tampered = await post({ ...form, RelayState: forged });
    expect(tampered.location.toString()).toBe(`${PUBLIC_URL}/admin/?reason=INVALID_TOKEN`);
    expect(sessionOf(tampered.res)).toBeUndefined();
    const missing = await post({ ...form, RelayState: '' });
    expect(missing.location.searchParams.get('reason')).toBe('INVALID_TOKEN');
    // The other SAML provider's RelayState is refused by this one.
    const closedUrl = new URL(await begin('closed'));
    await expectRefused({ ...form, RelayState: closedUrl.searchParams.get('RelayState')! });
    expect(await userOf('pers-relay')).toBeUndefined();
  });

  it('a replayed response: the second post of the same assertion', async () => {
    const form = await formFor('pers-replay', { email: 'replay@corp.test' });
    const first = await post(form);
    expect(sessionOf(first.res)).toBeTruthy();
    await expectRefused(form);
  });

  it('the GET callback of a SAML provider and the SAML POST of an OAuth-less name are not flows', async () => {
    expect((await t.app.request('/auth/login/corp/callback')).status).toBe(400);
    const res = await t.app.request('/auth/login/nope/callback', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'SAMLResponse=x&RelayState=y',
    });
    expect(res.status).toBe(404);
  });
});

describe('SAML 2.0 sign-in over https: the flow is bound to the browser that started it (login CSRF)', () => {
  const HTTPS_URL = 'https://app.test';
  let s: TestApp;

  beforeAll(async () => {
    s = await createTestApp({
      env: { PUBLIC_URL: HTTPS_URL, AUTH_PROVIDERS: 'corp', AUTH_CORP_DRIVER: 'saml', AUTH_CORP_IDP_METADATA: idp.metadata, AUTH_CORP_ALLOW_PUBLIC_REGISTRATION: 'true' },
    });
    idp.registerSp(await (await s.app.request('/auth/login/corp/metadata')).text());
  }, 60_000);

  afterAll(async () => { await s?.close(); });

  /** Starts a flow: the IdP's form for `nameId` and the binding cookie the start set. */
  async function started(nameId: string): Promise<{ form: PostedForm; binding: string }> {
    const start = await s.app.request('/auth/login/corp', { redirect: 'manual' });
    expect(start.status).toBe(302);
    const [cookie] = start.headers.getSetCookie();
    expect(cookie).toMatch(/^svc_sso_saml=[\w-]{20,};/);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; SameSite=None/i);
    expect(cookie).toMatch(/; Path=\/auth\/login\/corp/i);
    idp.nextLogin(nameId, { email: `${nameId}@corp.test` });
    return { form: await idp.signIn(start.headers.get('location')!), binding: cookie.split(';')[0] };
  }

  async function postAs(form: PostedForm, cookie: string | null) {
    const res = await s.app.request('/auth/login/corp/callback', {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams({ SAMLResponse: form.SAMLResponse, RelayState: form.RelayState }).toString(),
    });
    expect(res.status).toBe(302);
    return { res, reason: new URL(res.headers.get('location')!).searchParams.get('reason') };
  }

  it('signs in the browser that started the flow; refuses the same answer posted by a browser without the cookie or with another flow\'s', async () => {
    const attacker = await started('pers-attacker');
    const other = await started('pers-other');
    // The attacker's unused answer, posted from the victim's browser: no binding cookie, or the victim's own flow's.
    for (const cookie of [null, other.binding]) {
      const { res, reason } = await postAs(attacker.form, cookie);
      expect(reason).toBe('INVALID_TOKEN');
      expect(sessionOf(res)).toBeUndefined();
    }
    expect(await userOf('pers-attacker')).toBeUndefined();
    // The browser that started it.
    const { res, reason } = await postAs(attacker.form, attacker.binding);
    expect(reason).toBeNull();
    expect(sessionOf(res)).toBeTruthy();
    // The binding cookie is spent.
    expect(res.headers.getSetCookie().some((c) => /^svc_sso_saml=;/.test(c) || (c.startsWith('svc_sso_saml=') && /Max-Age=0/i.test(c)))).toBe(true);
  });
});
