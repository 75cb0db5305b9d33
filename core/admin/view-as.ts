/** GET /permissions/as/{user} (admin only): what a chosen user would get, computed by the same resolver that answers
 * their own GET /permissions/me, /app-permissions/me and /policies/me/globals, without signing in as them. The user's
 * accountability is built exactly as authentication builds it (core/auth/authenticate.ts: role chain, policies of
 * the chain and of the user, each policy limited by ip_access counted only from inside its networks), for the client
 * address given (`ip`, else the admin's own). Nothing is written and no token is made: this is not impersonation. */
import { isIP } from 'node:net';
import { appPermissionsOfCaller } from '../access/app-permissions.ts';
import type { Accountability } from '../access/accountability.ts';
import { accessFor } from '../access/resolve.ts';
import { policyGlobals, type PolicyGlobals } from '../auth/globals.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidQueryError } from '../errors.ts';
import type { AccessPort } from '../ports.ts';
import { selectUserColumns } from '../users/table.ts';
import { isUuid } from '../uuid.ts';
import { permissionsOfCaller, type ActionAccess } from './permission-records.ts';
import { readRecords, requireAdmin } from './system-records.ts';

export interface ViewAsPolicy {
  id: string;
  name: string | null;
  admin_access: boolean;
  app_access: boolean;
  ip_access: string[] | null;
  /** False when ip_access leaves the given address out: the policy then grants nothing. */
  applies: boolean;
}

export interface ViewAs {
  user: { id: string; email: string | null; first_name: string | null; last_name: string | null; status: string; role: string | null };
  /** The user's role, then its ancestors (svc_roles.parent), whose policies all apply. */
  roles: { id: string; name: string | null }[];
  policies: ViewAsPolicy[];
  /** The client address the answer is computed for. */
  ip: string | null;
  globals: PolicyGlobals;
  app_permissions: string[];
  /** Exactly GET /permissions/me's answer for the user. */
  permissions: Record<string, Partial<Record<string, ActionAccess>>>;
}

/** ip_access as stored (an array; a comma list from older writes), or null when it sets no limit. */
function rangesOf(raw: unknown): string[] | null {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [];
  const out = list.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter(Boolean);
  return out.length > 0 ? out : null;
}

function addressOf(ctx: ServiceContext, raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return ctx.accountability.ip;
  if (isIP(raw) === 0) throw new InvalidQueryError(`"ip" must be an IP address, not "${raw.slice(0, 60)}".`);
  return raw;
}

export async function viewAs(services: AccessPort, ctx: ServiceContext, userId: string, rawIp?: string): Promise<ViewAs> {
  requireAdmin(ctx);
  if (!isUuid(userId)) throw new ForbiddenError();
  const ip = addressOf(ctx, rawIp);
  const row = await selectUserColumns(ctx.db, userId, ['id', 'email', 'first_name', 'last_name', 'status', 'role']);
  if (!row) throw new ForbiddenError();
  const user = row as ViewAs['user'];
  const template = await services.access.resolve(ctx.schema.version, user.role, user.id);
  const access = accessFor(template, ip);
  const accountability: Accountability = {
    user: user.id, role: access.role, roles: access.roles, policies: access.policies, admin: access.admin, app: access.app,
    serviceAccount: access.serviceAccount, ip, userAgent: null, origin: null,
  };
  const as: ServiceContext = { ...ctx, accountability };
  const all = template.policies.map((p) => p.id);
  const [permissions, appPermissions, globals, roleRows, policyRows] = await Promise.all([
    permissionsOfCaller(as),
    appPermissionsOfCaller(as),
    policyGlobals(ctx.db, accountability),
    template.roles.length ? readRecords(ctx, 'svc_roles', { fields: ['id', 'name'], filter: { id: { _in: template.roles } }, limit: -1 }) : { data: [] },
    all.length ? readRecords(ctx, 'svc_policies', { fields: ['id', 'name', 'admin_access', 'app_access', 'ip_access'], filter: { id: { _in: all } }, limit: -1 }) : { data: [] },
  ]);
  const roleName = new Map(roleRows.data.map((r) => [String(r.id), (r.name as string | null) ?? null]));
  const policyRow = new Map(policyRows.data.map((p) => [String(p.id), p]));
  const applied = new Set(access.policies);
  return {
    user,
    roles: template.roles.map((id) => ({ id, name: roleName.get(id) ?? null })),
    policies: template.policies.map((p) => {
      const stored = policyRow.get(p.id);
      const ranges = stored?.ip_access;
      return {
        id: p.id,
        name: (stored?.name as string | null | undefined) ?? null,
        admin_access: p.admin,
        app_access: p.app,
        ip_access: rangesOf(ranges),
        applies: applied.has(p.id),
      };
    }),
    ip,
    globals,
    app_permissions: appPermissions,
    permissions,
  };
}
