/** POST /auth/login: email + password (+ otp) -> access token and a session (refresh token). */
import { inTransaction, run } from '../db/database.ts';
import { InvalidCredentialsError, InvalidOtpError, InvalidPayloadError, UserSuspendedError } from '../errors.ts';
import { accessFor } from '../access/resolve.ts';
import type { AccessPort, ConfigPort, DatabasePort, EventsPort, SchemaPort, StorePort } from '../ports.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { spendOtp } from './otp.ts';
import { clip, createSession } from './sessions.ts';
import { issueTokens, type IssuedTokens } from './issue.ts';
import { recordFailedLogin, refuseWhileLocked, resetFailedLogins } from './lockout.ts';
import type { RequestMeta } from './authenticate.ts';
import { TFA_ENFORCED_SQL } from './tfa-setup.ts';
import { stampLastAccess } from '../users/table.ts';

export type LoginMode = 'json' | 'cookie' | 'session';
const MODES: readonly LoginMode[] = ['json', 'cookie', 'session'];

export interface LoginInput { email: string; password: string; otp: string | null; mode: LoginMode }

export interface LoginResult extends IssuedTokens {
  userId: string;
  /** A password set by an admin must be changed (svc_users.require_password_change). */
  requirePasswordChange: boolean;
  /** The user's role or one of their policies enforces two-factor, but none is set up yet: the login succeeds
   * with a token that may only set it up (core/auth/tfa-setup.ts). */
  tfaSetupRequired: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Validates the body the way Directus' login schema does; failures are 400 INVALID_PAYLOAD. */
export function parseLoginInput(body: Record<string, unknown>): LoginInput {
  const { email, password, otp, mode } = body;
  if (email === undefined || email === null || email === '') throw new InvalidPayloadError('"email" is required');
  if (typeof email !== 'string') throw new InvalidPayloadError('"email" must be a string');
  if (!EMAIL.test(email)) throw new InvalidPayloadError('"email" must be a valid email');
  if (password === undefined || password === null || password === '') throw new InvalidPayloadError('"password" is required');
  if (typeof password !== 'string') throw new InvalidPayloadError('"password" must be a string');
  if (otp !== undefined && otp !== null && typeof otp !== 'string') throw new InvalidPayloadError('"otp" must be a string');
  if (mode !== undefined && mode !== null && !MODES.includes(mode as LoginMode)) {
    throw new InvalidPayloadError('"mode" must be one of [json, cookie, session]');
  }
  return { email, password, otp: typeof otp === 'string' && otp !== '' ? otp : null, mode: (mode as LoginMode | undefined) ?? 'json' };
}

let dummyHash: Promise<string> | null = null;
/** A hash of a random password with the same parameters as real ones: unknown emails cost the same time. */
function dummy(): Promise<string> {
  dummyHash ??= hashPassword(`dummy-${Math.random()}`);
  return dummyHash;
}

interface LoginUser {
  id: string; role: string | null; status: string; password: string | null; tfa_secret: string | null; tfa_enabled: boolean;
  provider: string; require_password_change: boolean; enforce_tfa: boolean;
}

/** The account and whether two-factor is enforced for it: by its role (svc_roles.enforce_tfa, read at login as
 * SPEC.md says) or by a policy attached to its role or to the user directly (Directus 11 keeps it on policies). */
const LOGIN_USER_SQL = `
select u.id, u.role, u.status, u.password, u.tfa_secret, u.tfa_enabled, u.provider, u.require_password_change,
  ${TFA_ENFORCED_SQL} as enforce_tfa
from svc_users u left join svc_roles r on r.id = u.role
where lower(u.email) = lower($1) order by (u.email = $1) desc limit 1`;

export async function login(services: AccessPort & ConfigPort & DatabasePort & EventsPort & SchemaPort & StorePort, input: LoginInput, meta: RequestMeta): Promise<LoginResult> {
  const { config, database } = services;
  // Email is matched case-insensitively; an exact match wins should case variants coexist.
  const [user] = await run<LoginUser>(database.db, LOGIN_USER_SQL, [input.email]);

  const local = user && user.password && user.provider === 'default' ? user : null;
  // Active accounts count towards their own lockout; any other email is counted by the address, so the
  // answers do not tell the two apart (lockout.ts). While locked, the password is not even checked.
  const counted = local?.status === 'active' ? local.id : null;
  await refuseWhileLocked(services, counted, input.email);
  const valid = await verifyPassword(local ? local.password! : await dummy(), input.password);
  if (!local || !valid) {
    await recordFailedLogin(services, counted, input.email);
    throw new InvalidCredentialsError();
  }
  // Status is revealed only to someone who knows the password.
  if (local.status === 'suspended') throw new UserSuspendedError();
  if (local.status !== 'active') throw new InvalidCredentialsError();
  // A secret awaiting its first confirmed code (tfa_enabled false) is not asked for yet.
  if (local.tfa_secret && local.tfa_enabled) {
    if (!input.otp) throw new InvalidOtpError('"otp" is required');
    if (!(await spendOtp(services.store, local.id, local.tfa_secret, input.otp))) {
      // Wrong codes count towards the lockout too: six digits are guessable.
      await recordFailedLogin(services, local.id);
      throw new InvalidOtpError('"otp" is invalid');
    }
  }
  await resetFailedLogins(services, local.id);

  const tfaSetupRequired = local.enforce_tfa && !(local.tfa_secret && local.tfa_enabled);
  const tokens = await startLoginSession(services, { user: local.id, role: local.role, provider: 'default', tfaSetupRequired, mode: input.mode }, meta);
  return { ...tokens, userId: local.id, requirePasswordChange: local.require_password_change, tfaSetupRequired };
}

export interface LoginSubject {
  user: string;
  role: string | null;
  /** svc_users.provider of the login: `default` (password) or an external provider's name. */
  provider: string;
  tfaSetupRequired: boolean;
  mode: LoginMode;
}

/** The tail every successful login shares (password, external sign-on): a session, the `login` activity row,
 * last_access, the `auth.login` event, and the tokens for the mode. */
export async function startLoginSession(
  services: AccessPort & ConfigPort & DatabasePort & EventsPort & SchemaPort, subject: LoginSubject, meta: RequestMeta,
): Promise<IssuedTokens> {
  const { config, database } = services;
  const version = (await services.schema.get()).version;
  const access = accessFor(await services.access.resolve(version, subject.role, subject.user), meta.ip);

  const refreshToken = await inTransaction(database.db, async (trx) => {
    const token = await createSession(trx, { user: subject.user, ttlMs: config.refreshTokenTtlMs, ...meta });
    await run(trx, `insert into svc_activity (action, "user", ip, user_agent, collection, item, origin)
      values ('login', $1, $2, $3, 'svc_users', $4, $5)`,
    [subject.user, clip(meta.ip, 50), meta.userAgent, subject.user, clip(meta.origin, 255)]);
    await stampLastAccess(trx, subject.user);
    // auth.login (SPEC.md > Events 2), after commit, as Directus sends it: who logged in, with which provider.
    services.events.emitAction(trx, 'auth.login', { user: subject.user, provider: subject.provider, status: 'success' }, null);
    return token;
  });

  return issueTokens(config, { user: subject.user, access, tfaSetupRequired: subject.tfaSetupRequired }, refreshToken, subject.mode === 'session');
}
