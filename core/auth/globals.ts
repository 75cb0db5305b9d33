/** GET /policies/me/globals (Directus 11): the caller's flags merged over its policies: whether it may use the app
 * panel, whether it is an administrator, and whether two-factor is enforced for it. The Studio reads this once per
 * sign-in to decide what to offer. */
import type { Accountability } from '../access/accountability.ts';
import { run, type Executor } from '../db/database.ts';
import { InvalidCredentialsError } from '../errors.ts';
import { TFA_ENFORCED_SQL } from './tfa-setup.ts';

export interface PolicyGlobals {
  app_access: boolean;
  admin_access: boolean;
  enforce_tfa: boolean;
}

export async function policyGlobals(db: Executor, accountability: Accountability): Promise<PolicyGlobals> {
  if (!accountability.user) throw new InvalidCredentialsError();
  const [row] = await run<{ enforce_tfa: boolean }>(db, `select ${TFA_ENFORCED_SQL} as enforce_tfa
    from svc_users u left join svc_roles r on r.id = u.role where u.id = $1`, [accountability.user]);
  return { app_access: accountability.app || accountability.admin, admin_access: accountability.admin, enforce_tfa: row?.enforce_tfa === true };
}
