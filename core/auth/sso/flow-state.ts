/** What a redirect sign-in carries between its start and its callback, and the link token: signed JWTs (HS256
 * with a key derived from SECRET, jose), so any process (or Lambda) can check them; nothing is kept in memory.
 * The flow state travels in an httpOnly cookie scoped to /auth/login/{provider} for 10 minutes. */
import { createHash } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { LoginMode } from '../login.ts';

export const FLOW_TTL_SECONDS = 600;
export const LINK_TTL_SECONDS = 300;
export const FLOW_COOKIE = 'svc_sso_flow';

export type SsoMode = Extract<LoginMode, 'session' | 'cookie'>;

export interface FlowState {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
  redirect: string;
  mode: SsoMode;
  /** The user a link flow binds the identity to (from a verified link token), or null for a sign-in. */
  link: string | null;
}

const keys = new Map<string, Uint8Array>();
function keyOf(secret: string, use: string): Uint8Array {
  const id = `${use}:${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = createHash('sha256').update(`svc-sso-${use}:${secret}`).digest();
    keys.set(id, key);
  }
  return key;
}

export async function sealFlow(flow: FlowState, secret: string): Promise<string> {
  return new SignJWT({ ...flow }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt()
    .setExpirationTime(`${FLOW_TTL_SECONDS}s`).setAudience(`sso-flow:${flow.provider}`).sign(keyOf(secret, 'flow'));
}

/** The flow of a provider's cookie, or null when missing, forged, expired or for another provider. */
export async function openFlow(token: string | undefined, provider: string, secret: string): Promise<FlowState | null> {
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, keyOf(secret, 'flow'), { audience: `sso-flow:${provider}`, algorithms: ['HS256'] });
    const p = payload as unknown as FlowState;
    if (typeof p.state !== 'string' || typeof p.verifier !== 'string' || typeof p.redirect !== 'string') return null;
    return { provider, state: p.state, nonce: p.nonce, verifier: p.verifier, redirect: p.redirect, mode: p.mode === 'cookie' ? 'cookie' : 'session', link: typeof p.link === 'string' ? p.link : null };
  } catch {
    return null;
  }
}

/** A SAML flow: the IdP answers with a cross-site form POST, which carries no SameSite=Lax cookie, so the flow
 * travels in RelayState instead (signed like the cookie, with its own audience so neither passes for the other). */
export interface SamlFlowState {
  provider: string;
  /** The AuthnRequest's ID: the response's InResponseTo must name it. */
  requestId: string;
  redirect: string;
  mode: SsoMode;
  link: string | null;
  /** The SHA-256 (base64url) of the browser binding cookie's value, or null when PUBLIC_URL is not https. */
  browser: string | null;
}

export async function sealSamlRelay(flow: SamlFlowState, secret: string): Promise<string> {
  return new SignJWT({ requestId: flow.requestId, redirect: flow.redirect, mode: flow.mode, link: flow.link, browser: flow.browser })
    .setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(`${FLOW_TTL_SECONDS}s`)
    .setAudience(`sso-saml:${flow.provider}`).sign(keyOf(secret, 'flow'));
}

/** The flow of a RelayState and when it started, or null when missing, forged, expired or for another provider. */
export async function openSamlRelay(token: string | undefined, provider: string, secret: string): Promise<(SamlFlowState & { issuedAt: number }) | null> {
  if (!token) return null;
  try {
    const { payload: p } = await jwtVerify(token, keyOf(secret, 'flow'), { audience: `sso-saml:${provider}`, algorithms: ['HS256'] });
    if (typeof p.requestId !== 'string' || typeof p.redirect !== 'string' || typeof p.iat !== 'number') return null;
    return {
      provider, requestId: p.requestId, redirect: p.redirect, mode: p.mode === 'cookie' ? 'cookie' : 'session',
      link: typeof p.link === 'string' ? p.link : null, browser: typeof p.browser === 'string' ? p.browser : null, issuedAt: p.iat * 1000,
    };
  } catch {
    return null;
  }
}

/** A 5-minute token naming the user who proved their password and may bind `provider`'s identity. */
export async function signLinkToken(user: string, provider: string, secret: string): Promise<string> {
  return new SignJWT({ user }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt()
    .setExpirationTime(`${LINK_TTL_SECONDS}s`).setAudience(`sso-link:${provider}`).sign(keyOf(secret, 'link'));
}

export async function verifyLinkToken(token: string, provider: string, secret: string): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret, 'link'), { audience: `sso-link:${provider}`, algorithms: ['HS256'] });
    return typeof payload.user === 'string' ? payload.user : null;
  } catch {
    return null;
  }
}
