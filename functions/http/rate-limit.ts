/** Rate limiting around authentication (SPEC.md > Limits). Each request counts in the global bucket (when
 * enabled) plus exactly one other:
 * - POST /auth/login, POST /auth/login/{provider} and POST /auth/link/{provider} (directory passwords and the
 *   password check of linking), and POST /shares/auth (share passwords are guessed the same way) -> login bucket, password
 *   reset and invitation endpoints -> email bucket, POST /notify/webhooks/{key} (delivery reports) -> webhook
 *   bucket, keyed by IP;
 * - no token -> per-IP bucket (per-IP assets bucket for /assets/*), counted at arrival;
 * - a token -> no IP bucket at arrival; once authenticated, the service bucket (role with service_account)
 *   or the user bucket, keyed by user id. A token that matches no strategy (INVALID_TOKEN) is counted against
 *   the IP before the 401; a genuine expired or revoked token (TOKEN_EXPIRED / TOKEN_REVOKED) is not.
 * Over a limit: 429 REQUESTS_EXCEEDED with Retry-After. The global and the specific consumption run in
 * parallel (one Redis round trip of latency with the shared store). */
import type { Context, MiddlewareHandler, Next } from 'hono';
import { InvalidTokenError, RequestsExceededError } from '../../core/errors.ts';
import type { BucketName, RateLimitExceeded, RateLimits } from '../../core/ratelimit/index.ts';
import { authenticateRequest, carriesToken } from './authenticate.ts';
import { clientIp } from './client-ip.ts';
import type { AppEnv } from './env.ts';

/** Anonymous-by-IP endpoints with their own, stricter bucket (POST only). */
const ROUTE_BUCKETS: ReadonlyMap<string, BucketName> = new Map([
  ['/auth/login', 'login'],
  ['/shares/auth', 'login'],
  ['/auth/password/request', 'email'],
  ['/auth/password/reset', 'email'],
  ['/users/invite', 'email'],
  ['/users/invite/accept', 'email'],
]);

/** Route buckets matched by path prefix (POST only). */
const PREFIX_BUCKETS: ReadonlyArray<readonly [prefix: string, bucket: BucketName]> = [
  ['/auth/login/', 'login'],
  ['/auth/link/', 'login'],
  ['/notify/webhooks/', 'webhook'],
];

function routeBucket(method: string, path: string): BucketName | undefined {
  if (method !== 'POST') return undefined;
  const exact = ROUTE_BUCKETS.get(path);
  if (exact) return exact;
  for (const [prefix, bucket] of PREFIX_BUCKETS) if (path.startsWith(prefix)) return bucket;
  return undefined;
}

type Pending = Promise<RateLimitExceeded | null> | null;

function ipBucket(path: string): BucketName {
  return path === '/assets' || path.startsWith('/assets/') ? 'assets' : 'ip';
}

/** Waits for every consumption; the first exceeded one (global first) becomes the 429. */
async function enforce(c: Context, ...pending: Pending[]): Promise<void> {
  const results = await Promise.all(pending);
  const exceeded = results.find((r) => r !== null);
  if (!exceeded) return;
  c.header('Retry-After', String(Math.max(1, Math.ceil(exceeded.msBeforeNext / 1000))));
  throw new RequestsExceededError(exceeded.limit, new Date(Date.now() + exceeded.msBeforeNext).toISOString());
}

/** The authentication middleware with rate limiting. `anonymousWithoutLookup` paths called without a credential
 * are counted by IP and skip resolving the Public role; with a credential they go the way of every route. */
export function rateLimitedAuthentication(limits: RateLimits, anonymousWithoutLookup: ReadonlySet<string>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const path = c.req.path;
    const ip = clientIp(c);
    const ipKey = ip ?? 'unknown';
    const global: Pending = limits.globalEnabled ? limits.consume('global', 'global', ip) : null;

    const route = routeBucket(c.req.method, path);
    if (route) {
      await enforce(c, global, limits.consume(route, ipKey, ip));
      return authenticateRequest(c, next);
    }
    if (!carriesToken(c)) {
      await enforce(c, global, limits.consume(ipBucket(path), ipKey, ip));
      return anonymousWithoutLookup.has(path) ? next() : authenticateRequest(c, next);
    }
    return authenticateWithToken(c, next, limits, global, ip, ipKey);
  };
}

async function authenticateWithToken(c: Context<AppEnv>, next: Next, limits: RateLimits, global: Pending, ip: string | null, ipKey: string) {
  let authenticated = false;
  let early: Response | void;
  try {
    // Authentication alone: the real `next` runs only after the principal's bucket has been counted.
    early = await authenticateRequest(c, async () => { authenticated = true; });
  } catch (err) {
    await enforce(c, global, err instanceof InvalidTokenError ? limits.consume(ipBucket(c.req.path), ipKey, ip) : null);
    throw err;
  }
  if (!authenticated) {
    await enforce(c, global);
    return early;
  }
  const accountability = c.get('accountability');
  const specific = accountability.user
    ? limits.consume(accountability.serviceAccount ? 'service' : 'user', accountability.user, ip)
    // A credential without a user (e.g. a share) acts like an anonymous caller: counted by IP.
    : limits.consume(ipBucket(c.req.path), ipKey, ip);
  await enforce(c, global, specific);
  return next();
}
