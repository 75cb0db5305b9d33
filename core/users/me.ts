/** PATCH /users/me: a user edits their own record. Only SELF_EDITABLE fields are kept (role, status,
 * admin flags, policies... are silently dropped); a new password needs `current_password` and, with
 * two-factor on, `otp`. The write itself goes through the items service with the caller's identity kept
 * for activity but permission checks lifted: the field list above is the permission. */
import type { Accountability } from '../access/accountability.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, type Executor } from '../db/database.ts';
import { InvalidCredentialsError, InvalidOtpError, InvalidPayloadError } from '../errors.ts';
import { loadPasswordPolicy } from '../auth/password-policy.ts';
import { spendOtp } from '../auth/otp.ts';
import { recordFailedLogin, refuseWhileLocked } from '../auth/lockout.ts';
import { verifyPassword } from '../auth/passwords.ts';
import { updateItem } from '../items/write/index.ts';
import { publishRevocation, revokeSessions } from '../auth/user-revocation.ts';
import { guardCredentialWrite } from '../access/credential-guard.ts';
import type { ConfigPort, DatabasePort, SchemaPort, StorePort } from '../ports.ts';
import { asPayload, checkFields, checkUniqueEmails, SELF_EDITABLE, type UserPayload } from './payload.ts';
import { selectCredentials, trackLastPage, type UserCredentials } from './table.ts';

export type OwnCredentials = UserCredentials;

export function currentUserId(ctx: ServiceContext): string {
  if (!ctx.accountability.user) throw new InvalidCredentialsError();
  return ctx.accountability.user;
}

export async function ownCredentials(ctx: ServiceContext): Promise<OwnCredentials> {
  const id = currentUserId(ctx);
  const row = await selectCredentials(ctx.db, id);
  if (!row) throw new InvalidCredentialsError();
  return row;
}

/** The caller proves they hold the account: their current password (when they have one), and their
 * one-time code when two-factor is on. Wrong guesses count towards the login lockout (a stolen access token
 * must not become a way to guess the password at leisure), and a locked account proves nothing. */
export async function proveOwnership(services: ConfigPort & DatabasePort & StorePort, user: OwnCredentials, password: unknown, otp: unknown, requireOtp: boolean): Promise<void> {
  if (user.password !== null) {
    if (password === undefined || password === null || password === '') throw new InvalidPayloadError('"current_password" is required');
    await refuseWhileLocked(services, user.id);
    if (typeof password !== 'string' || !(await verifyPassword(user.password, password))) {
      await recordFailedLogin(services, user.id);
      throw new InvalidCredentialsError();
    }
  }
  if (requireOtp && user.tfa_secret) {
    if (typeof otp !== 'string' || otp === '') throw new InvalidOtpError('"otp" is required');
    await refuseWhileLocked(services, user.id);
    if (!(await spendOtp(services.store, user.id, user.tfa_secret, otp))) {
      await recordFailedLogin(services, user.id);
      throw new InvalidOtpError('"otp" is invalid');
    }
  }
}

export async function updateMe(services: ConfigPort & DatabasePort & SchemaPort & StorePort, ctx: ServiceContext, body: unknown): Promise<string> {
  const raw = asPayload(body);
  const user = await ownCredentials(ctx);
  const payload: UserPayload = {};
  for (const field of SELF_EDITABLE) if (raw[field] !== undefined) payload[field] = raw[field];
  // Before the password proof: an impersonator gets 403 without a guess being counted against the user.
  guardCredentialWrite(ctx.accountability, 'svc_users', 'update', payload);

  if (payload.password !== undefined) {
    if (typeof payload.password !== 'string' || payload.password === '') throw new InvalidPayloadError('"password" must be a non-empty string');
    await proveOwnership(services, user, raw.current_password, raw.otp, true);
    // The user chose this password themselves.
    payload.require_password_change = false;
  }
  checkFields(payload, payload.password !== undefined ? await loadPasswordPolicy(ctx.db) : null);
  if (Object.keys(payload).length === 0) return user.id;

  const self = { ...ctx, accountability: { ...ctx.accountability, admin: true } };
  const revocation = await inTransaction(ctx.db, async (trx) => {
    if (typeof payload.email === 'string') await checkUniqueEmails(trx, [payload.email], [user.id]);
    await updateItem({ ...self, db: trx }, 'svc_users', user.id, payload);
    // A new password ends the user's other sessions; the one making the change continues.
    return payload.password !== undefined ? revokeSessions(trx, [user.id], ctx.accountability.session ?? null) : null;
  });
  await publishRevocation(services, revocation);
  await services.schema.invalidate();
  return user.id;
}

/** PATCH /users/me/track/page (Directus' name): the page the Studio shows, kept in last_page for the next sign-in.
 * A plain column write: no activity, no revision, no permission beyond being the signed-in user. */
export async function trackPage(db: Executor, accountability: Accountability, body: unknown): Promise<void> {
  if (!accountability.user) throw new InvalidCredentialsError();
  const page = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).last_page : undefined;
  if (typeof page !== 'string' || page.length > 255) throw new InvalidPayloadError('"last_page" must be a string of at most 255 characters');
  await trackLastPage(db, accountability.user, page);
}
