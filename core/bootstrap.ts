/** First start: the protected Administrator and Public roles, their policies, settings id=1 and a first admin. */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from './config.ts';
import { inTransaction, run } from './db/database.ts';
import { generatePassword, hashPassword } from './auth/passwords.ts';

export interface BootstrapResult {
  created: boolean;
  adminEmail?: string;
  /** Set only when the password was generated (to print once). */
  generatedPassword?: string;
}

export async function bootstrap(db: Kysely<any>, config: Config): Promise<BootstrapResult> {
  return inTransaction(db, async (trx) => {
    await run(trx, "select pg_advisory_xact_lock(hashtext('svc_bootstrap'))");
    const existing = await run(trx, 'select id from svc_settings where id = 1');
    if (existing.length > 0) return { created: false };

    const adminRole = randomUUID();
    const publicRole = randomUUID();
    const adminPolicy = randomUUID();
    const publicPolicy = randomUUID();
    await run(trx, `insert into svc_roles (id, name, icon, description, admin_access, app_access, protected)
      values ($1, 'Administrator', 'verified', 'Initial administrative role with unrestricted App/API access.', true, true, true),
             ($2, 'Public', 'public', 'Controls what API data is publicly available without authenticating.', false, false, true)`,
      [adminRole, publicRole]);
    await run(trx, `insert into svc_policies (id, name, icon, description, admin_access, app_access)
      values ($1, 'Administrator', 'verified', 'Full access', true, true),
             ($2, '$t:public_label', 'public', '$t:public_description', false, false)`,
      [adminPolicy, publicPolicy]);
    await run(trx, `insert into svc_access (id, role, policy, sort) values ($1, $2, $3, 1), ($4, $5, $6, 1)`,
      [randomUUID(), adminRole, adminPolicy, randomUUID(), publicRole, publicPolicy]);
    await run(trx, 'insert into svc_settings (id, project_name, public_role) values (1, $1, $2)', [config.projectName, publicRole]);

    const email = config.adminEmail ?? 'admin@example.com';
    const generated = config.adminPassword ? undefined : generatePassword();
    const password = await hashPassword(config.adminPassword ?? generated!);
    await run(trx, `insert into svc_users (id, email, password, role, status, first_name, last_name)
      values ($1, $2, $3, $4, 'active', 'Admin', 'User')`, [randomUUID(), email.toLowerCase(), password, adminRole]);
    return { created: true, adminEmail: email, generatedPassword: generated };
  });
}
