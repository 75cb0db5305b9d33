/** Who works on a step: the users a step assigns (role: its active users; user: that user; dynamic: the user id
 * held by a field of the item merged with the delta), and the administrators an escalation falls back to. */
import { run, type Executor } from '../db/database.ts';
import { isUuid } from '../uuid.ts';
import { activeAdminAccessIds, activeUserId, activeUsersOfRole } from '../users/table.ts';
import type { Subject } from './subject.ts';
import type { StepRow } from './types.ts';

export async function usersOfRole(db: Executor, role: string): Promise<string[]> {
  return activeUsersOfRole(db, role);
}

async function activeUser(db: Executor, id: unknown): Promise<string[]> {
  if (!isUuid(id)) return [];
  const user = await activeUserId(db, id);
  return user === null ? [] : [user];
}

/** Active users with admin access through their role (or its policies) or a policy attached to them. */
export async function adminUsers(db: Executor): Promise<string[]> {
  return activeAdminAccessIds(db);
}

export async function stepAssignees(db: Executor, step: Pick<StepRow, 'assign_type' | 'assign_value'>, subject: Subject): Promise<string[]> {
  const value = step.assign_value;
  if (!value) return [];
  switch (step.assign_type) {
    case 'role': return isUuid(value) ? usersOfRole(db, value) : [];
    case 'user': return activeUser(db, value);
    case 'dynamic': return activeUser(db, subject[value]);
    default: return [];
  }
}

/** An escalation's new assignees: options.escalate_to {user} or {role}, else the administrators. */
export async function escalationTargets(db: Executor, step: StepRow): Promise<string[]> {
  const target = step.options?.escalate_to as { user?: unknown; role?: unknown } | undefined;
  if (target?.user) {
    const users = await activeUser(db, target.user);
    if (users.length) return users;
  } else if (isUuid(target?.role)) {
    const users = await usersOfRole(db, target.role);
    if (users.length) return users;
  }
  return adminUsers(db);
}

/** Whether a user can act on tasks: workflow:participate through a policy of their role chain or their own, or
 * admin access (as core/access/resolve.ts resolves it at request time). */
export async function canParticipate(db: Executor, userId: string): Promise<boolean> {
  const [row] = await run<{ ok: boolean }>(db, `with recursive chain(id, parent, depth, path) as (
      select r.id, r.parent, 0, array[r.id] from svc_roles r join svc_users u on u.role = r.id where u.id = $1
      union all
      select r.id, r.parent, chain.depth + 1, chain.path || r.id from svc_roles r join chain on r.id = chain.parent
      where not r.id = any(chain.path) and chain.depth < 64
    ),
    pols as (select p.id, p.admin_access from svc_access a join svc_policies p on p.id = a.policy
      where a.role in (select id from chain) or a."user" = $1)
    select exists (select 1 from svc_roles r join chain c on c.id = r.id where r.admin_access or r.tech_access)
      or exists (select 1 from pols where admin_access)
      or exists (select 1 from svc_app_permissions ap where ap.policy in (select id from pols)
        and ap.module = 'workflow' and ap.action = 'participate') as ok`, [userId]);
  return row?.ok === true;
}
