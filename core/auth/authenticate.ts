/** Turns a request's credential into an Accountability: none -> the Public role (settings.public_role); a
 * signed access token of an active user (bound to a live session when it carries one); a share token (the
 * share's role, limited to the shared item); a static user token (svc_users.token) of an active user; a
 * refresh token (a live svc_sessions token). A logged-out refresh token is 401 TOKEN_REVOKED, anything else
 * 401 INVALID_TOKEN.
 *
 * Hot path: with a warm cache a JWT request costs one HMAC check and map lookups, no SQL (the user's
 * status and role, and the role/policy resolution, are cached per schema version; see access/resolve.ts).
 * Only session-bound tokens (login mode `session`) query svc_sessions, so logging out takes effect at once;
 * refresh tokens are looked up only after the static-token lookup missed. Other user tokens signed before
 * the user's credentials or rights last changed are refused (core/auth/token-cutoff.ts: a map lookup). */
import { InvalidTokenError, TokenRevokedError } from '../errors.ts';
import type { Accountability } from '../access/accountability.ts';
import { buildAccountability, type Principal } from '../access/resolve.ts';
import type { AccessPort, ConfigPort, DatabasePort, SchemaPort, StorePort } from '../ports.ts';
import { impersonationStopped } from './impersonation.ts';
import { wasRevoked } from './revoked.ts';
import { liveSession, sessionIsLive, sessionRef, shareSessionIsLive } from './sessions.ts';
import { sessionRefIsLive, signedBeforeEpoch, tokenCutoff } from './token-cutoff.ts';
import {
  isServiceJwt, isVerifiedBefore, verifiedAccessToken, type AccessTokenPayload,
} from './tokens.ts';

export interface RequestMeta { ip: string | null; userAgent: string | null; origin: string | null }

/** `version` is the schema version the request runs against (read once per request by the caller). */
export async function authenticate(services: AccessPort & ConfigPort & DatabasePort & SchemaPort & StorePort, token: string | null, meta: RequestMeta, version?: string): Promise<Accountability> {
  version ??= (await services.schema.get()).version;
  if (!token) {
    const publicRole = await services.access.publicRole(version);
    return buildAccountability(await services.access.resolve(version, publicRole, null), null, meta);
  }
  const user = await principalOf(services, version, token);
  if ('share' in user) {
    // A share never has admin or app access, whatever its role grants.
    const base = buildAccountability(await services.access.resolve(version, user.role, null), null, meta);
    return { ...base, admin: false, app: false, share: user.share };
  }
  // The role is the user's current one (not the token's claim), so a demotion applies before the token expires.
  // buildAccountability answers a new object: the credential's relation is set on it rather than on a copy.
  const accountability = buildAccountability(await services.access.resolve(version, user.role, user.id), user.id, meta);
  if (user.impersonatedBy !== undefined) {
    accountability.impersonatedBy = user.impersonatedBy;
    return accountability;
  }
  if (user.tfaSetupOnly) {
    accountability.session = user.session;
    accountability.tfaSetupOnly = true;
  } else if (user.session !== undefined) accountability.session = user.session;
  return accountability;
}

interface ShareSubject { role: string | null; share: { id: string; collection: string; item: string } }

/** A user with how the credential relates to them: the impersonator behind it, or the login session. */
type UserSubject = Principal & { impersonatedBy?: string; session?: string; tfaSetupOnly?: true };

const SESSION_TOKEN = /^[A-Za-z0-9_-]{64}$/;

async function principalOf(services: AccessPort & ConfigPort & DatabasePort & SchemaPort & StorePort, version: string, token: string): Promise<UserSubject | ShareSubject> {
  if (isVerifiedBefore(token, services.config.secret) || isServiceJwt(token)) {
    const { payload, issuedMs: issuedAt } = await verifiedAccessToken(token, services.config.secret);
    if (payload.share) return shareSubject(services, payload);
    // Tokens without a share always carry an id (verifyAccessToken checks it).
    const user = await services.access.user(version, payload.id!);
    if (!user || user.status !== 'active') throw new InvalidTokenError();
    if (payload.session !== undefined) {
      // Bound to its session row, which a revocation deletes: no cut-off needed.
      if (!(await sessionIsLive(services.database.db, payload.session, user.id))) throw new TokenRevokedError();
    } else {
      const cutoff = await tokenCutoff(services.store, version, user.id);
      if (cutoff && (payload.sid === undefined || payload.sid !== cutoff.keep) && issuedAt < cutoff.after) throw new TokenRevokedError();
      // Signed before the store began remembering cut-offs (a Redis restarted empty, a process with the in-memory
      // store restarted): a cut-off may have been lost, so the session it names must still exist.
      if (!cutoff) {
        if (payload.impersonated_by !== undefined) {
          if (signedBeforeEpoch(services.store, version, issuedAt, true)) throw new TokenRevokedError();
        } else if (payload.sid !== undefined && signedBeforeEpoch(services.store, version, issuedAt)
          && !(await sessionRefIsLive(services.database.db, version, user.id, payload.sid))) throw new TokenRevokedError();
      }
    }
    if (payload.impersonated_by !== undefined) {
      if (await impersonationStopped(services.store, token)) throw new TokenRevokedError();
      return { ...user, impersonatedBy: payload.impersonated_by };
    }
    const session = payload.session !== undefined ? sessionRef(payload.session) : payload.sid;
    // Literals of one shape rather than spreads of the cached user: this runs on every request.
    if (payload.tfa_setup_required) return { id: user.id, role: user.role, status: user.status, session, tfaSetupOnly: true };
    return session !== undefined ? { id: user.id, role: user.role, status: user.status, session } : user;
  }
  const user = await services.access.userByToken(version, token);
  if (user) return user;
  // Only misses of the static-token lookup reach here, so valid credentials pay nothing for this.
  if (SESSION_TOKEN.test(token)) {
    const session = await liveSession(services.database.db, token);
    if (session?.user) {
      const owner = await services.access.user(version, session.user);
      if (owner && owner.status === 'active') return { ...owner, session: sessionRef(token) };
    } else if (session?.share && session.share_collection !== null && session.share_item !== null) {
      return { role: session.share_role, share: { id: session.share, collection: session.share_collection, item: session.share_item } };
    }
    if (!session && (await wasRevoked(services.store, token))) throw new TokenRevokedError();
  }
  throw new InvalidTokenError();
}

async function shareSubject(services: AccessPort & ConfigPort & DatabasePort & SchemaPort & StorePort, payload: AccessTokenPayload): Promise<ShareSubject> {
  const { share, share_scope: scope } = payload;
  if (payload.session !== undefined && !(await shareSessionIsLive(services.database.db, payload.session, share!))) {
    throw new TokenRevokedError();
  }
  return { role: payload.role, share: { id: share!, collection: scope!.collection, item: scope!.item } };
}
