/** The credential a realtime connection holds, and turning it into an Accountability the way REST does
 * (core/auth/authenticate.ts). A socket lives longer than a request, so the credential is kept and checked again:
 * when the access rules change anywhere (the schema version), after a logout anywhere (sessions), and when an
 * access token expires. */
import type { IncomingMessage } from 'node:http';
import { parse as parseCookie } from 'hono/utils/cookie';
import type { Accountability } from '../../core/access/accountability.ts';
import { authenticate, type RequestMeta } from '../../core/auth/authenticate.ts';
import { SESSION_TOKEN_COOKIE } from '../../core/auth/cookies.ts';
import { refresh } from '../../core/auth/refresh.ts';
import { InvalidPayloadError } from '../../core/errors.ts';
import type { Services } from '../../core/services.ts';
import { resolveClientIp } from '../../functions/http/client-ip.ts';

export interface Held {
  token: string;
  /** Milliseconds since 1970 when the token stops being accepted; null for tokens without an expiry (static
   * tokens, session tokens checked against their row). */
  expiresAt: number | null;
  /** Its validity rests on a session row (session-mode tokens, session cookies, refresh tokens): a logout can
   * end it. */
  sessionBound: boolean;
}

export function metaOf(services: Services, req: IncomingMessage): RequestMeta {
  const forwarded = req.headers['x-forwarded-for'];
  return {
    ip: resolveClientIp(req.socket.remoteAddress ?? null, Array.isArray(forwarded) ? forwarded.join(',') : forwarded, services.config.trustProxy),
    userAgent: req.headers['user-agent'] ?? null,
    origin: req.headers.origin ?? null,
  };
}

/** The credential of an upgrade (or SSE) request, in REST's order: Bearer header, `access_token` parameter,
 * session cookie. */
export function requestToken(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (auth) {
    const [scheme, value] = auth.trim().split(/\s+/);
    if (scheme?.toLowerCase() === 'bearer' && value) return value;
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  const param = url.searchParams.get('access_token');
  if (param) return param;
  const cookies = req.headers.cookie ? parseCookie(req.headers.cookie) : {};
  return cookies[SESSION_TOKEN_COOKIE] ?? null;
}

function jwtClaims(token: string): { exp?: number; session?: string } | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { exp?: number; session?: string };
  } catch {
    return null;
  }
}

/** What a token is, once authenticate() accepted it. */
export function describe(token: string): Held {
  const claims = jwtClaims(token);
  if (!claims) return { token, expiresAt: null, sessionBound: true };
  return { token, expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : null, sessionBound: claims.session !== undefined };
}

/** Authenticates a held token now (throws REST's 401 errors). */
export async function accountabilityOf(services: Services, token: string | null, meta: RequestMeta): Promise<Accountability> {
  const accountability = await authenticate(services, token, meta);
  if (accountability.tfaSetupOnly) throw new InvalidPayloadError('Set up two-factor authentication before subscribing.');
  return accountability;
}

/** An `auth` message: an access token, email and password, or a refresh token. Returns the token to hold and,
 * when a session was started or rotated, the refresh token the client must keep. */
export async function signIn(services: Services, message: Record<string, unknown>, meta: RequestMeta): Promise<{ token: string; refreshToken?: string }> {
  if (typeof message.access_token === 'string' && message.access_token !== '') return { token: message.access_token };
  if (typeof message.refresh_token === 'string' && message.refresh_token !== '') {
    const issued = await refresh(services, { refreshToken: message.refresh_token, mode: 'json' }, meta);
    return { token: issued.accessToken, refreshToken: issued.refreshToken };
  }
  if (message.email !== undefined || message.password !== undefined) {
    // Password sign-in (and its one-time-password library) loads with the first socket that signs in that way.
    const { login, parseLoginInput } = await import('../../core/auth/login.ts');
    const input = parseLoginInput({ email: message.email, password: message.password, otp: message.otp, mode: 'json' });
    const issued = await login(services, input, meta);
    return { token: issued.accessToken, refreshToken: issued.refreshToken };
  }
  throw new InvalidPayloadError('"auth" needs access_token, refresh_token, or email and password.');
}
