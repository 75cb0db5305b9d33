/** The client address. Start from the peer: the socket address under @hono/node-server, API Gateway's
 * sourceIp on Lambda. When that peer is a trusted proxy (TRUST_PROXY), walk X-Forwarded-For from the right
 * the way Express' proxy-addr does:
 * - a network list: skip addresses inside it, the first one outside is the client;
 * - a hop count n: the n nearest hops are trusted, the next address is the client;
 * - true: every hop is trusted, the left-most value is the client (client-controlled: unsafe in production);
 * - false: the peer address only.
 * Entries that are not IP addresses end the walk (the last good address wins), so garbage never becomes a key.
 * In-process requests (app.request in tests) have no peer at all: they count as loopback 127.0.0.1, which
 * the default TRUST_PROXY trusts. */
import { isIP } from 'node:net';
import type { Context } from 'hono';
import type { TrustProxy } from '../../core/ratelimit/config.ts';
import type { AppEnv } from './env.ts';

interface NodeBindings { incoming?: { socket?: { remoteAddress?: string } } }
interface LambdaBindings {
  requestContext?: { http?: { sourceIp?: string }; identity?: { sourceIp?: string } };
}

/** The address used when the request did not come through a socket or API Gateway. */
export const IN_PROCESS_IP = '127.0.0.1';

const resolved = new WeakMap<Request, string | null>();

/** `::ffff:10.1.2.3` -> `10.1.2.3`, so one client has one key and IPv4 ranges match it. */
function normalize(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

export function peerAddress(c: Context): string | null {
  const env = c.env as (NodeBindings & LambdaBindings & { server?: NodeBindings }) | undefined;
  if (!env) return IN_PROCESS_IP;
  const incoming = env.incoming ?? env.server?.incoming;
  if (incoming) return incoming.socket?.remoteAddress ?? null;
  const rc = env.requestContext;
  if (rc) return rc.http?.sourceIp ?? rc.identity?.sourceIp ?? null;
  return IN_PROCESS_IP;
}

function trusts(trust: TrustProxy, address: string, hop: number): boolean {
  switch (trust.mode) {
    case 'none': return false;
    case 'all': return true;
    case 'hops': return hop < trust.hops;
    case 'networks': {
      const family = isIP(address);
      return family !== 0 && trust.networks.check(address, family === 4 ? 'ipv4' : 'ipv6');
    }
  }
}

/** The client address for a peer address and an X-Forwarded-For header under a TRUST_PROXY setting. */
export function resolveClientIp(peer: string | null, forwardedFor: string | undefined, trust: TrustProxy): string | null {
  if (peer === null) return null;
  let client = normalize(peer);
  if (!forwardedFor || trust.mode === 'none') return client;
  const hops = forwardedFor.split(',').map((v) => v.trim()).reverse();
  for (let hop = 0; hop < hops.length; hop++) {
    if (!trusts(trust, client, hop)) return client;
    if (isIP(hops[hop]) === 0) return client;
    client = normalize(hops[hop]);
  }
  return client;
}

/** The request's client address, resolved once per request. */
export function clientIp(c: Context): string | null {
  const request = c.req.raw;
  if (resolved.has(request)) return resolved.get(request) ?? null;
  const services = (c as Context<AppEnv>).get('services') as AppEnv['Variables']['services'] | undefined;
  const trust: TrustProxy = services?.config.trustProxy ?? { mode: 'none' };
  const ip = resolveClientIp(peerAddress(c), c.req.header('x-forwarded-for'), trust);
  resolved.set(request, ip);
  return ip;
}
