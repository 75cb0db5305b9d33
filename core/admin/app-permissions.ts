/** svc_app_permissions records (admin only): grant, change, revoke, list and read. Checking a permission is
 * the permission engine's (core/access/app-permissions.ts). */
import { APP_PERMISSIONS } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { createItem, deleteItem, updateItem } from '../items/write/index.ts';
import type { Query } from '../query/types.ts';
import type { SchemaPort } from '../ports.ts';
import { changeAccess, readRecord, readRecords, requireAdmin, type RecordData } from './system-records.ts';

const KNOWN = new Set<string>(APP_PERMISSIONS);

/** `{policy, module, action}` or `{policy, permission: 'module:action'}`. */
function body(raw: unknown, create: boolean): RecordData {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const { id: _id, permission, ...data } = raw as RecordData;
  if (permission !== undefined) {
    if (typeof permission !== 'string' || !KNOWN.has(permission)) throw invalid('permission', `"permission" must be one of ${APP_PERMISSIONS.join(', ')}.`);
    const [module, action] = permission.split(':');
    data.module = module;
    data.action = action;
  }
  if (create && (data.module === undefined || data.action === undefined)) throw invalid('module', '"module" and "action" (or "permission") are required.');
  if (data.module !== undefined || data.action !== undefined) {
    if (!KNOWN.has(`${String(data.module)}:${String(data.action)}`) && create) {
      throw invalid('action', `"${String(data.module)}:${String(data.action)}" is not an app permission.`);
    }
  }
  return data;
}

function invalid(field: string, message: string): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. ${message}`, { collection: 'svc_app_permissions', field });
}

function parseId(id: string): number {
  if (!/^\d{1,9}$/.test(id)) throw new ForbiddenError();
  return Number(id);
}

/** An app permission granted inside the caller's transaction (`trx`: an admin's context bound to it). */
export async function addAppPermission(trx: ServiceContext, raw: unknown): Promise<number> {
  return Number(await createItem(trx, 'svc_app_permissions', body(raw, true)));
}

export async function grantAppPermission(services: SchemaPort, ctx: ServiceContext, raw: unknown): Promise<number> {
  requireAdmin(ctx);
  const data = body(raw, true);
  return changeAccess(services, ctx, async (trx) => Number(await createItem(trx, 'svc_app_permissions', data)));
}

/** An app permission revoked inside the caller's transaction. */
export async function removeAppPermission(trx: ServiceContext, id: number): Promise<void> {
  await deleteItem(trx, 'svc_app_permissions', id);
}

export async function updateAppPermission(services: SchemaPort, ctx: ServiceContext, id: string, raw: unknown): Promise<number> {
  requireAdmin(ctx);
  const key = parseId(id);
  const data = body(raw, false);
  return changeAccess(services, ctx, async (trx) => {
    const current = await readRecord(trx, 'svc_app_permissions', key, {});
    const merged = `${String(data.module ?? current.module)}:${String(data.action ?? current.action)}`;
    if (!KNOWN.has(merged)) throw invalid('action', `"${merged}" is not an app permission.`);
    await updateItem(trx, 'svc_app_permissions', key, data);
    return key;
  });
}

export async function revokeAppPermission(services: SchemaPort, ctx: ServiceContext, id: string): Promise<void> {
  requireAdmin(ctx);
  const key = parseId(id);
  await changeAccess(services, ctx, (trx) => deleteItem(trx, 'svc_app_permissions', key));
}

export async function listAppPermissions(ctx: ServiceContext, query: Query): Promise<{ data: RecordData[]; meta?: RecordData }> {
  requireAdmin(ctx);
  return readRecords(ctx, 'svc_app_permissions', query);
}

export async function readAppPermission(ctx: ServiceContext, id: string, query: Query): Promise<RecordData> {
  requireAdmin(ctx);
  return readRecord(ctx, 'svc_app_permissions', parseId(id), query);
}
