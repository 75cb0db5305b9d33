/** The redirect drivers: `openid` (OpenID Connect through openid-client: discovery, authorization code + PKCE,
 * state and nonce, ID-token validation with the issuer's JWKS, userinfo) and `oauth2` (plain OAuth 2.0 with
 * configured authorize/token/profile URLs, e.g. GitHub: authorization code + PKCE, then the profile with the
 * access token). Failures are SsoFlowErrors with a reason code; their detail is for the log only. */
import * as oidc from 'openid-client';
import { SsoFlowError, type SsoReason } from './failure.ts';
import type { FlowState } from './flow-state.ts';
import type { LoadedSsoProviders } from './registry.ts';
import type { ExternalProfile, OAuthProviderConfig } from './types.ts';

const TIMEOUT_MS = 10_000;

export interface AuthorizationStart { url: string; state: string; nonce: string; verifier: string }

/** The issuer's discovered configuration, once per provider per registry load (a provider change reloads it).
 * openid-client refuses plain http unless told otherwise: allowed only when the configured issuer itself is http
 * (a development or test IdP on 127.0.0.1), never for an https issuer. */
function discover(loaded: LoadedSsoProviders, p: OAuthProviderConfig): Promise<oidc.Configuration> {
  return loaded.memo(`openid:${p.name}`, async () => {
    const issuer = new URL(p.issuerUrl!);
    const insecure = issuer.protocol === 'http:';
    try {
      return await oidc.discovery(issuer, p.clientId, p.clientSecret, oidc.ClientSecretPost(p.clientSecret), {
        timeout: TIMEOUT_MS / 1000,
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
    } catch (err) {
      throw classify(err, `OpenID discovery of ${p.issuerUrl} failed`);
    }
  });
}

/** An openid-client / network failure as a reason code. */
function classify(err: unknown, context: string): SsoFlowError {
  if (err instanceof SsoFlowError) return err;
  const e = err as { code?: string; error?: string; message?: string; cause?: unknown };
  const detail = `${context}: ${e.code ?? ''} ${e.error ?? ''} ${e.message ?? String(err)}`.replace(/\s+/g, ' ').trim();
  let reason: SsoReason = 'INVALID_PROVIDER';
  if (err instanceof oidc.ResponseBodyError) reason = err.error === 'invalid_grant' ? 'INVALID_CREDENTIALS' : 'INVALID_PROVIDER';
  else if (err instanceof oidc.AuthorizationResponseError) reason = err.error === 'access_denied' ? 'INVALID_CREDENTIALS' : 'INVALID_PROVIDER';
  else if (typeof e.code === 'string' && /JWT|JWS|JWK|KEY_SELECTION|ATTRIBUTE_COMPARISON/.test(e.code)) reason = 'INVALID_TOKEN';
  else if (isNetworkError(err)) reason = 'SERVICE_UNAVAILABLE';
  return new SsoFlowError(reason, detail);
}

function isNetworkError(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 4; e = (e as { cause?: unknown }).cause, i++) {
    const x = e as { name?: string; code?: string; message?: string };
    if (x.name === 'TimeoutError' || x.name === 'AbortError' || (x.code && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|UND_ERR)/.test(x.code))) return true;
    if (x.name === 'TypeError' && x.message === 'fetch failed') return true;
  }
  return false;
}

export async function startAuthorization(loaded: LoadedSsoProviders, p: OAuthProviderConfig, callbackUrl: string): Promise<AuthorizationStart> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const challenge = await oidc.calculatePKCECodeChallenge(verifier);
  if (p.driver === 'openid') {
    const config = await discover(loaded, p);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: callbackUrl, scope: p.scope, state, nonce, code_challenge: challenge, code_challenge_method: 'S256',
    });
    return { url: url.toString(), state, nonce, verifier };
  }
  const url = new URL(p.authorizeUrl!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', p.clientId);
  url.searchParams.set('redirect_uri', callbackUrl);
  url.searchParams.set('scope', p.scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return { url: url.toString(), state, nonce, verifier };
}

/** `callback`: the callback URL as the IdP redirected to it (PUBLIC_URL-based, with the IdP's query). The state
 * was compared with the flow's already. */
export async function finishAuthorization(loaded: LoadedSsoProviders, p: OAuthProviderConfig, callback: URL, flow: FlowState): Promise<ExternalProfile> {
  if (p.driver === 'openid') {
    const config = await discover(loaded, p);
    let claims: Record<string, unknown>;
    let accessToken: string;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true,
      });
      claims = { ...tokens.claims() } as Record<string, unknown>;
      accessToken = tokens.access_token;
    } catch (err) {
      throw classify(err, `Code exchange at ${p.name}`);
    }
    if (config.serverMetadata().userinfo_endpoint) {
      try {
        const info = await oidc.fetchUserInfo(config, accessToken, String(claims.sub));
        // The ID token's claims win where both have one (they are what the IdP signed for us).
        claims = { ...info, ...claims };
      } catch (err) {
        throw classify(err, `Userinfo at ${p.name}`);
      }
    }
    return profileOf(p, claims, true);
  }
  const code = callback.searchParams.get('code');
  if (!code) throw new SsoFlowError('INVALID_PROVIDER', `${p.name}: the callback carries no code`);
  const redirectUri = new URL(callback.pathname, callback).toString();
  let token: Record<string, unknown>;
  try {
    const res = await fetch(p.accessUrl!, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: p.clientId, client_secret: p.clientSecret,
        code_verifier: flow.verifier,
      }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await res.text();
    // GitHub answers form-encoded unless JSON is accepted, and 200 with an `error` on a bad code.
    token = text.trim().startsWith('{') ? JSON.parse(text) as Record<string, unknown> : Object.fromEntries(new URLSearchParams(text));
    if (!res.ok || typeof token.error === 'string' || typeof token.access_token !== 'string') {
      const reason = token.error === 'invalid_grant' || token.error === 'bad_verification_code' ? 'INVALID_CREDENTIALS' : 'INVALID_PROVIDER';
      throw new SsoFlowError(reason, `Token endpoint of ${p.name} answered ${res.status} ${String(token.error ?? 'without an access token')}`);
    }
  } catch (err) {
    throw err instanceof SsoFlowError ? err : classify(err, `Token endpoint of ${p.name}`);
  }
  let profile: Record<string, unknown>;
  try {
    const res = await fetch(p.profileUrl!, {
      headers: { accept: 'application/json', authorization: `Bearer ${String(token.access_token)}` },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) throw new SsoFlowError('INVALID_PROVIDER', `Profile endpoint of ${p.name} answered ${res.status}`);
    profile = await res.json() as Record<string, unknown>;
  } catch (err) {
    throw err instanceof SsoFlowError ? err : classify(err, `Profile endpoint of ${p.name}`);
  }
  return profileOf(p, profile, false);
}

function text(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : null;
}

function profileOf(p: OAuthProviderConfig, claims: Record<string, unknown>, openid: boolean): ExternalProfile {
  const identifier = text(claims[p.identifierKey]);
  if (!identifier) throw new SsoFlowError('INVALID_PROVIDER', `${p.name}: the profile has no "${p.identifierKey}"`);
  const groupsRaw = claims[p.groupClaimName];
  const groups = Array.isArray(groupsRaw) ? groupsRaw.filter((g): g is string => typeof g === 'string') : typeof groupsRaw === 'string' ? [groupsRaw] : [];
  const email = text(claims[p.emailKey]);
  return {
    identifier,
    email: email ? email.toLowerCase() : null,
    emailVerified: openid ? claims.email_verified === true : false,
    firstName: text(claims[p.firstNameKey]),
    lastName: text(claims[p.lastNameKey]),
    groups,
    authData: openid ? { sub: identifier, iss: p.issuerUrl } : { id: identifier },
  };
}
