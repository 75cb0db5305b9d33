/** Signs the access token of a login, refresh or share login from what was resolved for the subject. */
import type { Config } from '../config.ts';
import type { ResolvedAccess } from '../access/resolve.ts';
import { sessionRef } from './sessions.ts';
import { signAccessToken, type ShareScope } from './tokens.ts';

export interface TokenSubject {
  /** The user, or null for a share. */
  user: string | null;
  access: ResolvedAccess;
  share?: { id: string } & ShareScope;
  /** The user must set up two-factor before anything else (core/auth/tfa-setup.ts). */
  tfaSetupRequired?: boolean;
}

export interface IssuedTokens {
  accessToken: string;
  /** The svc_sessions token: the refresh token (json/cookie modes) or the session the access token is bound to. */
  refreshToken: string;
  /** Milliseconds until the access token expires. */
  expires: number;
}

/** `bindSession`: login mode `session`, where the token names its session and is checked against it on every
 * request, so it may live as long as the session. */
export async function issueTokens(config: Config, subject: TokenSubject, refreshToken: string, bindSession: boolean): Promise<IssuedTokens> {
  const ttlMs = bindSession ? config.refreshTokenTtlMs : config.accessTokenTtlMs;
  const { share } = subject;
  const accessToken = await signAccessToken({
    id: subject.user,
    role: subject.access.role,
    app_access: share ? false : subject.access.app,
    admin_access: share ? false : subject.access.admin,
    // A user's token names its session: bound to it (mode session) or by reference (core/auth/user-revocation.ts).
    ...(bindSession ? { session: refreshToken } : subject.user !== null ? { sid: sessionRef(refreshToken) } : {}),
    ...(share ? { share: share.id, share_scope: { collection: share.collection, item: share.item } } : {}),
    ...(subject.tfaSetupRequired ? { tfa_setup_required: true as const } : {}),
  }, config.secret, ttlMs);
  return { accessToken, refreshToken, expires: ttlMs };
}
