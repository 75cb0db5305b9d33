/** Policies (svc_policies): CRUD, ip_access validated as CIDR ranges, permissions nested on read. Deleting
 * a policy cascades its permissions, app permissions and access rows (foreign keys). Non-admins read the
 * policies that apply to them. */
import { isIPv4, isIPv6 } from 'node:net';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { createItem, deleteItem, updateItem } from '../items/write/index.ts';
import type { Services } from '../services.ts';
import { createPermissionIn } from './permission-records.ts';
import { canRead, changeAccess, readersWithVirtual, readRecords, requireAdmin, type RecordData } from './system-records.ts';
import { isUuid } from '../uuid.ts';


function validCidr(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  if (extra !== undefined) return false;
  const max = isIPv4(address) ? 32 : isIPv6(address) ? 128 : -1;
  if (max < 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= max);
}

/** ip_access as an array of addresses / CIDR ranges (a comma list, as Directus' csv field, is accepted);
 * null or empty = no limit. Anything else is 400. */
export function normalizeIpAccess(raw: unknown): string[] | null {
  if (raw === null) return null;
  const list = typeof raw === 'string' ? raw.split(',') : raw;
  if (!Array.isArray(list)) throw new InvalidPayloadError('Invalid payload. "ip_access" must be an array of CIDR ranges.', { collection: 'svc_policies', field: 'ip_access' });
  const entries = list.map((v) => (typeof v === 'string' ? v.trim() : v)).filter((v) => v !== '');
  for (const entry of entries) {
    if (typeof entry !== 'string' || !validCidr(entry)) {
      throw new InvalidPayloadError(`Invalid payload. "${String(entry)}" is not an IP address or CIDR range.`, { collection: 'svc_policies', field: 'ip_access' });
    }
  }
  return entries.length > 0 ? entries as string[] : null;
}

function body(raw: unknown): RecordData {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const data = { ...(raw as RecordData) };
  if (data.ip_access !== undefined) data.ip_access = normalizeIpAccess(data.ip_access);
  return data;
}

export async function createPolicy(services: Services, ctx: ServiceContext, raw: unknown): Promise<string> {
  requireAdmin(ctx);
  const data = body(raw);
  const { permissions, roles, users, ...columns } = data;
  if (permissions !== undefined && !Array.isArray(permissions)) throw new InvalidPayloadError('Invalid payload. "permissions" must be an array.', { field: 'permissions' });
  for (const [name, list] of [['roles', roles], ['users', users]] as const) {
    if (list !== undefined && (!Array.isArray(list) || list.some((v) => !isUuid(v)))) {
      throw new InvalidPayloadError(`Invalid payload. "${name}" must list ids.`, { field: name });
    }
  }
  return changeAccess(services, ctx, async (trx) => {
    const id = String(await createItem(trx, 'svc_policies', columns));
    for (const p of (permissions as unknown[] | undefined) ?? []) {
      if (typeof p !== 'object' || p === null || Array.isArray(p)) throw new InvalidPayloadError('Invalid payload. "permissions" must list objects.', { field: 'permissions' });
      await createPermissionIn(trx, { ...(p as RecordData), policy: id });
    }
    for (const role of (roles as string[] | undefined) ?? []) await createItem(trx, 'svc_access', { role, policy: id });
    for (const user of (users as string[] | undefined) ?? []) await createItem(trx, 'svc_access', { user, policy: id });
    return id;
  });
}

export async function updatePolicy(services: Services, ctx: ServiceContext, id: string, raw: unknown): Promise<string> {
  requireAdmin(ctx);
  if (!isUuid(id)) throw new ForbiddenError();
  const data = body(raw);
  return changeAccess(services, ctx, async (trx) => String(await updateItem(trx, 'svc_policies', id, data)));
}

export async function deletePolicy(services: Services, ctx: ServiceContext, id: string): Promise<void> {
  requireAdmin(ctx);
  if (!isUuid(id)) throw new ForbiddenError();
  await changeAccess(services, ctx, (trx) => deleteItem(trx, 'svc_policies', id));
}

/** `permissions`: each policy's permission records, as far as the caller may read svc_permissions. */
async function attachPermissions(ctx: ServiceContext, rows: RecordData[], dropKey: boolean): Promise<void> {
  const ids = rows.map((r) => r.id as string);
  const permissions = ids.length === 0 || !(await canRead(ctx, 'svc_permissions')) ? [] : (await readRecords(ctx, 'svc_permissions', {
    filter: { policy: { _in: ids } }, sort: ['id'], limit: -1,
  })).data;
  for (const row of rows) {
    row.permissions = permissions.filter((p) => p.policy === row.id);
    if (dropKey) delete row.id;
  }
}

const readers = readersWithVirtual('svc_policies', 'permissions', attachPermissions);

export const listPolicies = readers.list;
export const readPolicy = readers.read;
