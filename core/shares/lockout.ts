/** Lockout of share passwords, by the account rule (settings.auth_login_attempts, core/auth/lockout.ts): failed
 * POST /shares/auth attempts of one share are counted in the SharedStore; when the count reaches the limit the
 * share is locked for a cooldown. While locked, every attempt is refused before the password is checked (a
 * right guess must not answer differently, or guessing would go on behind the lock); afterwards the count
 * starts again from zero. A successful login resets the count. */
import { run } from '../db/database.ts';
import { LOGIN_ATTEMPTS_WINDOW_MS } from '../auth/lockout.ts';
import type { DatabasePort, StorePort } from '../ports.ts';

const attemptsKey = (share: string) => `share-login-attempts:${share}`;
const lockKey = (share: string) => `share-locked:${share}`;

/** settings.auth_login_attempts; null (or 0 and below) means unlimited. */
async function allowedAttempts(services: DatabasePort): Promise<number | null> {
  const [row] = await run<{ auth_login_attempts: number | null }>(services.database.db,
    'select auth_login_attempts from svc_settings order by id limit 1');
  const n = row ? row.auth_login_attempts : 25;
  return n !== null && n > 0 ? n : null;
}

/** When the share's lock ends (epoch ms), or null when it is not locked. */
export async function shareLockedUntil(services: StorePort, share: string): Promise<number | null> {
  let value: string | null;
  try {
    value = await services.store.get(lockKey(share));
  } catch {
    // Shared store unreachable: no lock is known; the login rate limiter still bounds the pace of attempts.
    return null;
  }
  if (value === null) return null;
  const until = Number(value);
  return Number.isFinite(until) && until > Date.now() ? until : null;
}

/** Counts a wrong share password; returns true when this failure locked the share. */
export async function recordFailedShareLogin(services: DatabasePort & StorePort, share: string, cooldownMs: number): Promise<boolean> {
  const limit = await allowedAttempts(services);
  if (limit === null) return false;
  try {
    const count = await services.store.incr(attemptsKey(share), LOGIN_ATTEMPTS_WINDOW_MS);
    if (count < limit) return false;
    await services.store.set(lockKey(share), String(Date.now() + cooldownMs), cooldownMs);
    await services.store.del(attemptsKey(share));
    return true;
  } catch {
    // As for accounts: an unreachable store leaves the attempt uncounted rather than failing with a 500.
    return false;
  }
}

export async function resetFailedShareLogins(services: StorePort, share: string): Promise<void> {
  await services.store.del(attemptsKey(share)).catch(() => undefined);
}
