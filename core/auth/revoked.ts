/** Logged-out session tokens, remembered in the SharedStore until they would have expired, so presenting one
 * again is told apart from a token that never existed: 401 TOKEN_REVOKED instead of INVALID_CREDENTIALS /
 * INVALID_TOKEN. Keys hold a hash of the token, never the token. Read only on failure paths. */
import { createHash } from 'node:crypto';
import type { SharedStore } from '../store/index.ts';

const keyOf = (token: string) => `revoked-session:${createHash('sha256').update(token).digest('base64url')}`;

export async function rememberRevoked(store: SharedStore, token: string, expires: Date): Promise<void> {
  const ttl = expires.getTime() - Date.now();
  // The session row is already gone, so the logout has taken effect: a store outage only costs the finer code.
  if (ttl > 0) await store.set(keyOf(token), '1', ttl).catch(() => undefined);
}

export async function wasRevoked(store: SharedStore, token: string): Promise<boolean> {
  // Only the error code depends on it (the token is refused either way): with the store unreachable the
  // answer is 401 INVALID_TOKEN rather than a 503.
  return (await store.get(keyOf(token)).catch(() => null)) !== null;
}

/** A counter bumped after every logout, so processes holding long-lived connections (core/realtime) check again
 * the credentials whose validity rests on a session: a logout takes effect on open sockets at once. */
const LOGOUTS_KEY = 'auth:logouts';

export async function announceLogout(store: SharedStore): Promise<void> {
  await store.incr(LOGOUTS_KEY).catch(() => undefined);
}

export async function logoutCount(store: SharedStore): Promise<string> {
  return (await store.get(LOGOUTS_KEY).catch(() => null)) ?? '0';
}
