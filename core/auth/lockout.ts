/** Login lockout (settings.auth_login_attempts): consecutive failed password logins of one account are
 * counted in the SharedStore; when the count reaches the limit the account is suspended. A successful login
 * resets the count. */
import { run } from '../db/database.ts';
import type { Services } from '../services.ts';

/** Failures older than this (counted from the first of a series) are forgotten. */
export const LOGIN_ATTEMPTS_WINDOW_MS = 24 * 3_600_000;

const keyOf = (user: string) => `login-attempts:${user}`;

/** settings.auth_login_attempts; null (or 0 and below) means unlimited. */
async function allowedAttempts(services: Services): Promise<number | null> {
  const [row] = await run<{ auth_login_attempts: number | null }>(services.database.db,
    'select auth_login_attempts from svc_settings order by id limit 1');
  const n = row ? row.auth_login_attempts : 25;
  return n !== null && n > 0 ? n : null;
}

/** Records a failed login. `user` is null for unknown emails: the settings are still read so both paths cost
 * the same. Returns true when this failure suspended the account. */
export async function recordFailedLogin(services: Services, user: string | null): Promise<boolean> {
  const limit = await allowedAttempts(services);
  if (!user || limit === null) return false;
  const key = keyOf(user);
  let count: number;
  try {
    count = await services.store.incr(key, LOGIN_ATTEMPTS_WINDOW_MS);
  } catch {
    // Shared store unreachable: the attempt goes uncounted rather than failing the login with a 500. The
    // login rate limiter (which falls back to memory) still bounds the pace of attempts.
    return false;
  }
  if (count < limit) return false;
  const suspended = await run(services.database.db,
    "update svc_users set status = 'suspended' where id = $1 and status = 'active' returning id", [user]);
  await services.store.del(key);
  if (suspended.length === 0) return false;
  await services.schema.invalidate();
  return true;
}

export async function resetFailedLogins(services: Services, user: string): Promise<void> {
  await services.store.del(keyOf(user)).catch(() => undefined);
}
