/** Turns a request's credential into an Accountability: none -> the Public role; a signed access token;
 * a static user token (svc_users.token). */
import { run } from '../db/database.ts';
import { InvalidTokenError } from '../errors.ts';
import type { Accountability } from '../access/accountability.ts';
import { buildAccountability } from '../access/resolve.ts';
import type { Services } from '../services.ts';
import { looksLikeJwt, verifyAccessToken } from './tokens.ts';

export interface RequestMeta { ip: string | null; userAgent: string | null; origin: string | null }

export async function authenticate(services: Services, token: string | null, meta: RequestMeta): Promise<Accountability> {
  const schema = await services.schema.get();
  const version = schema.version;
  if (!token) {
    const publicRole = await services.access.publicRole(version);
    return buildAccountability(await services.access.resolve(version, publicRole, null), null, meta);
  }
  if (looksLikeJwt(token)) {
    const payload = await verifyAccessToken(token, services.config.secret);
    return buildAccountability(await services.access.resolve(version, payload.role, payload.id), payload.id, meta);
  }
  const [user] = await run<{ id: string; role: string | null }>(services.database.db,
    "select id, role from svc_users where token = $1 and status = 'active'", [token]);
  if (!user) throw new InvalidTokenError();
  return buildAccountability(await services.access.resolve(version, user.role, user.id), user.id, meta);
}
