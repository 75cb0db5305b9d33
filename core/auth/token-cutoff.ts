/** Per-user cut-off for access tokens. Signed access tokens cannot be recalled one by one, so when a user's
 * credentials or rights change (core/auth/user-revocation.ts) a "valid after" time is stored for the user in
 * the SharedStore: a token of that user signed earlier is refused (401 TOKEN_REVOKED), except the tokens of
 * the session named by `keep` (the caller's own session after a self-service password change).
 *
 * Cost on the hot path: one map lookup. The cut-off is read from the store once per user and schema version
 * (every revoking change bumps the version after writing its cut-off, so every instance reads it anew). The
 * entry lives as long as an access token can (ACCESS_TOKEN_TTL); session-bound tokens (login mode `session`)
 * are checked against their session row instead, and that row is deleted by the revocation.
 *
 * The store may forget: a Redis without persistence restarts empty, a process on the in-memory store restarts. A
 * token signed before the store's epoch began (core/schema/cache.ts) may have lost its cut-off, so it is accepted
 * only while the session it names (its `sid`) still exists: the revocation deleted that row in the same
 * transaction as the change. One query per such session and epoch, for at most ACCESS_TOKEN_TTL after the restart.
 * An impersonation token of that age is refused: the store forgot whether it was stopped too. */
import type { Executor } from '../db/database.ts';
import { epochStartedAt } from '../schema/cache.ts';
import type { SharedStore } from '../store/shared-store.ts';
import { sessionRefExists } from './sessions.ts';

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

/** Clocks of the processes differ a little: a token signed this close after the epoch began is treated as older
 * (its `iat` has whole seconds, which already rounds down). */
const CLOCK_SKEW_MS = 1000;

/** Whether a token signed at issuedAt (ms) predates what the store remembers as of `version`. The in-memory store's
 * epoch is this process's own clock, so no allowance there; `strict` takes none either, for a check that refuses
 * (a token signed just after the epoch began must not be turned away for another process's clock). */
export function signedBeforeEpoch(store: SharedStore, version: string, issuedAt: number, strict = false): boolean {
  const started = epochStartedAt(version);
  return started !== null && issuedAt < started + (store.kind === 'memory' || strict ? 0 : CLOCK_SKEW_MS);
}

/** Answers per epoch: a session that existed after the restart may still be revoked later, but that revocation
 * writes a cut-off into the restarted store, which is checked first. */
const liveRefs = new Map<string, Promise<boolean>>();

/** Whether the user's session `ref` (a token's `sid`) still exists, remembered for the version's epoch. */
export async function sessionRefIsLive(db: Executor, version: string, user: string, ref: string): Promise<boolean> {
  const key = `${version.slice(0, version.lastIndexOf(':'))}:${user}:${ref}`;
  let hit = liveRefs.get(key);
  if (!hit) {
    if (liveRefs.size >= MAX_ENTRIES) liveRefs.clear();
    hit = sessionRefExists(db, user, ref);
    liveRefs.set(key, hit);
    hit.catch(() => liveRefs.delete(key));
  }
  return hit;
}
