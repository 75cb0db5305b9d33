/** The client address: the socket peer under @hono/node-server, API Gateway's sourceIp on Lambda (the
 * gateway has already resolved forwarding). TRUST_PROXY handling of X-Forwarded-For arrives with rate limiting. */
import type { Context } from 'hono';

interface NodeBindings { incoming?: { socket?: { remoteAddress?: string } } }
interface LambdaBindings {
  requestContext?: { http?: { sourceIp?: string }; identity?: { sourceIp?: string } };
}

export function clientIp(c: Context): string | null {
  const env = c.env as (NodeBindings & LambdaBindings & { server?: NodeBindings }) | undefined;
  if (!env) return null;
  const incoming = env.incoming ?? env.server?.incoming;
  if (incoming) return incoming.socket?.remoteAddress ?? null;
  const rc = env.requestContext;
  return rc?.http?.sourceIp ?? rc?.identity?.sourceIp ?? null;
}
