/** Turns a request's credential into an Accountability: none -> the Public role (settings.public_role); a
 * signed access token of an active user (bound to a live session when it carries one); a static user
 * token (svc_users.token) of an active user. Anything else is 401 INVALID_TOKEN.
 *
 * Hot path: with a warm cache a JWT request costs one HMAC check and map lookups, no SQL (the user's
 * status and role, and the role/policy resolution, are cached per schema version; see access/resolve.ts).
 * Only session-bound tokens (login mode `session`) query svc_sessions, so logging out takes effect at once. */
import { InvalidTokenError, TokenRevokedError } from '../errors.ts';
import type { Accountability } from '../access/accountability.ts';
import { buildAccountability, type Principal } from '../access/resolve.ts';
import type { Services } from '../services.ts';
import { sessionIsLive } from './sessions.ts';
import { isServiceJwt, isVerifiedBefore, verifyAccessToken } from './tokens.ts';

export interface RequestMeta { ip: string | null; userAgent: string | null; origin: string | null }

/** `version` is the schema version the request runs against (read once per request by the caller). */
export async function authenticate(services: Services, token: string | null, meta: RequestMeta, version?: string): Promise<Accountability> {
  version ??= (await services.schema.get()).version;
  if (!token) {
    const publicRole = await services.access.publicRole(version);
    return buildAccountability(await services.access.resolve(version, publicRole, null), null, meta);
  }
  const user = await principalOf(services, version, token);
  // The role is the user's current one (not the token's claim), so a demotion applies before the token expires.
  return buildAccountability(await services.access.resolve(version, user.role, user.id), user.id, meta);
}

async function principalOf(services: Services, version: string, token: string): Promise<Principal> {
  if (isVerifiedBefore(token, services.config.secret) || isServiceJwt(token)) {
    const payload = await verifyAccessToken(token, services.config.secret);
    const user = await services.access.user(version, payload.id);
    if (!user || user.status !== 'active') throw new InvalidTokenError();
    if (payload.session !== undefined && !(await sessionIsLive(services.database.db, payload.session, user.id))) {
      throw new TokenRevokedError();
    }
    return user;
  }
  const user = await services.access.userByToken(version, token);
  if (!user) throw new InvalidTokenError();
  return user;
}
