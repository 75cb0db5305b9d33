/** Sections `roles`, `policies`, `access`, `permissions` and `app_permissions`: written through core/admin's
 * in-transaction record services (addRole, changePolicy, removeAccess ...), so every write is validated and recorded
 * in activity as the /roles, /policies ... endpoints do. Roles and policies are matched by name, access rows by role
 * name (or user email) and policy name, permissions by policy name, collection and action. */
import { addAccess, removeAccess } from '../../../admin/access-records.ts';
import { addAppPermission, removeAppPermission } from '../../../admin/app-permissions.ts';
import { addPermission, changePermission, removePermission } from '../../../admin/permission-records.ts';
import { addPolicy, changePolicy, removePolicy } from '../../../admin/policies.ts';
import { addRole, changeRole, removeRole } from '../../../admin/roles.ts';
import type { ServiceContext } from '../../../context.ts';
import { InvalidPayloadError } from '../../../errors.ts';
import { allRows, byText, changed, emailsOf, names, need, onlyFields, pick, requireUniqueNames, userIdOf } from './refs.ts';
import type { ConfigSection, Row } from './types.ts';

const ROLE_FIELDS = ['name', 'icon', 'description', 'parent', 'admin_access', 'tech_access', 'app_access', 'impersonate_access', 'enforce_tfa', 'service_account'] as const;

export const roles: ConfigSection = {
  name: 'roles',
  keyFields: ['name'],
  async read(ctx) {
    const rows = await allRows(ctx, 'svc_roles', ['id', ...ROLE_FIELDS], ['name', 'id']);
    requireUniqueNames(rows, 'roles');
    const byId = new Map(rows.map((r) => [String(r.id), String(r.name)]));
    return rows.map((r) => ({ ...pick(r, ROLE_FIELDS), parent: r.parent ? byId.get(String(r.parent)) ?? null : null }));
  },
  check(row, where) {
    onlyFields(row, ROLE_FIELDS, where);
    need(row, 'name', where, 'string');
    need(row, 'parent', where, 'nullable-string');
    for (const f of ['admin_access', 'tech_access', 'app_access', 'impersonate_access', 'enforce_tfa', 'service_account']) need(row, f, where, 'boolean');
  },
  createOrder(rows) {
    // A parent before its children, so each child's parent is there to name.
    const byName = new Map(rows.map((r) => [String(r.name), r]));
    const out: Row[] = [];
    const placed = new Set<string>();
    const place = (r: Row, depth: number): void => {
      const name = String(r.name);
      if (placed.has(name) || depth > 64) return;
      const parent = typeof r.parent === 'string' ? byName.get(r.parent) : undefined;
      if (parent && parent !== r) place(parent, depth + 1);
      placed.add(name);
      out.push(r);
    };
    for (const r of rows) place(r, 0);
    return out;
  },
  async create(ctx, row) {
    const ids = await names(ctx, 'svc_roles');
    await addRole(ctx, { ...row, parent: ids.idOf(row.parent, `Role "${String(row.name)}".parent`) });
  },
  async update(ctx, from, to) {
    const ids = await names(ctx, 'svc_roles');
    const patch = pick(to, changed(from, to, ROLE_FIELDS));
    if ('parent' in patch) patch.parent = ids.idOf(to.parent, `Role "${String(to.name)}".parent`);
    await changeRole(ctx, ids.idOf(from.name, 'Role')!, patch);
  },
  async remove(ctx, row) {
    await removeRole(ctx, (await names(ctx, 'svc_roles')).idOf(row.name, 'Role')!);
  },
  describeRemoval: (row) => `Deletes the role "${String(row.name)}" (its users keep their accounts, without a role).`,
};

const POLICY_FIELDS = ['name', 'icon', 'description', 'ip_access', 'enforce_tfa', 'admin_access', 'app_access'] as const;

export const policies: ConfigSection = {
  name: 'policies',
  keyFields: ['name'],
  async read(ctx) {
    const rows = await allRows(ctx, 'svc_policies', [...POLICY_FIELDS], ['name', 'id']);
    requireUniqueNames(rows, 'policies');
    return rows.map((r) => pick(r, POLICY_FIELDS));
  },
  check(row, where) {
    onlyFields(row, POLICY_FIELDS, where);
    need(row, 'name', where, 'string');
    for (const f of ['enforce_tfa', 'admin_access', 'app_access']) need(row, f, where, 'boolean');
  },
  async create(ctx, row) {
    await addPolicy(ctx, row);
  },
  async update(ctx, from, to) {
    await changePolicy(ctx, (await names(ctx, 'svc_policies')).idOf(from.name, 'Policy')!, pick(to, changed(from, to, POLICY_FIELDS)));
  },
  async remove(ctx, row) {
    await removePolicy(ctx, (await names(ctx, 'svc_policies')).idOf(row.name, 'Policy')!);
  },
  describeRemoval: (row) => `Deletes the policy "${String(row.name)}" with its permissions and the access it gives.`,
};

/** svc_access rows with their ids, keyed as the snapshot keys them. */
async function accessRows(ctx: ServiceContext): Promise<{ id: string; row: Row }[]> {
  const rows = await allRows(ctx, 'svc_access', ['id', 'role', 'user', 'policy'], ['id']);
  const [roleNames, policyNames, emails] = await Promise.all([names(ctx, 'svc_roles'), names(ctx, 'svc_policies'), emailsOf(ctx, rows.map((r) => r.user))]);
  return rows.map((r) => ({
    id: String(r.id),
    row: { policy: policyNames.nameOf(r.policy), role: roleNames.nameOf(r.role), user: r.user ? emails.get(String(r.user)) ?? null : null },
  }));
}

const sameAccess = (a: Row, b: Row): boolean => a.policy === b.policy && (a.role ?? null) === (b.role ?? null) && (a.user ?? null) === (b.user ?? null);

export const access: ConfigSection = {
  name: 'access',
  keyFields: ['policy', 'role', 'user'],
  async read(ctx) {
    const seen: Row[] = [];
    for (const { row } of await accessRows(ctx)) {
      // A user without an email can't be named in a snapshot; the same pair twice is one grant.
      if (row.user === null && row.role === null) continue;
      if (!seen.some((s) => sameAccess(s, row))) seen.push(row);
    }
    return seen.sort((a, b) => byText(String(a.policy), String(b.policy)) || byText(String(a.role ?? ''), String(b.role ?? '')) || byText(String(a.user ?? ''), String(b.user ?? '')));
  },
  check(row, where) {
    onlyFields(row, ['policy', 'role', 'user'], where);
    need(row, 'policy', where, 'string');
    need(row, 'role', where, 'nullable-string');
    need(row, 'user', where, 'nullable-string');
    if ((row.role ?? null) === null === ((row.user ?? null) === null)) throw new InvalidPayloadError(`${where} needs exactly one of "role" (a role name) and "user" (a user email).`);
  },
  async create(ctx, row) {
    const what = `Access of policy "${String(row.policy)}"`;
    const policy = (await names(ctx, 'svc_policies')).idOf(row.policy, what);
    const role = (await names(ctx, 'svc_roles')).idOf(row.role, what);
    await addAccess(ctx, { policy, role, user: await userIdOf(ctx, row.user, what) });
  },
  async update() {
    // Every property of an access row is part of its key: a change is a removal and a creation.
  },
  async remove(ctx, row) {
    for (const r of await accessRows(ctx)) if (sameAccess(r.row, row)) await removeAccess(ctx, r.id);
  },
  describeRemoval: (row) => `Takes the policy "${String(row.policy)}" from ${row.role ? `the role "${String(row.role)}"` : `the user ${String(row.user)}`}.`,
};

const PERMISSION_FIELDS = ['policy', 'collection', 'action', 'fields', 'permissions', 'validation', 'presets'] as const;

async function permissionRows(ctx: ServiceContext): Promise<{ id: number; row: Row }[]> {
  const rows = await allRows(ctx, 'svc_permissions', ['id', ...PERMISSION_FIELDS], ['collection', 'action', 'id']);
  const policyNames = await names(ctx, 'svc_policies');
  return rows.map((r) => ({ id: Number(r.id), row: { ...pick(r, PERMISSION_FIELDS), policy: policyNames.nameOf(r.policy) } }));
}

const permissionLabel = (r: Row): string => `${String(r.action)} on "${String(r.collection)}" of the policy "${String(r.policy)}"`;

export const permissions: ConfigSection = {
  name: 'permissions',
  keyFields: ['policy', 'collection', 'action'],
  async read(ctx) {
    const rows = (await permissionRows(ctx)).map((r) => r.row);
    const seen = new Set<string>();
    for (const r of rows) {
      const k = `${String(r.policy)}\u0000${String(r.collection)}\u0000${String(r.action)}`;
      if (seen.has(k)) throw new InvalidPayloadError(`The permission ${permissionLabel(r)} is recorded twice: merge them so permissions can be matched by policy, collection and action.`);
      seen.add(k);
    }
    return rows.sort((a, b) => byText(String(a.policy), String(b.policy)) || byText(String(a.collection), String(b.collection)) || byText(String(a.action), String(b.action)));
  },
  check(row, where) {
    onlyFields(row, PERMISSION_FIELDS, where);
    for (const f of ['policy', 'collection', 'action']) need(row, f, where, 'string');
    for (const f of ['permissions', 'validation', 'presets']) need(row, f, where, 'nullable-object');
  },
  async create(ctx, row) {
    await addPermission(ctx, { ...row, policy: (await names(ctx, 'svc_policies')).idOf(row.policy, `The permission ${permissionLabel(row)}`) });
  },
  async update(ctx, from, to) {
    const found = (await permissionRows(ctx)).find((r) => r.row.policy === from.policy && r.row.collection === from.collection && r.row.action === from.action);
    if (found) await changePermission(ctx, found.id, pick(to, changed(from, to, ['fields', 'permissions', 'validation', 'presets'])));
  },
  async remove(ctx, row) {
    for (const r of await permissionRows(ctx)) {
      if (r.row.policy === row.policy && r.row.collection === row.collection && r.row.action === row.action) await removePermission(ctx, r.id);
    }
  },
  describeRemoval: (row) => `Revokes the permission to ${permissionLabel(row)}.`,
};

async function appPermissionRows(ctx: ServiceContext): Promise<{ id: number; row: Row }[]> {
  const rows = await allRows(ctx, 'svc_app_permissions', ['id', 'policy', 'module', 'action'], ['module', 'action', 'id']);
  const policyNames = await names(ctx, 'svc_policies');
  return rows.map((r) => ({ id: Number(r.id), row: { policy: policyNames.nameOf(r.policy), module: r.module, action: r.action } }));
}

export const appPermissions: ConfigSection = {
  name: 'app_permissions',
  keyFields: ['policy', 'module', 'action'],
  async read(ctx) {
    return (await appPermissionRows(ctx)).map((r) => r.row)
      .sort((a, b) => byText(String(a.policy), String(b.policy)) || byText(String(a.module), String(b.module)) || byText(String(a.action), String(b.action)));
  },
  check(row, where) {
    onlyFields(row, ['policy', 'module', 'action'], where);
    for (const f of ['policy', 'module', 'action']) need(row, f, where, 'string');
  },
  async create(ctx, row) {
    const what = `The app permission ${String(row.module)}:${String(row.action)}`;
    await addAppPermission(ctx, { ...row, policy: (await names(ctx, 'svc_policies')).idOf(row.policy, what) });
  },
  async update() {},
  async remove(ctx, row) {
    for (const r of await appPermissionRows(ctx)) {
      if (r.row.policy === row.policy && r.row.module === row.module && r.row.action === row.action) await removeAppPermission(ctx, r.id);
    }
  },
  describeRemoval: (row) => `Revokes the app permission ${String(row.module)}:${String(row.action)} of the policy "${String(row.policy)}".`,
};
