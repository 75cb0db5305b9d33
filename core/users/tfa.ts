/** Two-factor setup (SPEC.md > Users), two ways in:
 * - SPEC.md's: POST /users/me/tfa/enable `{password}` stores a fresh secret and turns two-factor on at once,
 *   answering the secret and its otpauth URL (the next login needs a code);
 * - Directus' confirm-first flow: POST /users/me/tfa/generate `{password}` answers a secret kept pending in the
 *   shared store (the account is unchanged), then POST /users/me/tfa/enable `{secret, otp}` (or `{otp}` for the
 *   pending one) turns it on only with a valid code for that secret. */
import { generateSecret, generateURI } from 'otplib';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidOtpError, InvalidPayloadError } from '../errors.ts';
import { spendOtp } from '../auth/otp.ts';
import { revokeUserAccess } from '../auth/user-revocation.ts';
import { refuseUnderImpersonation } from '../access/credential-guard.ts';
import type { ConfigPort, DatabasePort, SchemaPort, StorePort } from '../ports.ts';
import { ownCredentials, proveOwnership } from './me.ts';
import { isUuid } from '../uuid.ts';
import { disableUserTfa, enableUserTfa, roleEnforcesTfa, selectEmailAndProjectName } from './table.ts';

const PENDING_TTL_MS = 15 * 60 * 1000;
const pendingKey = (user: string) => `tfa:pending:${user}`;

export interface TfaSetup { secret: string; otpauth_url: string }

/** Checks the caller may set up two-factor (none yet, proof of the password) and makes a secret for them. */
async function newSecret(services: ConfigPort & DatabasePort & SchemaPort & StorePort, ctx: ServiceContext, body: Record<string, unknown>): Promise<{ userId: string } & TfaSetup> {
  refuseUnderImpersonation(ctx.accountability);
  const user = await ownCredentials(ctx);
  if (user.tfa_secret) throw new InvalidPayloadError('TFA Secret is already set for this user');
  await proveOwnership(services, user, body.password, null, false);
  const row = (await selectEmailAndProjectName(ctx.db, user.id))!;
  const secret = generateSecret();
  const otpauth_url = generateURI({ issuer: row.project_name ?? ctx.config.projectName, label: row.email ?? user.id, secret });
  return { userId: user.id, secret, otpauth_url };
}

/** POST /users/me/tfa/generate: a secret to confirm later; nothing changes on the account yet. */
export async function generateTfa(services: ConfigPort & DatabasePort & SchemaPort & StorePort, ctx: ServiceContext, body: Record<string, unknown>): Promise<TfaSetup> {
  const { userId, secret, otpauth_url } = await newSecret(services, ctx, body);
  await services.store.set(pendingKey(userId), secret, PENDING_TTL_MS);
  return { secret, otpauth_url };
}

/** POST /users/me/tfa/enable `{password}`: two-factor is on from now on, with the secret answered. */
export async function enableTfa(services: ConfigPort & DatabasePort & SchemaPort & StorePort, ctx: ServiceContext, body: Record<string, unknown>): Promise<TfaSetup> {
  const { userId, secret, otpauth_url } = await newSecret(services, ctx, body);
  // `tfa_secret is null` keeps two concurrent enables from overwriting each other's secret.
  if (!await enableUserTfa(ctx.db, userId, secret, true)) throw new InvalidPayloadError('TFA Secret is already set for this user');
  return { secret, otpauth_url };
}

export async function confirmTfa(services: ConfigPort & DatabasePort & SchemaPort & StorePort, ctx: ServiceContext, body: Record<string, unknown>): Promise<void> {
  refuseUnderImpersonation(ctx.accountability);
  const user = await ownCredentials(ctx);
  if (user.tfa_secret) throw new InvalidPayloadError('TFA Secret is already set for this user');
  if (body.secret !== undefined && typeof body.secret !== 'string') throw new InvalidPayloadError('"secret" must be a string');
  const secret = (body.secret as string | undefined) ?? await services.store.get(pendingKey(user.id));
  if (!secret) throw new InvalidPayloadError('"secret" is required: generate one first');
  if (typeof body.otp !== 'string' || !(await spendOtp(services.store, user.id, secret, body.otp))) throw new InvalidOtpError();
  await enableUserTfa(ctx.db, user.id, secret, false);
  await services.store.del(pendingKey(user.id));
}

/** Ends the user's other sessions: they were opened with the second factor that is now gone. */
export async function disableOwnTfa(services: ConfigPort & DatabasePort & SchemaPort & StorePort, ctx: ServiceContext, body: Record<string, unknown>): Promise<void> {
  refuseUnderImpersonation(ctx.accountability);
  const user = await ownCredentials(ctx);
  if (!user.tfa_secret) throw new InvalidPayloadError("TFA isn't enabled for this user");
  if (typeof body.otp !== 'string' || body.otp === '') throw new InvalidOtpError('"otp" is required');
  if (!(await spendOtp(services.store, user.id, user.tfa_secret, body.otp))) throw new InvalidOtpError();
  if (await roleEnforcesTfa(ctx.db, user.id)) throw new InvalidPayloadError('Two-factor authentication is enforced by the role and cannot be disabled.');
  await disableUserTfa(ctx.db, user.id);
  await revokeUserAccess(services, ctx.db, [user.id], ctx.accountability.session ?? null);
}

/** POST /users/{id}/tfa/disable: admins reset a user's two-factor without a code. The user's sessions end
 * (an admin resetting their own keeps the session making the request). */
export async function disableTfaOf(services: ConfigPort & DatabasePort & SchemaPort & StorePort, ctx: ServiceContext, id: string): Promise<void> {
  if (!ctx.accountability.admin) throw new ForbiddenError();
  refuseUnderImpersonation(ctx.accountability);
  if (!isUuid(id)) throw new ForbiddenError();
  const user = await disableUserTfa(ctx.db, id);
  if (user === null) throw new ForbiddenError();
  await revokeUserAccess(services, ctx.db, [user], ctx.accountability.session ?? null);
}
