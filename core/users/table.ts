/** The one owner of svc_users' SQL outside the generic items services (which write users under the caller's
 * permissions, core/users/service.ts): the account flows (invitation, registration, password reset, two-factor,
 * login), the lookups other modules make of a user (access, auth, workflow, notify) and the sets of active
 * admins call these functions. Simple statements are built with Kysely over the typed table (core/db/tables.ts);
 * joins with roles and policies stay hand-written. None checks a permission: callers do. It sits low in the
 * layer order (test/architecture/dependencies.test.ts) and imports only core/db. */
import { sql, type ExpressionBuilder } from 'kysely';
import { run, type Executor } from '../db/database.ts';
import { TABLE_COLUMNS, tables, type SystemTables } from '../db/tables.ts';

const COLUMNS = new Set<string>(TABLE_COLUMNS.svc_users);

/** `lower(email) = lower(value)`: the expression index svc_users_email_lower_idx serves it. */
function emailIs(email: string) {
  return (eb: ExpressionBuilder<SystemTables, 'svc_users'>) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)]));
}

// ---- Writes of the account flows --------------------------------------------------------------------------

/** An invited account (no password yet); nothing when the address is taken meanwhile (a concurrent invitation
 * or sign-up wins). */
export async function insertInvitedUser(ex: Executor, id: string, email: string, role: string | null): Promise<void> {
  await tables(ex).insertInto('svc_users')
    .values({ id, email, role, status: 'invited' })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** A self-registered account (POST /users/register); nothing when the address is taken meanwhile. */
export async function insertRegisteredUser(ex: Executor, user: {
  id: string; email: string; password: string; role: string | null; status: 'active' | 'unverified';
  first_name: string | null; last_name: string | null;
}): Promise<void> {
  await tables(ex).insertInto('svc_users')
    .values({ ...user, provider: 'default' })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** An invitation accepted: the chosen password, active. Only while the account is still invited. */
export async function activateInvitedUser(ex: Executor, id: string, passwordHash: string): Promise<void> {
  await tables(ex).updateTable('svc_users')
    .set({ password: passwordHash, status: 'active', require_password_change: false })
    .where('id', '=', id).where('status', '=', 'invited')
    .execute();
}

/** A registration verified: the unverified account of `email` becomes active. False when there is none. */
export async function activateUnverifiedUser(ex: Executor, email: string): Promise<boolean> {
  const rows = await tables(ex).updateTable('svc_users')
    .set({ status: 'active' })
    .where(emailIs(email)).where('status', '=', 'unverified')
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** A password reset: the new hash, only if the password is still `previous` (a token is for one password).
 * False when it changed meanwhile. */
export async function replacePassword(ex: Executor, id: string, passwordHash: string, previous: string | null): Promise<boolean> {
  const rows = await tables(ex).updateTable('svc_users')
    .set({ password: passwordHash, require_password_change: false })
    .where('id', '=', id).where('password', 'is not distinct from', previous)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** Two-factor on with `secret`. With `onlyIfUnset`, only when the user has no secret yet (two concurrent enables
 * never overwrite each other's); false then when one was set. */
export async function enableUserTfa(ex: Executor, id: string, secret: string, onlyIfUnset: boolean): Promise<boolean> {
  let update = tables(ex).updateTable('svc_users').set({ tfa_secret: secret, tfa_enabled: true }).where('id', '=', id);
  if (onlyIfUnset) update = update.where('tfa_secret', 'is', null);
  const rows = await update.returning('id').execute();
  return rows.length > 0;
}

/** Two-factor off. The user's id as stored (canonical case), or null when there is no such user. */
export async function disableUserTfa(ex: Executor, id: string): Promise<string | null> {
  const row = await tables(ex).updateTable('svc_users')
    .set({ tfa_secret: null, tfa_enabled: false })
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

/** A login: last_access is now. */
export async function stampLastAccess(ex: Executor, id: string): Promise<void> {
  await tables(ex).updateTable('svc_users').set({ last_access: sql<Date>`now()` }).where('id', '=', id).execute();
}

/** The page the user last had open in the Studio (PATCH /users/me/track/page): no activity, no revision. */
export async function trackLastPage(ex: Executor, id: string, page: string): Promise<void> {
  await tables(ex).updateTable('svc_users').set({ last_page: page }).where('id', '=', id).execute();
}

// ---- Lookups ----------------------------------------------------------------------------------------------

export interface UserByEmail { id: string; email: string; status: string; password: string | null; provider: string }

/** The account of `email`, matched case-insensitively with an exact match first (as login). */
export async function userByEmail(ex: Executor, email: string): Promise<UserByEmail | undefined> {
  const [row] = await run<UserByEmail>(ex, `select id, email, status, password, provider from svc_users
    where lower(email) = lower($1) order by (email = $1) desc limit 1`, [email]);
  return row;
}

/** Whether another user than `exclude` has one of `lowerEmails` (lower-cased) as address. */
export async function emailTaken(ex: Executor, lowerEmails: readonly string[], exclude: readonly string[]): Promise<boolean> {
  const row = await tables(ex).selectFrom('svc_users').select(sql<number>`1`.as('one'))
    .where(sql<boolean>`lower(email) = any(${lowerEmails}::text[])`)
    .where(sql<boolean>`not (id = any(${exclude}::uuid[]))`)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface UserCredentials { id: string; password: string | null; tfa_secret: string | null; tfa_enabled: boolean }

/** What proves a user holds the account: password hash and two-factor secret. */
export async function selectCredentials(ex: Executor, id: string): Promise<UserCredentials | undefined> {
  return tables(ex).selectFrom('svc_users').select(['id', 'password', 'tfa_secret', 'tfa_enabled']).where('id', '=', id).executeTakeFirst();
}

/** The fields whose change ends a user's sessions, one comparable JSON text per user (core/users/session-fields.ts). */
export async function selectSessionFieldStates(ex: Executor, ids: readonly string[]): Promise<{ id: string; state: string }[]> {
  return tables(ex).selectFrom('svc_users')
    .select(['id', sql<string>`json_build_array(password, status, role, tfa_secret, tfa_enabled)::text`.as('state')])
    .where('id', '=', sql<string>`any(${ids}::uuid[])`)
    .execute();
}

/** Columns of one user (names the caller chose from a fixed list; anything else is a programming error). */
export async function selectUserColumns(ex: Executor, id: string, columns: readonly string[]): Promise<Record<string, unknown> | undefined> {
  for (const c of columns) if (!COLUMNS.has(c)) throw new Error(`svc_users has no column "${c}".`);
  const list = columns.map((c) => `"${c}"`).join(', ');
  const [row] = await run<Record<string, unknown>>(ex, `select ${list} from svc_users where id = $1`, [id]);
  return row;
}

/** A user's address, or null (no such user, or none set). */
export async function selectUserEmail(ex: Executor, id: string): Promise<string | null> {
  const row = await tables(ex).selectFrom('svc_users').select('email').where('id', '=', id).executeTakeFirst();
  return row?.email ?? null;
}

/** A user's address and the project's name (svc_settings), for an authenticator's label. */
export async function selectEmailAndProjectName(ex: Executor, id: string): Promise<{ email: string | null; project_name: string | null } | undefined> {
  const [row] = await run<{ email: string | null; project_name: string | null }>(ex,
    'select u.email, (select project_name from svc_settings limit 1) as project_name from svc_users u where u.id = $1', [id]);
  return row;
}

/** Whether the user's role enforces two-factor (svc_roles.enforce_tfa). */
export async function roleEnforcesTfa(ex: Executor, id: string): Promise<boolean> {
  const [row] = await run(ex, 'select 1 from svc_users u join svc_roles r on r.id = u.role where u.id = $1 and r.enforce_tfa', [id]);
  return row !== undefined;
}

/** A user as the permission engine sees one: its role and status. */
export interface UserPrincipal { id: string; role: string | null; status: string }

/** The user `id` (any status), or undefined. */
export async function selectPrincipal(ex: Executor, id: string): Promise<UserPrincipal | undefined> {
  return tables(ex).selectFrom('svc_users').select(['id', 'role', 'status']).where('id', '=', id).executeTakeFirst();
}

/** The active user owning the static token `token`, or undefined. */
export async function selectActivePrincipalByToken(ex: Executor, token: string): Promise<UserPrincipal | undefined> {
  return tables(ex).selectFrom('svc_users').select(['id', 'role', 'status'])
    .where('token', '=', token).where('status', '=', 'active')
    .executeTakeFirst();
}

/** Whether a user `id` exists (any status). */
export async function userExists(ex: Executor, id: string): Promise<boolean> {
  const row = await tables(ex).selectFrom('svc_users').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

/** The user `id` as stored when it is active, else null. */
export async function activeUserId(ex: Executor, id: string): Promise<string | null> {
  const row = await tables(ex).selectFrom('svc_users').select('id').where('id', '=', id).where('status', '=', 'active').executeTakeFirst();
  return row?.id ?? null;
}

/** The active users of role `role`, by id. */
export async function activeUsersOfRole(ex: Executor, role: string): Promise<string[]> {
  const rows = await tables(ex).selectFrom('svc_users').select('id')
    .where('role', '=', role).where('status', '=', 'active')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Id and address of the users among `ids` (uuids, checked by the caller). */
export async function selectEmailsOf(ex: Executor, ids: readonly string[]): Promise<{ id: string; email: string | null }[]> {
  return tables(ex).selectFrom('svc_users').select(['id', 'email']).where('id', '=', sql<string>`any(${ids}::uuid[])`).execute();
}

/** Id and address of the users whose address is one of `lowerEmails` (lower-cased), case-insensitively. */
export async function selectUsersByEmails(ex: Executor, lowerEmails: readonly string[]): Promise<{ id: string; email: string }[]> {
  return tables(ex).selectFrom('svc_users').select(['id', 'email'])
    .where(sql<boolean>`lower(email) = any(${lowerEmails}::text[])`)
    .$narrowType<{ email: string }>()
    .execute();
}

/** Active users with admin rights: by their role (admin or tech access) or by an admin policy attached to their
 * role or to them. The last-admin guard counts them; a lockout notifies them. */
const ACTIVE_ADMINS = `from svc_users u left join svc_roles r on r.id = u.role
  where u.status = 'active' and (coalesce(r.admin_access, false) or coalesce(r.tech_access, false) or exists (
    select 1 from svc_access a join svc_policies p on p.id = a.policy
    where p.admin_access and (a.role = u.role or a."user" = u.id)))`;

export async function countActiveAdmins(ex: Executor): Promise<number> {
  const [row] = await run<{ n: number }>(ex, `select count(*)::int as n ${ACTIVE_ADMINS}`);
  return Number(row.n);
}

export async function activeAdminIds(ex: Executor): Promise<string[]> {
  const rows = await run<{ id: string }>(ex, `select u.id ${ACTIVE_ADMINS}`);
  return rows.map((r) => r.id);
}

/** Active users with admin access through their role or an admin policy of their role or their own, by id
 * (whom a workflow escalation falls back to). Unlike activeAdminIds, a role's tech_access does not count. */
export async function activeAdminAccessIds(ex: Executor): Promise<string[]> {
  const rows = await run<{ id: string }>(ex, `select u.id from svc_users u
    left join svc_roles r on r.id = u.role
    where u.status = 'active' and (r.admin_access or exists (
      select 1 from svc_access a join svc_policies p on p.id = a.policy
      where p.admin_access and (a.role = u.role or a."user" = u.id)))
    order by u.id`);
  return rows.map((r) => r.id);
}

/** Ids of the users whose id is among `ids` (uuids, checked by the caller) or whose address is among `lowerEmails`
 * (lower-cased), in one statement. */
export async function selectUserIdsByIdOrEmail(ex: Executor, ids: readonly string[], lowerEmails: readonly string[]): Promise<string[]> {
  const rows = await tables(ex).selectFrom('svc_users').select('id')
    .where(sql<boolean>`id = any(${ids}::uuid[]) or lower(email) = any(${lowerEmails}::text[])`)
    .execute();
  return rows.map((r) => r.id);
}
