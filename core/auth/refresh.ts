/** POST /auth/refresh and POST /auth/logout: refresh-token rotation and revocation of svc_sessions rows. */
import { inTransaction, run } from '../db/database.ts';
import {
  InvalidCredentialsError, InvalidPayloadError, TokenExpiredError, TokenRevokedError, UserSuspendedError,
} from '../errors.ts';
import { accessFor } from '../access/resolve.ts';
import type { AccessPort, ConfigPort, DatabasePort, SchemaPort, StorePort } from '../ports.ts';
import type { RequestMeta } from './authenticate.ts';
import { issueTokens, type IssuedTokens } from './issue.ts';
import type { LoginMode } from './login.ts';
import { announceLogout, rememberRevoked, wasRevoked } from './revoked.ts';
import { clip, deleteSession, deleteSessionFamily, findSession, rotateSession } from './sessions.ts';

const MODES: readonly LoginMode[] = ['json', 'cookie', 'session'];

export interface RefreshInput { refreshToken: string | null; mode: LoginMode }

/** Body of refresh/logout: `{refresh_token?, mode?}`. As Directus, the mode defaults to json when the body
 * carries the token and to cookie otherwise. */
export function parseRefreshBody(body: Record<string, unknown>): { refreshToken: string | null; mode: LoginMode } {
  const { refresh_token: token, mode } = body;
  if (token !== undefined && token !== null && typeof token !== 'string') throw new InvalidPayloadError('"refresh_token" must be a string');
  if (mode !== undefined && mode !== null && !MODES.includes(mode as LoginMode)) {
    throw new InvalidPayloadError('"mode" must be one of [json, cookie, session]');
  }
  const refreshToken = typeof token === 'string' && token !== '' ? token : null;
  return { refreshToken, mode: (mode as LoginMode | null | undefined) ?? (refreshToken ? 'json' : 'cookie') };
}

function requireToken(token: string | null): string {
  if (!token) throw new InvalidPayloadError('The refresh token is required in either the payload or cookie');
  return token;
}

/** Unknown tokens are INVALID_CREDENTIALS (as Directus); logged-out and rotated ones TOKEN_REVOKED; expired ones TOKEN_EXPIRED. */
export async function refresh(services: AccessPort & ConfigPort & DatabasePort & SchemaPort & StorePort, input: RefreshInput, meta: RequestMeta): Promise<IssuedTokens> {
  const { config, database } = services;
  const token = requireToken(input.refreshToken);
  const record = await findSession(database.db, token);
  if (!record) throw (await wasRevoked(services.store, token)) ? new TokenRevokedError() : new InvalidCredentialsError();
  if (!record.live) throw record.next_token ? new TokenRevokedError() : new TokenExpiredError();

  let role: string | null;
  if (record.user) {
    if (record.user_status !== 'active') {
      await deleteSession(database.db, token);
      throw record.user_status === 'suspended' ? new UserSuspendedError() : new InvalidCredentialsError();
    }
    role = record.user_role;
  } else if (record.share && record.share_collection !== null && record.share_item !== null) {
    role = record.share_role;
  } else {
    throw new InvalidCredentialsError();
  }

  // Resolved before the transaction: the resolver may query through the root connection.
  const version = (await services.schema.get()).version;
  const access = accessFor(await services.access.resolve(version, role, record.user), meta.ip);
  const next = await inTransaction(database.db, (trx) => rotateSession(trx, token, { ttlMs: config.refreshTokenTtlMs, ...meta }));
  // Logged out or expired between the read and the lock.
  if (!next) throw new TokenRevokedError();
  const share = record.share ? { id: record.share, collection: record.share_collection!, item: record.share_item! } : undefined;
  // Until two-factor is set up, a refresh gives the limited token again (core/auth/tfa-setup.ts).
  return issueTokens(config, { user: record.user, access, share, tfaSetupRequired: record.tfa_setup_required === true }, next, input.mode === 'session');
}

/** Deletes the session with its whole rotation chain (a rotated-away token in its grace period would
 * otherwise still refresh, answering with the logged-out successor) and records `logout` in the activity;
 * unknown tokens pass silently (as Directus). */
export async function logout(services: AccessPort & ConfigPort & DatabasePort & SchemaPort & StorePort, token: string | null, meta: RequestMeta): Promise<void> {
  const { database } = services;
  const refreshToken = requireToken(token);
  const deleted = await inTransaction(database.db, async (trx) => {
    const rows = await deleteSessionFamily(trx, refreshToken);
    const row = rows.find((r) => r.user !== null);
    if (row?.user) {
      await run(trx, `insert into svc_activity (action, "user", ip, user_agent, collection, item, origin)
        values ('logout', $1, $2, $3, 'svc_users', $4, $5)`,
      [row.user, clip(meta.ip, 50), meta.userAgent, row.user, clip(meta.origin, 255)]);
    }
    return rows;
  });
  await Promise.all(deleted.map((row) => rememberRevoked(services.store, row.token, row.expires)));
  if (deleted.length) await announceLogout(services.store);
}
