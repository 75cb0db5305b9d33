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
