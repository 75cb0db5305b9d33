/** POST /auth/login: email + password (+ otp) -> access token and a session (refresh token). */
import { inTransaction, run } from '../db/database.ts';
import { InvalidCredentialsError, InvalidOtpError, InvalidPayloadError, UserSuspendedError } from '../errors.ts';
import { accessFor } from '../access/resolve.ts';
import type { Services } from '../services.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { verifyOtp } from './otp.ts';
import { clip, createSession } from './sessions.ts';
import { signAccessToken } from './tokens.ts';
import type { RequestMeta } from './authenticate.ts';

export type LoginMode = 'json' | 'cookie' | 'session';
const MODES: readonly LoginMode[] = ['json', 'cookie', 'session'];

export interface LoginInput { email: string; password: string; otp: string | null; mode: LoginMode }

export interface LoginResult {
  accessToken: string;
  /** The svc_sessions token: the refresh token (json/cookie modes) or the session the access token is bound to. */
  refreshToken: string;
  /** Milliseconds until the access token expires. */
  expires: number;
  userId: string;
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
  id: string; role: string | null; status: string; password: string | null; tfa_secret: string | null; provider: string;
}

export async function login(services: Services, input: LoginInput, meta: RequestMeta): Promise<LoginResult> {
  const { config, database } = services;
  // Email is matched case-insensitively; an exact match wins should case variants coexist.
  const [user] = await run<LoginUser>(database.db,
    `select id, role, status, password, tfa_secret, provider from svc_users
     where lower(email) = lower($1) order by (email = $1) desc limit 1`, [input.email]);

  const local = user && user.password && user.provider === 'default' ? user : null;
  const valid = await verifyPassword(local ? local.password! : await dummy(), input.password);
  if (!local || !valid) throw new InvalidCredentialsError();
  // Status is revealed only to someone who knows the password.
  if (local.status === 'suspended') throw new UserSuspendedError();
  if (local.status !== 'active') throw new InvalidCredentialsError();
  if (local.tfa_secret) {
    if (!input.otp) throw new InvalidOtpError('"otp" is required');
    if (!(await verifyOtp(local.tfa_secret, input.otp))) throw new InvalidOtpError('"otp" is invalid');
  }

  const version = (await services.schema.get()).version;
  const access = accessFor(await services.access.resolve(version, local.role, local.id), meta.ip);
  const session = input.mode === 'session';
  // A session-mode token is checked against svc_sessions on every request, so it may live as long as the session.
  const ttlMs = session ? config.refreshTokenTtlMs : config.accessTokenTtlMs;

  const refreshToken = await inTransaction(database.db, async (trx) => {
    const token = await createSession(trx, { user: local.id, ttlMs: config.refreshTokenTtlMs, ...meta });
    await run(trx, `insert into svc_activity (action, "user", ip, user_agent, collection, item, origin)
      values ('login', $1, $2, $3, 'svc_users', $4, $5)`,
    [local.id, clip(meta.ip, 50), meta.userAgent, local.id, clip(meta.origin, 255)]);
    await run(trx, 'update svc_users set last_access = now() where id = $1', [local.id]);
    return token;
  });

  const accessToken = await signAccessToken({
    id: local.id,
    role: local.role,
    app_access: access.app,
    admin_access: access.admin,
    ...(session ? { session: refreshToken } : {}),
  }, config.secret, ttlMs);
  return { accessToken, refreshToken, expires: ttlMs, userId: local.id };
}
