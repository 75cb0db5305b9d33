/** The RATE_LIMITER_* and TRUST_PROXY environment variables (SPEC.md > Limits), parsed once by core/config.ts.
 * Durations are whole seconds, as in Directus. */
import { BlockList, isIPv4 } from 'node:net';

/** Every bucket a request can be counted in (besides `global`, exactly one of the others). */
/** `webhook`: POST /notify/webhooks/{key} (provider delivery reports), keyed by client IP. */
export type BucketName = 'global' | 'ip' | 'assets' | 'service' | 'user' | 'login' | 'email' | 'webhook';

export interface BucketConfig { points: number; duration: number }

export interface RateLimitConfig {
  enabled: boolean;
  /** memory: per process; shared: Redis (REDIS_URL) with an in-memory fallback on connection loss. */
  store: 'memory' | 'shared';
  globalEnabled: boolean;
  buckets: Record<BucketName, BucketConfig>;
}

/** Which proxies may set X-Forwarded-For: none (socket only), all (left-most value), the n nearest hops, or
 * the proxies inside a list of networks. */
export type TrustProxy =
  | { mode: 'none' }
  | { mode: 'all' }
  | { mode: 'hops'; hops: number }
  | { mode: 'networks'; networks: BlockList; entries: string[] };

type Env = Record<string, string | undefined>;

export const DEFAULT_TRUST_PROXY = '127.0.0.1/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7';

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name} must be true or false, got "${env[name]}"`);
}

function positive(env: Env, name: string, fallback: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return n;
}

function bucket(env: Env, prefix: string, points: number, duration: number): BucketConfig {
  return { points: positive(env, `${prefix}_POINTS`, points), duration: positive(env, `${prefix}_DURATION`, duration) };
}

export function parseRateLimitConfig(env: Env): RateLimitConfig {
  const store = raw(env, 'RATE_LIMITER_STORE') ?? 'memory';
  if (store !== 'memory' && store !== 'shared') throw new Error(`RATE_LIMITER_STORE must be memory or shared, got "${store}"`);
  const enabled = flag(env, 'RATE_LIMITER_ENABLED', true);
  if (enabled && store === 'shared' && !raw(env, 'REDIS_URL')) throw new Error('RATE_LIMITER_STORE=shared requires REDIS_URL');
  return {
    enabled,
    store,
    globalEnabled: flag(env, 'RATE_LIMITER_GLOBAL_ENABLED', true),
    buckets: {
      global: bucket(env, 'RATE_LIMITER_GLOBAL', 1000, 1),
      ip: bucket(env, 'RATE_LIMITER', 50, 1),
      assets: bucket(env, 'RATE_LIMITER_ASSETS', 300, 1),
      service: bucket(env, 'RATE_LIMITER_SERVICE', 10_000, 60),
      user: bucket(env, 'RATE_LIMITER_USER', 300, 60),
      login: bucket(env, 'RATE_LIMITER_LOGIN', 10, 60),
      email: bucket(env, 'RATE_LIMITER_EMAIL', 5, 60),
      webhook: bucket(env, 'RATE_LIMITER_WEBHOOK', 100, 1),
    },
  };
}

/** TRUST_PROXY: `true`, `false`, a hop count, or a comma list of addresses / CIDR ranges. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value === undefined || value.trim() === '' ? DEFAULT_TRUST_PROXY : value.trim();
  const lower = text.toLowerCase();
  if (lower === 'true') return { mode: 'all' };
  if (lower === 'false') return { mode: 'none' };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops === 0 ? { mode: 'none' } : { mode: 'hops', hops };
  }
  const networks = new BlockList();
  const entries = text.split(',').map((e) => e.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    // Not net.isIPv6: its first call compiles a large regular expression (~20 ms, at every cold start with the
    // default list). BlockList parses the address itself (inet_pton) and refuses one that is not valid.
    const family = isIPv4(address) ? 'ipv4' : address.includes(':') ? 'ipv6' : null;
    const max = family === 'ipv4' ? 32 : 128;
    const invalid = () => new Error(`TRUST_PROXY: "${entry}" is not an address or CIDR range`);
    if (!family || extra !== undefined || (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= max))) throw invalid();
    try {
      if (prefix === undefined) networks.addAddress(address, family);
      else networks.addSubnet(address, Number(prefix), family);
    } catch {
      throw invalid();
    }
  }
  return { mode: 'networks', networks, entries };
}
