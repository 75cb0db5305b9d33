/** Signed access tokens: HS256 JWTs through jose, issuer `svc`, payload as Directus' (id, role, app_access,
 * admin_access, and session for session-cookie logins). */
import { SignJWT, decodeJwt, jwtVerify, errors as joseErrors } from 'jose';
import { InvalidTokenError, TokenExpiredError } from '../errors.ts';

export const TOKEN_ISSUER = 'svc';

export interface AccessTokenPayload {
  id: string;
  role: string | null;
  app_access: boolean;
  admin_access: boolean;
  /** The svc_sessions token this access token is bound to (session mode); checked on every request. */
  session?: string;
}

const keys = new Map<string, Uint8Array>();
function keyOf(secret: string): Uint8Array {
  let key = keys.get(secret);
  if (!key) {
    key = new TextEncoder().encode(secret);
    keys.set(secret, key);
  }
  return key;
}

export async function signAccessToken(payload: AccessTokenPayload, secret: string, ttlMs: number): Promise<string> {
  return new SignJWT({ ...payload })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(TOKEN_ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor((Date.now() + ttlMs) / 1000))
    .sign(keyOf(secret));
}

/** True when the token is a JWT claiming to be ours (issuer `svc`), as Directus' isDirectusJWT: such tokens
 * are verified as access tokens; anything else is tried as a static token. Nothing is trusted yet. */
export function isServiceJwt(token: string): boolean {
  if (token.split('.').length !== 3) return false;
  try {
    return decodeJwt(token).iss === TOKEN_ISSUER;
  } catch {
    return false;
  }
}

/** Verifies signature (HS256 only, so `alg: none` and other algorithms fail), issuer and expiry. */
export async function verifyAccessToken(token: string, secret: string): Promise<AccessTokenPayload> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keyOf(secret), { issuer: TOKEN_ISSUER, algorithms: ['HS256'] }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw new TokenExpiredError();
    throw new InvalidTokenError();
  }
  const { id, role, session } = payload;
  if (typeof id !== 'string' || (role !== null && role !== undefined && typeof role !== 'string')
    || (session !== undefined && typeof session !== 'string')) {
    throw new InvalidTokenError();
  }
  return {
    id,
    role: (role as string | null | undefined) ?? null,
    app_access: payload.app_access === true,
    admin_access: payload.admin_access === true,
    ...(session !== undefined ? { session: session as string } : {}),
  };
}
