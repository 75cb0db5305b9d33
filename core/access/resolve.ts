/** Builds the accountability of a user or of the Public role: role chain, policies and the admin/app flags
 * they grant, and looks up the principal behind a credential (user by id, user by static token). Results are
 * cached per schema version: writes to svc_users (status, role, token, delete), svc_roles, svc_access,
 * svc_policies and settings.public_role must bump it (services.schema.invalidate()) like schema changes. */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { run, type Executor } from '../db/database.ts';
import type { Accountability } from './accountability.ts';
import { isUuid } from '../uuid.ts';
import { selectActivePrincipalByToken, selectPrincipal } from '../users/table.ts';

export interface ResolvedAccess { role: string | null; roles: string[]; policies: string[]; admin: boolean; app: boolean; serviceAccount: boolean }

/** The user behind a credential, as far as authentication needs it. */
export interface Principal { id: string; role: string | null; status: string }

const MAX_ENTRIES = 10_000;

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, value);
}

/** One statement: the role chain (the role, then its ancestors; cycles stop at the first repeat) with the
 * roles' flags, and every policy attached to a role of the chain or to the user, in svc_access order. */
const ACCESS_SQL = `
with recursive chain(id, parent, depth, path) as (
  select id, parent, 0, array[id] from svc_roles where id = $1
  union all
  select r.id, r.parent, chain.depth + 1, chain.path || r.id from svc_roles r join chain on r.id = chain.parent
  where not r.id = any(chain.path) and chain.depth < 64
),
roles as (select r.id, r.admin_access, r.tech_access, r.app_access, r.service_account, chain.depth from svc_roles r join chain on chain.id = r.id),
pols as (
  select p.id, p.admin_access, p.app_access, p.ip_access, min(coalesce(a.sort, 0)) as sort
  from svc_access a join svc_policies p on p.id = a.policy
  where a.role in (select id from chain) or ($2::uuid is not null and a."user" = $2::uuid)
  group by p.id
)
select
  coalesce((select json_agg(id order by depth) from roles), '[]') as roles,
  coalesce((select bool_or(admin_access or tech_access) from roles), false) as role_admin,
  coalesce((select bool_or(app_access or admin_access or tech_access) from roles), false) as role_app,
  coalesce((select bool_or(service_account) from roles), false) as role_service,
  coalesce((select json_agg(json_build_object('id', id, 'admin', admin_access, 'app', app_access, 'ip_access', ip_access)
    order by sort, id) from pols), '[]') as policies`;

interface PolicyRow { id: string; admin: boolean; app: boolean; ip_access: unknown }

/** A policy of the caller; `networks` limits it to client addresses (svc_policies.ip_access). */
interface ResolvedPolicy { id: string; admin: boolean; app: boolean; networks: BlockList | null }

/** Access before the per-request client address is applied. */
export interface ResolvedAccessTemplate {
  role: string | null;
  roles: string[];
  roleAdmin: boolean;
  roleApp: boolean;
  /** svc_roles.service_account on the role chain: selects the service rate-limit bucket. */
  serviceAccount: boolean;
  policies: ResolvedPolicy[];
  /** The result when no policy is limited by ip_access (the common case): no per-request work. */
  fixed: ResolvedAccess | null;
}

/** ip_access as stored: a JSON array of CIDR ranges or addresses (a comma list is accepted too). Entries that
 * do not parse are skipped, so a typo closes the policy rather than opening it. Empty/null = no limit. */
export function parseNetworks(raw: unknown): BlockList | null {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' && raw.trim() !== '' ? raw.split(',') : [];
  const entries = list.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter(Boolean);
  if (entries.length === 0) return null;
  const block = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
    if (!family) continue;
    if (prefix === undefined) block.addAddress(address, family);
    else if (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 'ipv4' ? 32 : 128)) block.addSubnet(address, Number(prefix), family);
  }
  return block;
}

function ipAllowed(networks: BlockList, ip: string | null): boolean {
  if (!ip) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1] : ip;
  if (isIPv4(address)) return networks.check(address, 'ipv4');
  return isIPv6(address) && networks.check(address, 'ipv6');
}

function finish(template: ResolvedAccessTemplate, policies: ResolvedPolicy[]): ResolvedAccess {
  return {
    role: template.role,
    roles: template.roles,
    policies: policies.map((p) => p.id),
    admin: template.roleAdmin || policies.some((p) => p.admin),
    app: template.roleApp || policies.some((p) => p.app || p.admin),
    serviceAccount: template.serviceAccount,
  };
}

/** Applies the client address: policies limited by ip_access count only from inside their networks. */
export function accessFor(template: ResolvedAccessTemplate, ip: string | null): ResolvedAccess {
  if (template.fixed) return template.fixed;
  return finish(template, template.policies.filter((p) => !p.networks || ipAllowed(p.networks, ip)));
}

export class AccessResolver {
  #cache = new Map<string, Promise<ResolvedAccessTemplate>>();
  #users = new Map<string, Promise<Principal | null>>();
  #tokens = new Map<string, Principal>();
  #version = '';

  constructor(private readonly db: Executor) {}

  #publicRole: Promise<string | null> | undefined;

  #sync(version: string): void {
    if (version !== this.#version) {
      this.#cache.clear();
      this.#users.clear();
      this.#tokens.clear();
      this.#publicRole = undefined;
      this.#version = version;
    }
  }

  /** The user with this id (any status), or null when there is none. Cached per schema version. */
  async user(version: string, id: string): Promise<Principal | null> {
    if (!isUuid(id)) return null;
    this.#sync(version);
    let hit = this.#users.get(id);
    if (!hit) {
      hit = selectPrincipal(this.db, id).then((row) => row ?? null);
      remember(this.#users, id, hit);
      hit.catch(() => this.#users.delete(id));
    }
    return hit;
  }

  /** The active user owning this static token, or null. Only matches are cached (misses stay uncached, so
   * random tokens cannot fill the cache). */
  async userByToken(version: string, token: string): Promise<Principal | null> {
    this.#sync(version);
    const hit = this.#tokens.get(token);
    if (hit) return hit;
    const row = await selectActivePrincipalByToken(this.db, token);
    if (!row) return null;
    if (version === this.#version) remember(this.#tokens, token, row);
    return row;
  }

  /** settings.public_role, the role anonymous requests act as. */
  async publicRole(version: string): Promise<string | null> {
    this.#sync(version);
    if (this.#publicRole === undefined) {
      const loading = run<{ public_role: string | null }>(this.db, 'select public_role from svc_settings where id = 1')
        .then(([row]) => row?.public_role ?? null);
      this.#publicRole = loading;
      loading.catch(() => { if (this.#publicRole === loading) this.#publicRole = undefined; });
    }
    return this.#publicRole;
  }

  /** Role chain, policies (of the chain and attached to the user) and the admin/app flags they grant.
   * Concurrent first requests share one query. */
  async resolve(version: string, role: string | null, user: string | null): Promise<ResolvedAccessTemplate> {
    this.#sync(version);
    const key = `${role}|${user}`;
    let hit = this.#cache.get(key);
    if (!hit) {
      hit = run<{ roles: string[]; role_admin: boolean; role_app: boolean; role_service: boolean; policies: PolicyRow[] }>(this.db, ACCESS_SQL, [role, user])
        .then(([row]) => {
          const policies = row.policies.map((p) => ({ id: p.id, admin: p.admin, app: p.app, networks: parseNetworks(p.ip_access) }));
          const template: ResolvedAccessTemplate = { role, roles: row.roles, roleAdmin: row.role_admin, roleApp: row.role_app, serviceAccount: row.role_service, policies, fixed: null };
          if (policies.every((p) => !p.networks)) template.fixed = finish(template, policies);
          return template;
        });
      remember(this.#cache, key, hit);
      hit.catch(() => this.#cache.delete(key));
    }
    return hit;
  }
}

export function buildAccountability(template: ResolvedAccessTemplate, user: string | null, meta: { ip: string | null; userAgent: string | null; origin: string | null }): Accountability {
  const access = accessFor(template, meta.ip);
  return { user, role: access.role, roles: access.roles, policies: access.policies, admin: access.admin, app: access.app, serviceAccount: access.serviceAccount, ...meta };
}
