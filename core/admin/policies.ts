/** Policies (svc_policies): CRUD, ip_access validated as CIDR ranges, permissions nested on read and
 * writable through the `permissions` alias. Deleting a policy deletes its permissions, app permissions and
 * access rows, each recorded in activity. Non-admins read the policies that apply to them. */
import { randomUUID } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { createItem, deleteItem, updateItem } from '../items/write/index.ts';
import type { SchemaPort } from '../ports.ts';
import { nestedPermissions } from './permission-records.ts';
import { cascade, changeAccess, requireAdmin, type RecordData } from './system-records.ts';
import { readersWithToMany } from './to-many-reads.ts';
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

function checkLinks(data: RecordData): void {
  for (const name of ['roles', 'users'] as const) {
    const list = data[name];
    if (list !== undefined && (!Array.isArray(list) || list.some((v) => !isUuid(v)))) {
      throw new InvalidPayloadError(`Invalid payload. "${name}" must list ids.`, { field: name });
    }
  }
}

/** A policy created inside the caller's transaction (`trx`: an admin's context bound to it); createPolicy wraps it
 * in its own transaction and bumps the schema version after commit. */
export async function addPolicy(trx: ServiceContext, raw: unknown): Promise<string> {
  const data = body(raw);
  checkLinks(data);
  const { permissions, roles, users, ...columns } = data;
  // The key is known before the insert so the nested permissions can be validated against it.
  if (columns.id === undefined) columns.id = randomUUID();
  if (permissions !== undefined) columns.permissions = await nestedPermissions(trx, String(columns.id), permissions);
  const id = String(await createItem(trx, 'svc_policies', columns));
  for (const role of (roles as string[] | undefined) ?? []) await createItem(trx, 'svc_access', { role, policy: id });
  for (const user of (users as string[] | undefined) ?? []) await createItem(trx, 'svc_access', { user, policy: id });
  return id;
}

export async function createPolicy(services: SchemaPort, ctx: ServiceContext, raw: unknown): Promise<string> {
  requireAdmin(ctx);
  checkLinks(body(raw));
  return changeAccess(services, ctx, (trx) => addPolicy(trx, raw));
}

/** A policy changed inside the caller's transaction (see addPolicy). */
export async function changePolicy(trx: ServiceContext, id: string, raw: unknown): Promise<string> {
  if (!isUuid(id)) throw new ForbiddenError();
  const data = body(raw);
  if (data.permissions !== undefined) data.permissions = await nestedPermissions(trx, id, data.permissions);
  return String(await updateItem(trx, 'svc_policies', id, data));
}

/** `permissions` may be changed with the policy, in Directus' one-to-many shapes (see nestedPermissions). */
export async function updatePolicy(services: SchemaPort, ctx: ServiceContext, id: string, raw: unknown): Promise<string> {
  requireAdmin(ctx);
  if (!isUuid(id)) throw new ForbiddenError();
  body(raw);
  return changeAccess(services, ctx, (trx) => changePolicy(trx, id, raw));
}

/** A policy deleted inside the caller's transaction (see deletePolicy). */
export async function removePolicy(trx: ServiceContext, id: string): Promise<void> {
  if (!isUuid(id)) throw new ForbiddenError();
  if ((await run(trx.db, 'select 1 from svc_policies where id = $1 for update', [id])).length === 0) throw new ForbiddenError();
  for (const collection of ['svc_permissions', 'svc_app_permissions', 'svc_access']) await cascade(trx, collection, 'policy', id, null);
  await deleteItem(trx, 'svc_policies', id);
}

/** The policy's permissions, app permissions and access rows are deleted first through the items service,
 * so each revocation is recorded in activity (the foreign keys' cascade would remove them silently). */
export async function deletePolicy(services: SchemaPort, ctx: ServiceContext, id: string): Promise<void> {
  requireAdmin(ctx);
  if (!isUuid(id)) throw new ForbiddenError();
  await changeAccess(services, ctx, (trx) => removePolicy(trx, id));
}

/** `permissions`: each policy's permission records (svc_permissions.policy), as far as the caller may read
 * them; expanded in full without `fields`, their ids with `*`, as Directus answers. */
const readers = readersWithToMany('svc_policies', { alias: 'permissions', related: 'svc_permissions', bare: null, sort: ['id'] });

export const listPolicies = readers.list;
export const readPolicy = readers.read;
