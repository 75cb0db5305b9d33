/** Reads the credential and sets the accountability. Sources, first match wins: `Authorization: Bearer`,
 * the `access_token` query parameter, the session cookie (login mode `session`). */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { authenticate } from '../../core/auth/authenticate.ts';
import { SESSION_TOKEN_COOKIE } from '../../core/auth/cookies.ts';
import { checkTfaSetupRequest } from '../../core/auth/tfa-setup.ts';
import { InvalidTokenError } from '../../core/errors.ts';
import type { AppEnv } from './env.ts';
import { clientIp } from './client-ip.ts';

/** The token of an Authorization header: null for other schemes (as Directus, e.g. Basic from a proxy);
 * a Bearer header without exactly one token is INVALID_TOKEN. */
export function bearerToken(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const parts = authorization.trim().split(/\s+/);
  if (parts[0].toLowerCase() !== 'bearer') return null;
  if (parts.length !== 2) throw new InvalidTokenError();
  return parts[1];
}

/** Whether the request carries a credential in any place authentication reads one from. */
export function carriesToken(c: Context): boolean {
  const authorization = c.req.header('authorization');
  if (authorization && /^\s*bearer(\s|$)/i.test(authorization)) return true;
  if (c.req.query('access_token')) return true;
  return !!c.req.header('cookie') && !!getCookie(c, SESSION_TOKEN_COOKIE);
}

/** The request's credential, first match wins: `Authorization: Bearer`, `access_token`, the session cookie. */
export function requestCredential(c: Context): string | null {
  return bearerToken(c.req.header('authorization'))
    || c.req.query('access_token')
    || (c.req.header('cookie') ? getCookie(c, SESSION_TOKEN_COOKIE) : undefined)
    || null;
}

export const authenticateRequest: MiddlewareHandler<AppEnv> = async (c, next) => {
  const services = c.get('services');
  const token = requestCredential(c);
  const schema = await services.schema.get();
  c.set('schema', schema);
  const accountability = await authenticate(services, token, {
    ip: clientIp(c),
    userAgent: c.req.header('user-agent') ?? null,
    origin: c.req.header('origin') ?? null,
  }, schema.version);
  // A token that may only enrol in two-factor reaches nothing else.
  if (accountability.tfaSetupOnly) checkTfaSetupRequest(c.req.method, c.req.path);
  c.set('accountability', accountability);
  await next();
};
