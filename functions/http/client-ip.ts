import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/** The socket address of the client (TRUST_PROXY handling for forwarded headers arrives with rate limiting). */
export function clientIp(c: Context): string | null {
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    const lambdaIp = (c.env as { event?: { requestContext?: { http?: { sourceIp?: string } } } } | undefined)?.event?.requestContext?.http?.sourceIp;
    return lambdaIp ?? null;
  }
}
