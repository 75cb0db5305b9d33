/** Access records (svc_access): which policy applies to a role or to a user directly. Admins write; any
 * signed-in caller reads the rows that apply to them (their user or one of their roles). */
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { createItem, deleteItem, updateItem } from '../items/write/index.ts';
import type { Query } from '../query/types.ts';
import type { SchemaPort } from '../ports.ts';
import { changeAccess, readRecord, readRecords, requireAdmin, type RecordData } from './system-records.ts';
import { isUuid } from '../uuid.ts';


function body(raw: unknown): RecordData {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const { id: _id, ...rest } = raw as RecordData;
  return rest;
}

/** Exactly one of role and user (an access row with neither or both would apply to nobody or be ambiguous). */
function checkOwner(merged: RecordData): void {
  const role = merged.role ?? null;
  const user = merged.user ?? null;
  if ((role === null) === (user === null)) {
    throw new InvalidPayloadError('Invalid payload. Exactly one of "role" and "user" is required.', { collection: 'svc_access', field: role === null ? 'role' : 'user' });
  }
  if (merged.policy === undefined || merged.policy === null) throw new InvalidPayloadError('Invalid payload. "policy" is required.', { collection: 'svc_access', field: 'policy' });
}

/** An access row created inside the caller's transaction (`trx`: an admin's context bound to it). */
export async function addAccess(trx: ServiceContext, raw: unknown): Promise<string> {
  const data = body(raw);
  checkOwner(data);
  return String(await createItem(trx, 'svc_access', data));
}

export async function createAccess(services: SchemaPort, ctx: ServiceContext, raw: unknown): Promise<string> {
  requireAdmin(ctx);
  checkOwner(body(raw));
  return changeAccess(services, ctx, (trx) => addAccess(trx, raw));
}

export async function updateAccess(services: SchemaPort, ctx: ServiceContext, id: string, raw: unknown): Promise<string> {
  requireAdmin(ctx);
  if (!isUuid(id)) throw new ForbiddenError();
  const data = body(raw);
  return changeAccess(services, ctx, async (trx) => {
    const current = await readRecord(trx, 'svc_access', id, {});
    checkOwner({ ...current, ...data });
    await updateItem(trx, 'svc_access', id, data);
    return id;
  });
}

/** An access row deleted inside the caller's transaction. */
export async function removeAccess(trx: ServiceContext, id: string): Promise<void> {
  if (!isUuid(id)) throw new ForbiddenError();
  await deleteItem(trx, 'svc_access', id);
}

export async function deleteAccess(services: SchemaPort, ctx: ServiceContext, id: string): Promise<void> {
  requireAdmin(ctx);
  if (!isUuid(id)) throw new ForbiddenError();
  await changeAccess(services, ctx, (trx) => removeAccess(trx, id));
}

export async function listAccess(ctx: ServiceContext, query: Query): Promise<{ data: RecordData[]; meta?: RecordData }> {
  return readRecords(ctx, 'svc_access', query);
}

export async function readAccess(ctx: ServiceContext, id: string, query: Query): Promise<RecordData> {
  if (!isUuid(id)) throw new ForbiddenError();
  return readRecord(ctx, 'svc_access', id, query);
}
