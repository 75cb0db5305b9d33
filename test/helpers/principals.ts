/** Creates a role + policy + user with a static token, and permission rows, directly in SQL. */
import { randomUUID } from 'node:crypto';
import { run } from '../../core/db/database.ts';
import type { Services } from '../../core/services.ts';

export interface PermissionSpec {
  collection: string;
  action: 'create' | 'read' | 'update' | 'delete' | 'share';
  fields?: string[] | null;
  permissions?: Record<string, unknown> | null;
  validation?: Record<string, unknown> | null;
  presets?: Record<string, unknown> | null;
}

export async function createPrincipal(services: Services, opts: { token: string; permissions: PermissionSpec[]; appAccess?: boolean }): Promise<{ user: string; role: string; policy: string }> {
  const db = services.database.db;
  const role = randomUUID();
  const policy = randomUUID();
  const user = randomUUID();
  await run(db, 'insert into svc_roles (id, name) values ($1, $2)', [role, `role-${opts.token}`]);
  await run(db, 'insert into svc_policies (id, name, app_access) values ($1, $2, $3)', [policy, `policy-${opts.token}`, opts.appAccess ?? false]);
  await run(db, 'insert into svc_access (id, role, policy) values ($1, $2, $3)', [randomUUID(), role, policy]);
  await run(db, "insert into svc_users (id, email, role, status, token) values ($1, $2, $3, 'active', $4)", [user, `${opts.token}@example.com`, role, opts.token]);
  for (const p of opts.permissions) {
    await run(db, 'insert into svc_permissions (policy, collection, action, fields, permissions, validation, presets) values ($1, $2, $3, $4, $5, $6, $7)', [
      policy, p.collection, p.action, JSON.stringify(p.fields === undefined ? ['*'] : p.fields),
      p.permissions ? JSON.stringify(p.permissions) : null, p.validation ? JSON.stringify(p.validation) : null,
      p.presets ? JSON.stringify(p.presets) : null,
    ]);
  }
  await services.schema.invalidate();
  return { user, role, policy };
}
