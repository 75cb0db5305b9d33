/** Signed access tokens (HS256 JWT through jose). */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { InvalidTokenError, TokenExpiredError } from '../errors.ts';

export const TOKEN_ISSUER = 'svc';

export interface AccessTokenPayload {
  id: string;
  role: string | null;
  app_access: boolean;
  admin_access: boolean;
  /** Session token this access token belongs to, when issued by a session/refresh login. */
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

/** True when the string has the shape of a JWT (three base64url segments). */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
}

export async function verifyAccessToken(token: string, secret: string): Promise<AccessTokenPayload> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), { issuer: TOKEN_ISSUER, algorithms: ['HS256'] });
    if (typeof payload.id !== 'string') throw new InvalidTokenError();
    return payload as unknown as AccessTokenPayload;
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw new TokenExpiredError();
    if (err instanceof InvalidTokenError) throw err;
    throw new InvalidTokenError();
  }
}
