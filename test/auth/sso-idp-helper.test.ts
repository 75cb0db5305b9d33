/** The tests' OpenID provider (test/helpers/oidc-idp.ts) works with a real relying party (openid-client): code +
 * PKCE, ID token, userinfo, key rotation, the clickable interaction page. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { startOidcIdp, type TestIdp } from '../helpers/oidc-idp.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
let idp: TestIdp;

beforeAll(async () => {
  idp = await startOidcIdp({
    clients: [{ client_id: 'rp', client_secret: 'rp-secret', redirect_uris: [REDIRECT] }],
    accounts: [{ sub: 'alice', email: 'alice@example.com', email_verified: true, given_name: 'Alice', family_name: 'A', groups: ['staff'] }],
  });
});
afterAll(() => idp?.close());

async function flow(): Promise<{ claims: Record<string, unknown>; userinfo: Record<string, unknown> }> {
  const config = await client.discovery(new URL(idp.issuer), 'rp', 'rp-secret', client.ClientSecretPost('rp-secret'), { execute: [client.allowInsecureRequests] });
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT, scope: 'openid email profile groups', state, nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  const back = await idp.signIn(url.toString(), 'alice');
  const tokens = await client.authorizationCodeGrant(config, new URL(back), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
  const claims = tokens.claims()!;
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
  return { claims: claims as Record<string, unknown>, userinfo: userinfo as Record<string, unknown> };
}

describe('test OpenID provider', () => {
  it('signs an account in with code + PKCE and serves userinfo; still after a key rotation', async () => {
    const first = await flow();
    expect(first.claims.sub).toBe('alice');
    expect(first.userinfo).toMatchObject({ email: 'alice@example.com', given_name: 'Alice', groups: ['staff'] });
    const before = idp.currentKid();
    await idp.rotateKeys();
    expect(idp.currentKid()).not.toBe(before);
    const jwks = (await (await fetch(`${idp.issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k) => k.kid)).toEqual([idp.currentKid()]);
    expect((await flow()).claims.sub).toBe('alice');
  });

  it('shows a page with a "Sign in as <sub>" button that completes the sign-in', async () => {
    const config = await client.discovery(new URL(idp.issuer), 'rp', 'rp-secret', client.ClientSecretPost('rp-secret'), { execute: [client.allowInsecureRequests] });
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', state: 's1', code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const first = await fetch(url, { redirect: 'manual' });
    const cookies = first.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const page = await fetch(new URL(first.headers.get('location')!, idp.issuer), { headers: { cookie: cookies } });
    const html = await page.text();
    expect(html).toContain('Sign in as alice');
    const action = /action="([^"]+)"/.exec(html)![1];
    const posted = await fetch(new URL(action, idp.issuer), { method: 'POST', redirect: 'manual', headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' }, body: 'sub=alice' });
    expect(posted.status).toBe(303);
    const resumed = await fetch(new URL(posted.headers.get('location')!, idp.issuer), { redirect: 'manual', headers: { cookie: cookies } });
    expect(resumed.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?code=/);
  });
});
