/** Impersonation: a principal whose role (or an ancestor role) has impersonate_access, or an admin, gets an
 * access token acting as another user. The token carries `impersonated_by`; every activity row its requests
 * cause records it. Only admins may impersonate admins; impersonation tokens cannot impersonate again.
 *
 * Activity: `impersonation.started` / `impersonation.stopped` rows on svc_users with item = the target,
 * user = the target and impersonated_by = the actor, the same stamping as every row written meanwhile, so
 * `filter[impersonated_by][_eq]=<actor>` lists the whole session.
 *
 * Stopping revokes the token: its hash is kept in the shared store for the token lifetime and requests
 * presenting it get 401 TOKEN_REVOKED. Only impersonation tokens pay that store read. */
import { createHash } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { signAccessToken } from './tokens.ts';
import type { AccessPort, ConfigPort, StorePort } from '../ports.ts';
import type { SharedStore } from '../store/shared-store.ts';
import { accessFor } from '../access/resolve.ts';
import { isUuid } from '../uuid.ts';
import { selectPrincipal } from '../users/table.ts';


const stoppedKey = (token: string) => `impersonation-stopped:${createHash('sha256').update(token).digest('base64url')}`;

export async function impersonationStopped(store: SharedStore, token: string): Promise<boolean> {
  return (await store.get(stoppedKey(token))) !== null;
}

async function recordActivity(ctx: ServiceContext, action: 'impersonation.started' | 'impersonation.stopped', target: string, actor: string): Promise<void> {
  const a = ctx.accountability;
  await run(ctx.db, `insert into svc_activity (action, "user", ip, user_agent, origin, collection, item, impersonated_by)
    values ($1, $2::uuid, $3, $4, $5, 'svc_users', $6, $7::uuid)`,
  [action, target, a.ip?.slice(0, 50) ?? null, a.userAgent, a.origin?.slice(0, 255) ?? null, target, actor]);
}

/** True when a role of the caller's chain has impersonate_access. */
async function mayImpersonate(ctx: ServiceContext): Promise<boolean> {
  const a = ctx.accountability;
  if (a.admin) return true;
  if (a.roles.length === 0) return false;
  const [row] = await run<{ allowed: boolean | null }>(ctx.db,
    'select bool_or(impersonate_access) as allowed from svc_roles where id = any($1::uuid[])', [a.roles]);
  return row.allowed === true;
}

export interface ImpersonationToken { access_token: string; expires: number }

export async function startImpersonation(services: AccessPort & ConfigPort & StorePort, ctx: ServiceContext, raw: unknown): Promise<ImpersonationToken> {
  const a = ctx.accountability;
  if (!a.user || a.share || a.impersonatedBy || !(await mayImpersonate(ctx))) throw new ForbiddenError();
  const target = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>).user : undefined;
  if (!isUuid(target)) throw new InvalidPayloadError('Invalid payload. "user" must be a user id.', { field: 'user' });
  if (target.toLowerCase() === a.user.toLowerCase()) throw new InvalidPayloadError('Invalid payload. You cannot impersonate yourself.', { field: 'user' });
  const user = await selectPrincipal(ctx.db, target);
  if (!user) throw new ForbiddenError();
  if (user.status !== 'active') throw new InvalidPayloadError('Invalid payload. Only active users can be impersonated.', { field: 'user' });
  const template = await services.access.resolve(ctx.schema.version, user.role, user.id);
  // Any admin grant (whatever the client address) counts: a non-admin never gets near an admin account.
  const targetAdmin = template.roleAdmin || template.policies.some((p) => p.admin);
  if (targetAdmin && !a.admin) throw new ForbiddenError();
  const access = accessFor(template, a.ip);
  const ttl = services.config.accessTokenTtlMs;
  const token = await signAccessToken({
    id: user.id, role: user.role, app_access: access.app, admin_access: access.admin, impersonated_by: a.user,
  }, services.config.secret, ttl);
  await recordActivity(ctx, 'impersonation.started', user.id, a.user);
  return { access_token: token, expires: ttl };
}

/** Ends the impersonation the request's token belongs to. */
export async function stopImpersonation(services: AccessPort & ConfigPort & StorePort, ctx: ServiceContext, token: string | null): Promise<void> {
  const a = ctx.accountability;
  if (!a.user || !a.impersonatedBy || !token) {
    throw new InvalidPayloadError('Invalid payload. The request is not made with an impersonation token.');
  }
  await services.store.set(stoppedKey(token), '1', services.config.accessTokenTtlMs);
  await recordActivity(ctx, 'impersonation.stopped', a.user, a.impersonatedBy);
}
