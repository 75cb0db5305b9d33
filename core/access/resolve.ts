/** Builds the accountability of a user or of the Public role: role chain, policies and the admin/app flags
 * they grant. Results are cached per schema version (access changes bump it like schema changes). */
import { run, type Executor } from '../db/database.ts';
import type { Accountability } from './accountability.ts';

interface ResolvedAccess { role: string | null; roles: string[]; policies: string[]; admin: boolean; app: boolean }

const ACCESS_SQL = `
with recursive chain(id, parent, depth) as (
  select id, parent, 0 from svc_roles where id = $1
  union all
  select r.id, r.parent, chain.depth + 1 from svc_roles r join chain on r.id = chain.parent where chain.depth < 32
),
roles as (select r.* from svc_roles r join chain on chain.id = r.id),
pols as (
  select distinct p.id, p.admin_access, p.app_access from svc_access a join svc_policies p on p.id = a.policy
  where a.role in (select id from chain) or ($2::uuid is not null and a."user" = $2::uuid)
)
select
  coalesce((select json_agg(id) from chain), '[]') as roles,
  coalesce((select json_agg(id) from pols), '[]') as policies,
  coalesce((select bool_or(admin_access or tech_access) from roles), false)
    or coalesce((select bool_or(admin_access) from pols), false) as admin,
  coalesce((select bool_or(app_access or admin_access or tech_access) from roles), false)
    or coalesce((select bool_or(app_access or admin_access) from pols), false) as app`;

export class AccessResolver {
  #cache = new Map<string, ResolvedAccess>();
  #version = '';

  constructor(private readonly db: Executor) {}

  #publicRole: string | null | undefined;

  #sync(version: string): void {
    if (version !== this.#version) {
      this.#cache.clear();
      this.#publicRole = undefined;
      this.#version = version;
    }
  }

  /** settings.public_role, the role anonymous requests act as. */
  async publicRole(version: string): Promise<string | null> {
    this.#sync(version);
    if (this.#publicRole === undefined) {
      const [row] = await run<{ public_role: string | null }>(this.db, 'select public_role from svc_settings where id = 1');
      this.#publicRole = row?.public_role ?? null;
    }
    return this.#publicRole;
  }

  async resolve(version: string, role: string | null, user: string | null): Promise<ResolvedAccess> {
    this.#sync(version);
    const key = `${role}|${user}`;
    let hit = this.#cache.get(key);
    if (!hit) {
      const [row] = await run<{ roles: string[]; policies: string[]; admin: boolean; app: boolean }>(this.db, ACCESS_SQL, [role, user]);
      hit = { role, roles: row.roles, policies: row.policies, admin: row.admin, app: row.app };
      if (this.#cache.size > 10_000) this.#cache.clear();
      this.#cache.set(key, hit);
    }
    return hit;
  }
}

export function buildAccountability(access: ResolvedAccess, user: string | null, meta: { ip: string | null; userAgent: string | null; origin: string | null }): Accountability {
  return { user, role: access.role, roles: access.roles, policies: access.policies, admin: access.admin, app: access.app, ...meta };
}
