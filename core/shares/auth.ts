/** POST /shares/auth: a share id (+ password) -> tokens acting as the share's role, limited to the shared
 * item (Directus' SharesService.login). */
import { inTransaction, run } from '../db/database.ts';
import { InvalidCredentialsError, InvalidPayloadError, UserSuspendedError } from '../errors.ts';
import { accessFor } from '../access/resolve.ts';
import type { AccessPort, ConfigPort, DatabasePort, SchemaPort, StorePort } from '../ports.ts';
import type { RequestMeta } from '../auth/authenticate.ts';
import { issueTokens, type IssuedTokens } from '../auth/issue.ts';
import type { LoginMode } from '../auth/login.ts';
import { verifyPassword } from '../auth/passwords.ts';
import { clip, generateSessionToken } from '../auth/sessions.ts';
import { isUuid } from '../uuid.ts';
import { recordFailedShareLogin, resetFailedShareLogins, shareLockedUntil } from './lockout.ts';

const MODES: readonly LoginMode[] = ['json', 'cookie', 'session'];

export interface ShareLoginInput { share: string; password: string | null; mode: LoginMode }

export function parseShareLoginInput(body: Record<string, unknown>): ShareLoginInput {
  const { share, password, mode } = body;
  if (share === undefined || share === null || share === '') throw new InvalidPayloadError('"share" is required');
  if (!isUuid(share)) throw new InvalidPayloadError('"share" must be a valid GUID');
  if (password !== undefined && password !== null && typeof password !== 'string') throw new InvalidPayloadError('"password" must be a string');
  if (mode !== undefined && mode !== null && !MODES.includes(mode as LoginMode)) {
    throw new InvalidPayloadError('"mode" must be one of [json, cookie, session]');
  }
  return { share, password: typeof password === 'string' ? password : null, mode: (mode as LoginMode | null | undefined) ?? 'json' };
}

interface ShareRow { id: string; role: string | null; collection: string; item: string; password: string | null }

/** A share outside its dates, used up or unknown is INVALID_CREDENTIALS, as is a wrong or missing password.
 * Wrong passwords count towards the share's lockout (lockout.ts); a locked share is USER_SUSPENDED, as a locked
 * account is at /auth/login, until its cooldown ends, whatever password is sent. */
export async function shareLogin(services: AccessPort & ConfigPort & DatabasePort & SchemaPort & StorePort, input: ShareLoginInput, meta: RequestMeta): Promise<IssuedTokens> {
  const { config, database } = services;
  const usable = `id = $1 and (date_start is null or date_start <= now()) and (date_end is null or date_end >= now())
    and (max_uses is null or coalesce(times_used, 0) < max_uses)`;
  const [share] = await run<ShareRow>(database.db, `select id, role, collection, item, password from svc_shares where ${usable}`, [input.share]);
  if (!share) throw new InvalidCredentialsError();
  if (share.password) {
    const lockedUntil = await shareLockedUntil(services, share.id);
    if (lockedUntil !== null) {
      throw new UserSuspendedError(`Share locked after too many failed password attempts, until ${new Date(lockedUntil).toISOString()}.`);
    }
    if (input.password === null) throw new InvalidCredentialsError();
    if (!(await verifyPassword(share.password, input.password))) {
      await recordFailedShareLogin(services, share.id, config.authLockoutCooldownMs);
      throw new InvalidCredentialsError();
    }
    await resetFailedShareLogins(services, share.id);
  }

  const version = (await services.schema.get()).version;
  const access = accessFor(await services.access.resolve(version, share.role, null), meta.ip);
  const refreshToken = await inTransaction(database.db, async (trx) => {
    // Counted under the same conditions, so concurrent logins cannot exceed max_uses.
    const used = await run(trx, `update svc_shares set times_used = coalesce(times_used, 0) + 1 where ${usable} returning id`, [share.id]);
    if (used.length === 0) throw new InvalidCredentialsError();
    const token = generateSessionToken();
    await run(trx, 'delete from svc_sessions where share = $1 and expires < now()', [share.id]);
    await run(trx, `insert into svc_sessions (token, share, expires, ip, user_agent, origin) values ($1, $2, $3, $4, $5, $6)`,
      [token, share.id, new Date(Date.now() + config.refreshTokenTtlMs), clip(meta.ip, 255), meta.userAgent, clip(meta.origin, 255)]);
    return token;
  });
  return issueTokens(config, { user: null, access, share: { id: share.id, collection: share.collection, item: share.item } },
    refreshToken, input.mode === 'session');
}
