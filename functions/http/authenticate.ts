/** Reads the credential (Bearer header or access_token query parameter) and sets the accountability. */
import type { MiddlewareHandler } from 'hono';
import { authenticate } from '../../core/auth/authenticate.ts';
import { InvalidTokenError } from '../../core/errors.ts';
import type { AppEnv } from './env.ts';
import { clientIp } from './client-ip.ts';

export function tokenFrom(authorization: string | undefined, queryToken: string | undefined): string | null {
  if (authorization) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw new InvalidTokenError();
    return m[1];
  }
  return queryToken || null;
}

export const authenticateRequest: MiddlewareHandler<AppEnv> = async (c, next) => {
  const services = c.get('services');
  const token = tokenFrom(c.req.header('authorization'), c.req.query('access_token'));
  c.set('accountability', await authenticate(services, token, {
    ip: clientIp(c),
    userAgent: c.req.header('user-agent') ?? null,
    origin: c.req.header('origin') ?? null,
  }));
  await next();
};
