/** Roles (svc_roles): CRUD with the role's policies (svc_access rows) read and written as a `policies`
 * list, nested roles through `parent` (cycles refused), protected roles undeletable. Non-admins read the
 * roles they act as (the role and its ancestors), as Directus' app-access permissions allow. */
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError, UnprocessableContentError } from '../errors.ts';
import { createItem, deleteItem, updateItem } from '../items/write/index.ts';
import type { Services } from '../services.ts';
import { canRead, changeAccess, readersWithVirtual, readRecords, requireAdmin, type RecordData } from './system-records.ts';
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

/** Writes the owner's svc_access rows (`owner` is "role" or "user"). */
export async function applyPolicyChange(trx: ServiceContext, owner: 'role' | 'user', id: string, change: PolicyChange): Promise<void> {
  const column = owner === 'role' ? 'role' : '"user"';
  if (change.replace) {
    await run(trx.db, `delete from svc_access where ${column} = $1 and not (policy = any($2::uuid[]))`, [id, change.replace]);
    const existing = new Set((await run<{ policy: string }>(trx.db, `select policy from svc_access where ${column} = $1`, [id])).map((r) => r.policy));
    let sort = existing.size;
    for (const policy of change.replace) {
      if (!existing.has(policy)) await createItem(trx, 'svc_access', { [owner]: id, policy, sort: ++sort });
    }
    return;
  }
  if (change.remove.length > 0) await run(trx.db, `delete from svc_access where ${column} = $1 and id = any($2::uuid[])`, [id, change.remove]);
  for (const policy of change.add) await createItem(trx, 'svc_access', { [owner]: id, policy });
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

export async function createRole(services: Services, ctx: ServiceContext, raw: unknown): Promise<string> {
  requireAdmin(ctx);
  const data = body(raw);
  const change = data.policies === undefined ? null : parsePolicyChange(data.policies);
  delete data.policies;
  delete data.protected; // only the bootstrap creates protected roles
  return changeAccess(services, ctx, async (trx) => {
    const id = String(await createItem(trx, 'svc_roles', data));
    await checkParent(trx, id, data.parent);
    if (change) await applyPolicyChange(trx, 'role', id, change);
    return id;
  });
}

export async function updateRole(services: Services, ctx: ServiceContext, id: string, raw: unknown): Promise<string> {
  requireAdmin(ctx);
  const data = body(raw);
  const change = data.policies === undefined ? null : parsePolicyChange(data.policies);
  delete data.policies;
  delete data.protected;
  if (!isUuid(id)) throw new ForbiddenError();
  return changeAccess(services, ctx, async (trx) => {
    if (Object.keys(data).length > 0) await updateItem(trx, 'svc_roles', id, data);
    else if ((await run(trx.db, 'select 1 from svc_roles where id = $1', [id])).length === 0) throw new ForbiddenError();
    await checkParent(trx, id, data.parent);
    if (change) await applyPolicyChange(trx, 'role', id, change);
    return id;
  });
}

export async function deleteRole(services: Services, ctx: ServiceContext, id: string): Promise<void> {
  requireAdmin(ctx);
  if (!isUuid(id)) throw new ForbiddenError();
  await changeAccess(services, ctx, async (trx) => {
    const [row] = await run<{ protected: boolean }>(trx.db, 'select protected from svc_roles where id = $1 for update', [id]);
    if (!row) throw new ForbiddenError();
    if (row.protected) throw new UnprocessableContentError('Cannot delete a protected role');
    // Users of the role keep their account with no role; child roles lose their parent (FK set null).
    await deleteItem(trx, 'svc_roles', id);
  });
}

/** `policies`: the policy ids linked to each role, as far as the caller may read svc_access. */
async function attachPolicies(ctx: ServiceContext, rows: RecordData[], dropKey: boolean): Promise<void> {
  const ids = rows.map((r) => r.id as string);
  const links = ids.length === 0 || !(await canRead(ctx, 'svc_access')) ? [] : (await readRecords(ctx, 'svc_access', {
    fields: ['role', 'policy'], filter: { role: { _in: ids } }, sort: ['sort', 'id'], limit: -1,
  })).data;
  for (const row of rows) {
    row.policies = links.filter((l) => l.role === row.id).map((l) => l.policy);
    if (dropKey) delete row.id;
  }
}

const readers = readersWithVirtual('svc_roles', 'policies', attachPolicies);

export const listRoles = readers.list;
export const readRole = readers.read;
