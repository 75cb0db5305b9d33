/** Per-user cut-off for access tokens. Signed access tokens cannot be recalled one by one, so when a user's
 * credentials or rights change (core/auth/user-revocation.ts) a "valid after" time is stored for the user in
 * the SharedStore: a token of that user signed earlier is refused (401 TOKEN_REVOKED), except the tokens of
 * the session named by `keep` (the caller's own session after a self-service password change).
 *
 * Cost on the hot path: one map lookup. The cut-off is read from the store once per user and schema version
 * (every revoking change bumps the version after writing its cut-off, so every instance reads it anew). The
 * entry lives as long as an access token can (ACCESS_TOKEN_TTL); session-bound tokens (login mode `session`)
 * are checked against their session row instead, and that row is deleted by the revocation. */
import type { SharedStore } from '../store/shared-store.ts';

export interface TokenCutoff {
  /** Tokens signed before this time (ms) are refused... */
  after: number;
  /** ...unless their `sid` claim equals this session reference. */
  keep: string | null;
}

const keyOf = (user: string) => `tokens-valid-after:${user}`;

/** Refuses the users' access tokens signed until now (but those of session `keep`). */
export async function cutAccessTokens(store: SharedStore, users: readonly string[], keep: string | null, ttlMs: number): Promise<void> {
  const value = JSON.stringify({ after: Date.now(), keep } satisfies TokenCutoff);
  await Promise.all(users.map((user) => store.set(keyOf(user), value, ttlMs)));
}

function parse(raw: string | null): TokenCutoff | null {
  if (raw === null) return null;
  try {
    const value = JSON.parse(raw) as Partial<TokenCutoff>;
    if (typeof value.after !== 'number') return null;
    return { after: value.after, keep: typeof value.keep === 'string' ? value.keep : null };
  } catch {
    return null;
  }
}

const MAX_ENTRIES = 10_000;

interface Cache { version: string; entries: Map<string, Promise<TokenCutoff | null>> }
const caches = new WeakMap<SharedStore, Cache>();

/** The user's cut-off as of this schema version, or null. A store that cannot be read counts as no cut-off
 * (not cached, so the next request asks again): the sessions are gone from the database either way, and an
 * outage should not log everybody out. */
export async function tokenCutoff(store: SharedStore, version: string, user: string): Promise<TokenCutoff | null> {
  let cache = caches.get(store);
  if (!cache || cache.version !== version) caches.set(store, cache = { version, entries: new Map() });
  let hit = cache.entries.get(user);
  if (!hit) {
    const entries = cache.entries;
    if (entries.size >= MAX_ENTRIES) entries.clear();
    hit = store.get(keyOf(user)).then(parse);
    entries.set(user, hit);
    hit.catch(() => entries.delete(user));
  }
  return hit.catch(() => null);
}
