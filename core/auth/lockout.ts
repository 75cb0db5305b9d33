/** Login lockout (settings.auth_login_attempts, SPEC.md "max failed logins before lockout"): consecutive failed
 * logins of one account (wrong password, wrong one-time code, wrong current_password on a password change or
 * two-factor set-up) are counted in the SharedStore; when the count reaches the limit the account is locked for
 * AUTH_LOCKOUT_COOLDOWN (default 15 minutes) and the administrators get an in-app notification. While locked,
 * every attempt answers 403 USER_SUSPENDED (as a suspended account does at /auth/login) before the password is
 * checked, so a right guess behind the lock answers like a wrong one; afterwards counting starts from zero.
 * The account's status is not changed (Directus suspends it until an admin steps in, which lets anyone who
 * knows an email address shut its owner out for good). A successful login resets the count.
 *
 * Unknown emails (and accounts that cannot log in with a password) are counted and locked by their address
 * the same way, so a lock does not tell whether an account exists. */
import { run } from '../db/database.ts';
import { UserSuspendedError } from '../errors.ts';
import { deliverInApp } from '../notify/inapp.ts';
import type { ConfigPort, DatabasePort, StorePort } from '../ports.ts';
import { activeAdminIds, selectUserEmail } from '../users/table.ts';

/** Failures older than this (counted from the first of a series) are forgotten. */
export const LOGIN_ATTEMPTS_WINDOW_MS = 24 * 3_600_000;

const keyOf = (user: string) => `login-attempts:${user}`;
const lockKeyOf = (user: string) => `login-locked:${user}`;
const lockClaimKeyOf = (user: string) => `login-lock-claim:${user}`;
/** The subject of an email that matches no countable account. */
const emailSubject = (email: string) => `email:${email.toLowerCase()}`;

/** settings.auth_login_attempts; null (or 0 and below) means unlimited. */
async function allowedAttempts(services: DatabasePort): Promise<number | null> {
  const [row] = await run<{ auth_login_attempts: number | null }>(services.database.db,
    'select auth_login_attempts from svc_settings order by id limit 1');
  const n = row ? row.auth_login_attempts : 25;
  return n !== null && n > 0 ? n : null;
}

/** When the lock of an account (`user`) or of an unknown address (`email`) ends (epoch ms), or null. */
export async function loginLockedUntil(services: StorePort, user: string | null, email?: string): Promise<number | null> {
  const subject = user ?? (email !== undefined ? emailSubject(email) : null);
  if (subject === null) return null;
  let value: string | null;
  try {
    value = await services.store.get(lockKeyOf(subject));
  } catch {
    // Shared store unreachable: no lock is known; the login rate limiter still bounds the pace of attempts.
    return null;
  }
  const until = value === null ? NaN : Number(value);
  return Number.isFinite(until) && until > Date.now() ? until : null;
}

/** 403 USER_SUSPENDED while the account (or address) is locked. */
export async function refuseWhileLocked(services: StorePort, user: string | null, email?: string): Promise<void> {
  const until = await loginLockedUntil(services, user, email);
  if (until !== null) {
    throw new UserSuspendedError(`Too many failed login attempts: the account is locked until ${new Date(until).toISOString()}.`);
  }
}

/** Records a failed login of an account (`user`), or of an address matching none (`user` null, `email`).
 * Without either the settings are still read, so every path costs the same. Returns true when this failure
 * locked the account. */
export async function recordFailedLogin(services: ConfigPort & DatabasePort & StorePort, user: string | null, email?: string): Promise<boolean> {
  const limit = await allowedAttempts(services);
  const subject = user ?? (email !== undefined ? emailSubject(email) : null);
  if (subject === null || limit === null) return false;
  const cooldown = services.config.authLockoutCooldownMs;
  const until = Date.now() + cooldown;
  try {
    const count = await services.store.incr(keyOf(subject), LOGIN_ATTEMPTS_WINDOW_MS);
    if (count < limit) return false;
    // Concurrent failures at and past the limit: the first to claim this lock period locks and notifies (an
    // atomic counter living as long as the lock; `count === limit` alone would let the failures that count
    // again after the reset below lock a second time).
    if (await services.store.incr(lockClaimKeyOf(subject), cooldown) !== 1) return false;
    await services.store.set(lockKeyOf(subject), String(until), cooldown);
    await services.store.del(keyOf(subject));
  } catch {
    // Shared store unreachable: the attempt goes uncounted rather than failing the login with a 500. The
    // login rate limiter (which falls back to memory) still bounds the pace of attempts.
    return false;
  }
  if (user !== null) await notifyAdmins(services, user, limit, until);
  return true;
}

export async function resetFailedLogins(services: StorePort, user: string): Promise<void> {
  await services.store.del(keyOf(user)).catch(() => undefined);
}

/** An in-app notification (svc_notifications, through the notification module's in-app channel) to every
 * administrator. A failure to notify does not change the login's answer. */
async function notifyAdmins(services: ConfigPort & DatabasePort, user: string, attempts: number, until: number): Promise<void> {
  const { database, config } = services;
  try {
    const admins = await activeAdminIds(database.db);
    const who = (await selectUserEmail(database.db, user)) ?? user;
    await deliverInApp(database.db, {
      recipients: admins,
      subject: `Account locked after ${attempts} failed login attempts`,
      message: `${who} is locked until ${new Date(until).toISOString()} after ${attempts} failed login attempts in a row. `
        + 'It opens again by itself; nothing needs to be done unless the attempts were not the owner\'s.',
      collection: 'svc_users',
      item: user,
    });
  } catch (err) {
    if (config.logLevel !== 'silent' && config.logLevel !== 'fatal') console.error('Could not notify the administrators of a login lockout:', err);
  }
}
