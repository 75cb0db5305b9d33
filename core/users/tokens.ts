/** Single-purpose signed tokens mailed to users (invitation, password reset, registration), as Directus'
 * `{email, scope}` JWTs: HS256 with SECRET. They carry no `id`, so they never pass as access tokens. */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { InvalidTokenError, TokenExpiredError } from '../errors.ts';
import { TOKEN_ISSUER } from '../auth/tokens.ts';

export type MailTokenScope = 'invite' | 'password-reset' | 'pending-registration';

export interface MailTokenPayload {
  email: string;
  scope: MailTokenScope;
  /** Password reset: a digest of the password hash at request time, so the token works once. */
  hash?: string;
}

const keys = new Map<string, Uint8Array>();
function keyOf(secret: string): Uint8Array {
  let key = keys.get(secret);
  if (!key) keys.set(secret, key = new TextEncoder().encode(secret));
  return key;
}

export function signMailToken(payload: MailTokenPayload, secret: string, ttlMs: number): Promise<string> {
  return new SignJWT({ ...payload })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(TOKEN_ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor((Date.now() + ttlMs) / 1000))
    .sign(keyOf(secret));
}

/** Expired -> 401 TOKEN_EXPIRED; malformed, wrongly signed or of another scope -> 401 INVALID_TOKEN. */
export async function verifyMailToken(token: unknown, secret: string, scope: MailTokenScope): Promise<MailTokenPayload> {
  if (typeof token !== 'string' || token === '') throw new InvalidTokenError();
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keyOf(secret), { issuer: TOKEN_ISSUER, algorithms: ['HS256'], requiredClaims: ['exp'] }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw new TokenExpiredError();
    throw new InvalidTokenError();
  }
  if (payload.scope !== scope || typeof payload.email !== 'string') throw new InvalidTokenError();
  return { email: payload.email, scope, ...(typeof payload.hash === 'string' ? { hash: payload.hash } : {}) };
}
