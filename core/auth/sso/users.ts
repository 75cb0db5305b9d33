/** The accounts behind external identities (SPEC.md > svc_users provider, external_identifier, auth_data): the one
 * owner of the svc_users statements external sign-on makes. An identity is found by provider + external_identifier
 * only, never by email: an email match would let whoever controls an IdP account with that address take over a
 * local account. A local account with the same email is refused until its owner links it (POST /auth/link). */
import { randomUUID } from 'node:crypto';
import { inTransaction, run, type Executor } from '../../db/database.ts';
import { TFA_ENFORCED_SQL } from '../tfa-setup.ts';
import { SsoFlowError } from './failure.ts';
import type { ExternalProfile, SsoProviderConfig } from './types.ts';

export interface SsoUser {
  id: string;
  role: string | null;
  status: string;
  tfa_secret: string | null;
  tfa_enabled: boolean;
  enforce_tfa: boolean;
}

const USER_COLUMNS = `u.id, u.role, u.status, u.tfa_secret, u.tfa_enabled, ${TFA_ENFORCED_SQL} as enforce_tfa`;

async function byIdentity(ex: Executor, provider: string, identifier: string): Promise<SsoUser | undefined> {
  const [row] = await run<SsoUser>(ex, `select ${USER_COLUMNS} from svc_users u left join svc_roles r on r.id = u.role
    where u.provider = $1 and u.external_identifier = $2`, [provider, identifier]);
  return row;
}

export async function ssoUserById(ex: Executor, id: string): Promise<SsoUser | undefined> {
  const [row] = await run<SsoUser>(ex, `select ${USER_COLUMNS} from svc_users u left join svc_roles r on r.id = u.role where u.id = $1`, [id]);
  return row;
}

/** The role the identity's groups map to (first entry of the mapping the user belongs to), or null. */
export function mappedRole(provider: SsoProviderConfig, groups: readonly string[]): string | null {
  for (const [group, role] of Object.entries(provider.roleMapping)) if (groups.includes(group)) return role;
  return null;
}

async function emailOwner(ex: Executor, email: string, except: string | null): Promise<string | null> {
  const [row] = await run<{ id: string }>(ex, 'select id from svc_users where lower(email) = lower($1) and ($2::uuid is null or id <> $2::uuid) limit 1', [email, except]);
  return row?.id ?? null;
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown }).code === '23505';
}

/** The account of a sign-in: found (and synced when the provider says so), or created when public registration is
 * allowed. Throws SsoFlowError for a refusal. Status is checked by the caller (after sync). */
export async function accountForIdentity(db: Executor, provider: SsoProviderConfig, profile: ExternalProfile): Promise<SsoUser> {
  const found = await byIdentity(db, provider.name, profile.identifier);
  if (found) {
    if (provider.syncUserInfo) await syncUser(db, found.id, provider, profile);
    return (await ssoUserById(db, found.id)) ?? found;
  }
  if (profile.email && await emailOwner(db, profile.email, null)) {
    throw new SsoFlowError('ACCOUNT_NOT_LINKED', `${provider.name}: "${profile.identifier}" is new, but a user with its email exists and is not linked to ${provider.name}`);
  }
  if (!provider.allowPublicRegistration) {
    throw new SsoFlowError('INVALID_CREDENTIALS', `${provider.name}: "${profile.identifier}" has no account and public registration is off for this provider`);
  }
  const id = randomUUID();
  try {
    await run(db, `insert into svc_users (id, email, first_name, last_name, status, role, provider, external_identifier, auth_data)
      values ($1, $2, $3, $4, 'active', $5, $6, $7, $8)`,
    [id, profile.email, profile.firstName, profile.lastName, mappedRole(provider, profile.groups) ?? provider.defaultRoleId,
      provider.name, profile.identifier, JSON.stringify(profile.authData)]);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // A concurrent first sign-in of the same identity won: use its account. Otherwise the email or the
    // identifier (unique across providers) belongs to someone else.
    const winner = await byIdentity(db, provider.name, profile.identifier);
    if (winner) return winner;
    throw new SsoFlowError('ACCOUNT_NOT_LINKED', `${provider.name}: "${profile.identifier}" can't be registered: its email or identifier belongs to another user`);
  }
  return (await ssoUserById(db, id))!;
}

/** SYNC_USER_INFO: names, email (unless another user has it) and, when a role mapping is configured, the role: the
 * mapped one, else the default role. With a mapping the provider's groups are the authority, so someone removed
 * from a mapped group loses its role on their next sign-in (an admin's manual change is overwritten then). */
async function syncUser(db: Executor, id: string, provider: SsoProviderConfig, profile: ExternalProfile): Promise<void> {
  const email = profile.email && !(await emailOwner(db, profile.email, id)) ? profile.email : null;
  const mapsRoles = Object.keys(provider.roleMapping).length > 0;
  const role = mapsRoles ? mappedRole(provider, profile.groups) ?? provider.defaultRoleId : null;
  await run(db, `update svc_users set first_name = $2, last_name = $3, email = coalesce($4, email),
    role = case when $5::boolean then $6::uuid else role end, auth_data = $7 where id = $1`,
  [id, profile.firstName, profile.lastName, email, mapsRoles, role, JSON.stringify(profile.authData)]);
}

export interface LocalAccount { id: string; password: string | null; provider: string; status: string }

export async function localAccount(ex: Executor, id: string): Promise<LocalAccount | undefined> {
  const [row] = await run<LocalAccount>(ex, 'select id, password, provider, status from svc_users where id = $1', [id]);
  return row;
}

/** Binds an identity to a user (after their password was checked): provider, external_identifier, auth_data.
 * Refused when the identity belongs to another user already. */
export async function linkIdentity(db: Executor, userId: string, provider: SsoProviderConfig, profile: ExternalProfile): Promise<void> {
  await inTransaction(db, async (trx) => {
    const [other] = await run<{ id: string }>(trx, 'select id from svc_users where external_identifier = $1 and id <> $2', [profile.identifier, userId]);
    if (other) throw new SsoFlowError('IDENTITY_ALREADY_LINKED', `${provider.name}: "${profile.identifier}" is bound to another user already`);
    const rows = await run(trx, `update svc_users set provider = $2, external_identifier = $3, auth_data = $4
      where id = $1 and status = 'active' returning id`, [userId, provider.name, profile.identifier, JSON.stringify(profile.authData)]);
    if (rows.length === 0) throw new SsoFlowError('USER_SUSPENDED', `Link to ${provider.name}: user ${userId} is not active`);
  }).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw new SsoFlowError('IDENTITY_ALREADY_LINKED', `${provider.name}: "${profile.identifier}" is bound to another user already`);
    throw err;
  });
}
