/** Roles (svc_roles): CRUD with the role's policies (svc_access rows) read and written as a `policies`
 * list, nested roles through `parent` (cycles refused), protected roles undeletable. Non-admins read the
 * roles they act as (the role and its ancestors), as Directus' app-access permissions allow. */
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError, UnprocessableContentError } from '../errors.ts';
import { createItem, deleteItem, updateItem } from '../items/write/index.ts';
import type { SchemaPort } from '../ports.ts';
import { cascade, changeAccess, requireAdmin, type RecordData } from './system-records.ts';
import { readersWithToMany } from './to-many-reads.ts';
import { isUuid } from '../uuid.ts';


/** What a `policies` value asks for: a full replacement (array form) or Directus' detailed form. */
interface PolicyChange { replace: string[] | null; add: string[]; remove: string[] }

function policyId(entry: unknown): string {
  const raw = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? (entry as RecordData).policy : entry;
  const id = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as RecordData).id : raw;
  if (!isUuid(id)) throw new InvalidPayloadError('Invalid payload. "policies" must list policy ids.', { field: 'policies' });
  return id.toLowerCase();
}

/** Accepts `[uuid...]`, `[{policy: uuid}...]` or `{create: [{policy}], delete: [accessId]}`. */
export function parsePolicyChange(raw: unknown): PolicyChange {
  if (Array.isArray(raw)) return { replace: [...new Set(raw.map(policyId))], add: [], remove: [] };
  if (typeof raw === 'object' && raw !== null) {
    const { create = [], update = [], delete: remove = [], ...rest } = raw as RecordData;
    const unknown = Object.keys(rest);
    if (unknown.length > 0 || !Array.isArray(create) || !Array.isArray(remove) || !Array.isArray(update) || update.length > 0) {
      throw new InvalidPayloadError('Invalid payload. "policies" must be an array or {create, delete}.', { field: 'policies' });
    }
    const ids = remove.map((id) => {
      if (!isUuid(id)) throw new InvalidPayloadError('Invalid payload. "policies.delete" must list access ids.', { field: 'policies' });
      return id;
    });
    return { replace: null, add: create.map(policyId), remove: ids };
  }
  throw new InvalidPayloadError('Invalid payload. "policies" must be an array.', { field: 'policies' });
}

/** The change as a write of the roles' `policies` alias (the role's svc_access rows) in Directus' detailed
 * form, so the items write service records every access row it creates or deletes as a nested write of the
 * role (activity, and revisions linked to the role's). Null when it changes nothing. `role` is null for a
 * role being created. A replacement keeps the rows of policies still listed and appends the new ones. */
async function accessWrite(trx: ServiceContext, role: string | null, change: PolicyChange): Promise<{ create: RecordData[]; delete: string[] } | null> {
  let create: RecordData[];
  let remove: string[];
  if (change.replace) {
    const existing = role === null ? [] : await run<{ id: string; policy: string }>(trx.db,
      'select id, policy from svc_access where role = $1 order by sort nulls last, id', [role]);
    const listed = new Set(change.replace);
    const kept = existing.filter((r) => listed.has(r.policy));
    const linked = new Set(kept.map((r) => r.policy));
    let sort = kept.length;
    create = change.replace.filter((policy) => !linked.has(policy)).map((policy) => ({ policy, sort: ++sort }));
    remove = existing.filter((r) => !listed.has(r.policy)).map((r) => r.id);
  } else {
    create = change.add.map((policy) => ({ policy }));
    remove = change.remove;
  }
  return create.length === 0 && remove.length === 0 ? null : { create, delete: remove };
}

function body(raw: unknown): RecordData {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  return { ...(raw as RecordData) };
}

/** A parent chain that reaches the role itself would make role resolution loop: 400. */
async function checkParent(trx: ServiceContext, id: string, parent: unknown): Promise<void> {
  if (parent === null || parent === undefined) return;
  if (!isUuid(parent)) return; // the write's own validation reports it
  const [row] = await run<{ cycle: boolean }>(trx.db, `
    with recursive up(id, parent, depth) as (
      select id, parent, 0 from svc_roles where id = $1
      union all select r.id, r.parent, up.depth + 1 from svc_roles r join up on r.id = up.parent where up.depth < 64
    ) select coalesce(bool_or(id = $2), false) or $1 = $2 as cycle from up`, [parent, id]);
  if (row.cycle) throw new InvalidPayloadError('Invalid payload. A role cannot be its own ancestor.', { collection: 'svc_roles', field: 'parent' });
}

/** A role created inside the caller's transaction (`trx`: an admin's context bound to it); createRole wraps it in
 * its own transaction and bumps the schema version after commit. */
export async function addRole(trx: ServiceContext, raw: unknown): Promise<string> {
  const data = body(raw);
  const change = data.policies === undefined ? null : parsePolicyChange(data.policies);
  delete data.policies;
  delete data.protected; // only the bootstrap creates protected roles
  const access = change ? await accessWrite(trx, null, change) : null;
  const id = String(await createItem(trx, 'svc_roles', access ? { ...data, policies: access } : data));
  await checkParent(trx, id, data.parent);
  return id;
}

export async function createRole(services: SchemaPort, ctx: ServiceContext, raw: unknown): Promise<string> {
  requireAdmin(ctx);
  body(raw);
  if (typeof raw === 'object' && raw !== null && (raw as RecordData).policies !== undefined) parsePolicyChange((raw as RecordData).policies);
  return changeAccess(services, ctx, (trx) => addRole(trx, raw));
}

/** A role changed inside the caller's transaction (see addRole). */
export async function changeRole(trx: ServiceContext, id: string, raw: unknown): Promise<string> {
  const data = body(raw);
  const change = data.policies === undefined ? null : parsePolicyChange(data.policies);
  delete data.policies;
  delete data.protected;
  if (!isUuid(id)) throw new ForbiddenError();
  const access = change ? await accessWrite(trx, id, change) : null;
  if (access) data.policies = access;
  if (Object.keys(data).length > 0) await updateItem(trx, 'svc_roles', id, data);
  else if ((await run(trx.db, 'select 1 from svc_roles where id = $1', [id])).length === 0) throw new ForbiddenError();
  await checkParent(trx, id, data.parent);
  return id;
}

export async function updateRole(services: SchemaPort, ctx: ServiceContext, id: string, raw: unknown): Promise<string> {
  requireAdmin(ctx);
  const data = body(raw);
  if (data.policies !== undefined) parsePolicyChange(data.policies);
  if (!isUuid(id)) throw new ForbiddenError();
  return changeAccess(services, ctx, (trx) => changeRole(trx, id, raw));
}

/** A role deleted inside the caller's transaction (see deleteRole). */
export async function removeRole(trx: ServiceContext, id: string): Promise<void> {
  if (!isUuid(id)) throw new ForbiddenError();
  const [row] = await run<{ protected: boolean }>(trx.db, 'select protected from svc_roles where id = $1 for update', [id]);
  if (!row) throw new ForbiddenError();
  if (row.protected) throw new UnprocessableContentError('Cannot delete a protected role');
  await cascade(trx, 'svc_access', 'role', id, null);
  await cascade(trx, 'svc_users', 'role', id, { role: null });
  await cascade(trx, 'svc_roles', 'parent', id, { parent: null });
  await cascade(trx, 'svc_shares', 'role', id, null);
  await cascade(trx, 'svc_settings', 'public_registration_role', id, { public_registration_role: null });
  await deleteItem(trx, 'svc_roles', id);
}

/** As Directus: the role's access rows are revoked, its users and child roles let go of it, then the role is
 * deleted; so are the shares acting as it, and the registration setting forgets it. Each change is recorded
 * in activity (the foreign keys would otherwise cascade silently). Users keep their account with no role. */
export async function deleteRole(services: SchemaPort, ctx: ServiceContext, id: string): Promise<void> {
  requireAdmin(ctx);
  if (!isUuid(id)) throw new ForbiddenError();
  await changeAccess(services, ctx, (trx) => removeRole(trx, id));
}

/** `policies`: the policy ids linked to each role (its svc_access rows in sort order), as far as the caller
 * may read svc_access; `policies.<field>` reads the access rows themselves. */
const readers = readersWithToMany('svc_roles', { alias: 'policies', related: 'svc_access', bare: 'policy', sort: ['sort', 'id'] });

export const listRoles = readers.list;
export const readRole = readers.read;
