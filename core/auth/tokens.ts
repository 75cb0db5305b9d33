/** Signed access tokens: HS256 JWTs through jose, issuer `svc`, payload as Directus' (id, role, app_access,
 * admin_access, and session for session-cookie logins). */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { InvalidTokenError, TokenExpiredError } from '../errors.ts';

export const TOKEN_ISSUER = 'svc';

/** What a share token may read (Directus' share_scope). */
export interface ShareScope { collection: string; item: string }

export interface AccessTokenPayload {
  /** The user; absent (null) in share tokens, which act as the share's role without a user. */
  id: string | null;
  role: string | null;
  app_access: boolean;
  admin_access: boolean;
  /** The svc_sessions token this access token is bound to (session mode); checked on every request. */
  session?: string;
  /** Share tokens (POST /shares/auth): the svc_shares id and what it exposes. */
  share?: string;
  share_scope?: ShareScope;
  /** Impersonation tokens (POST /auth/impersonate): the user acting as `id`. */
  impersonated_by?: string;
  /** Login tokens of modes json/cookie: sessionRef() of the refresh token issued with it, so a password change
   * can keep the caller's own session (core/auth/user-revocation.ts). */
  sid?: string;
  /** A login whose user must set up two-factor first (core/auth/tfa-setup.ts): the token may only enrol. */
  tfa_setup_required?: true;
}

interface VerifiedToken { payload: AccessTokenPayload; expMs: number; issuedMs: number }

interface SecretState {
  /** The imported HMAC key: importing it per call doubles the cost of a verification. */
  key: Promise<CryptoKey>;
  /** Tokens already verified with this secret -> payload, expiry and signing time (ms). Keyed by the whole token, signature
   * included, so only byte-identical copies of a verified token hit; expiry is still checked on each hit. */
  verified: Map<string, VerifiedToken>;
}

const MAX_VERIFIED = 10_000;
const secrets = new Map<string, SecretState>();
function stateOf(secret: string): SecretState {
  let state = secrets.get(secret);
  if (!state) {
    state = {
      key: crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
      verified: new Map(),
    };
    secrets.set(secret, state);
  }
  return state;
}

export async function signAccessToken(payload: AccessTokenPayload, secret: string, ttlMs: number): Promise<string> {
  // Share tokens carry no id claim (as Directus').
  const { id, ...rest } = payload;
  // `iat` counts whole seconds, too coarse to tell a token signed just before a revocation from one signed
  // just after (core/auth/token-cutoff.ts).
  const claims = { ...rest, iat_ms: Date.now() };
  return new SignJWT(id === null ? claims : { id, ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(TOKEN_ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor((Date.now() + ttlMs) / 1000))
    .sign(await stateOf(secret).key);
}

/** True when the token is a JWT claiming to be ours (issuer `svc`), as Directus' isDirectusJWT: such tokens
 * are verified as access tokens; anything else is tried as a static token. Nothing is trusted yet. */
export function isServiceJwt(token: string): boolean {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first <= 0 || second < 0 || token.indexOf('.', second + 1) >= 0) return false;
  try {
    const claims: unknown = JSON.parse(Buffer.from(token.slice(first + 1, second), 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null && (claims as { iss?: unknown }).iss === TOKEN_ISSUER;
  } catch {
    return false;
  }
}

/** True when this exact token was verified before with the secret (a map lookup: skips isServiceJwt's decode). */
export function isVerifiedBefore(token: string, secret: string): boolean {
  return secrets.get(secret)?.verified.has(token) ?? false;
}

/** Verifies signature (HS256 only, so `alg: none` and other algorithms fail), issuer and expiry. A token
 * verified before is answered from memory (the HMAC through WebCrypto costs ~0.1 ms, the hit ~1 µs). */
export async function verifyAccessToken(token: string, secret: string): Promise<AccessTokenPayload> {
  return (await verifiedAccessToken(token, secret)).payload;
}

/** verifyAccessToken with when the token was signed (ms): its `iat_ms` claim, else the start of its `iat` second. */
export async function verifiedAccessToken(token: string, secret: string): Promise<{ payload: AccessTokenPayload; issuedMs: number }> {
  const state = stateOf(secret);
  const hit = state.verified.get(token);
  if (hit) {
    if (Date.now() < hit.expMs) return hit;
    state.verified.delete(token);
    throw new TokenExpiredError();
  }
  const verified = await verifyWithJose(token, await state.key);
  if (state.verified.size >= MAX_VERIFIED) state.verified.clear();
  state.verified.set(token, verified);
  return verified;
}

/** The session claim of a valid token of ours (refresh/logout in session mode read the session from the
 * session cookie's token), or null. An expired cookie never gets here: authentication refuses it first. */
export async function sessionClaim(token: string, secret: string): Promise<string | null> {
  if (!isServiceJwt(token)) return null;
  try {
    return (await verifyAccessToken(token, secret)).session ?? null;
  } catch {
    return null;
  }
}

function shareScopeOf(raw: unknown): ShareScope | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { collection, item } = raw as Record<string, unknown>;
  return typeof collection === 'string' && typeof item === 'string' ? Object.freeze({ collection, item }) : null;
}

async function verifyWithJose(token: string, key: CryptoKey): Promise<VerifiedToken> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, key, { issuer: TOKEN_ISSUER, algorithms: ['HS256'], requiredClaims: ['exp'] }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw new TokenExpiredError();
    throw new InvalidTokenError();
  }
  const { id, role, session, share, impersonated_by: impersonatedBy, sid, tfa_setup_required: tfaSetup } = payload;
  const scope = shareScopeOf(payload.share_scope);
  const shareToken = share !== undefined;
  if ((shareToken ? typeof share !== 'string' || !scope || id !== undefined : typeof id !== 'string')
    || (role !== null && role !== undefined && typeof role !== 'string')
    || (session !== undefined && typeof session !== 'string')
    || (impersonatedBy !== undefined && (typeof impersonatedBy !== 'string' || shareToken))
    || (sid !== undefined && typeof sid !== 'string')
    || (tfaSetup !== undefined && (tfaSetup !== true || shareToken))) {
    throw new InvalidTokenError();
  }
  return {
    payload: Object.freeze({
      id: shareToken ? null : id as string,
      role: (role as string | null | undefined) ?? null,
      // A share never carries more than its role's permissions.
      app_access: !shareToken && payload.app_access === true,
      admin_access: !shareToken && payload.admin_access === true,
      ...(session !== undefined ? { session: session as string } : {}),
      ...(shareToken ? { share: share as string, share_scope: scope! } : {}),
      ...(impersonatedBy !== undefined ? { impersonated_by: impersonatedBy as string } : {}),
      ...(sid !== undefined ? { sid: sid as string } : {}),
      ...(tfaSetup === true ? { tfa_setup_required: true as const } : {}),
    }),
    expMs: (payload.exp as number) * 1000,
    // Tokens without iat_ms count from the start of their second (the earliest they can have been signed).
    issuedMs: typeof payload.iat_ms === 'number' ? payload.iat_ms : typeof payload.iat === 'number' ? payload.iat * 1000 : 0,
  };
}
