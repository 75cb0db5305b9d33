/** Permission records (svc_permissions): admin CRUD with the collection, action and filters validated
 * before anything is stored, and GET /permissions/me, the caller's permissions as the permission engine
 * resolves them (Directus 11 shape: collection -> action -> {access, fields, permissions, validation, presets}). */
import { loadPermissions, type PermissionAction, type PermissionSet } from '../access/permissions.ts';
import { systemAccountability } from '../access/accountability.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidPayloadError, InvalidQueryError } from '../errors.ts';
import { createItem, deleteItem, updateItem } from '../items/write/index.ts';
import { parseLimits, planLimits } from '../query/limits.ts';
import { parseFilter } from '../query/parse.ts';
import { planFilter } from '../query/plan.ts';
import type { Filter, Query } from '../query/types.ts';
import type { SchemaPort } from '../ports.ts';
import { changeAccess, readRecord, readRecords, requireAdmin, type RecordData } from './system-records.ts';

export const PERMISSION_ACTIONS: readonly PermissionAction[] = ['create', 'read', 'update', 'delete', 'share'];

const FULL_SET: PermissionSet = { get: () => ({ filter: null, fields: null, validation: null, presets: null }), clockDependent: false };

function invalid(field: string, message: string): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. ${message}`, { collection: 'svc_permissions', field });
}

function targetCollection(ctx: ServiceContext, name: unknown): string {
  if (typeof name !== 'string' || name === '') throw invalid('collection', '"collection" is required.');
  const c = Object.hasOwn(ctx.schema.collections, name) ? ctx.schema.collections[name] : undefined;
  if (!c || c.folder) throw invalid('collection', `Collection "${name}" doesn't exist.`);
  return name;
}

/** A row filter or validation rule must be a filter the query language accepts on that collection. */
function checkFilter(ctx: ServiceContext, collection: string, field: 'permissions' | 'validation', raw: unknown): Filter | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid(field, `"${field}" must be a filter object.`);
  const { config } = ctx;
  try {
    const filter = parseFilter(raw, parseLimits(config), field);
    if (Object.keys(filter).length > 0) {
      planFilter({
        schema: ctx.schema, permissions: FULL_SET, accountability: systemAccountability(),
        limits: planLimits(config),
      }, ctx.schema.collections[collection], filter);
    }
    return filter;
  } catch (err) {
    if (err instanceof InvalidQueryError || err instanceof InvalidPayloadError) throw invalid(field, err.message);
    if (err instanceof ForbiddenError) throw invalid(field, err.message);
    throw err;
  }
}

function fieldList(raw: unknown): string[] | null {
  if (raw === null) return null;
  const list = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()).filter(Boolean) : raw;
  if (!Array.isArray(list) || list.some((f) => typeof f !== 'string' || f === '')) throw invalid('fields', '"fields" must be an array of field names.');
  return [...new Set(list as string[])];
}

function presets(raw: unknown): RecordData | null {
  if (raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('presets', '"presets" must be an object.');
  return raw as RecordData;
}

/** Validates and normalises a create payload or (with `current`) the merged state of an update. */
function normalize(ctx: ServiceContext, data: RecordData, current: RecordData | null): RecordData {
  const out: RecordData = { ...data };
  const merged = { ...(current ?? {}), ...data };
  if (!current && (typeof data.policy !== 'string')) throw invalid('policy', '"policy" is required.');
  const collection = targetCollection(ctx, merged.collection);
  if (typeof merged.action !== 'string' || !PERMISSION_ACTIONS.includes(merged.action as PermissionAction)) {
    throw invalid('action', `"action" must be one of ${PERMISSION_ACTIONS.join(', ')}.`);
  }
  // A changed collection re-validates the filters that stay.
  for (const f of ['permissions', 'validation'] as const) {
    if (data[f] !== undefined || data.collection !== undefined) {
      const checked = checkFilter(ctx, collection, f, merged[f]);
      if (data[f] !== undefined) out[f] = checked;
    }
  }
  if (data.fields !== undefined) out.fields = fieldList(data.fields);
  else if (!current) out.fields = ['*'];
  if (data.presets !== undefined) out.presets = presets(data.presets);
  return out;
}

function body(raw: unknown): RecordData {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const { id: _id, ...rest } = raw as RecordData;
  return rest;
}

/** A create payload checked and normalised (the policy it names is overwritten by a nested write). */
function forCreate(ctx: ServiceContext, raw: unknown, policy: string): RecordData {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('permissions', '"permissions" must list permission objects or ids.');
  return normalize(ctx, { ...body(raw), policy }, null);
}

/** An update of an existing permission (`raw` carries its id) checked against the permission's current state. */
async function forUpdate(trx: ServiceContext, raw: RecordData): Promise<RecordData> {
  const key = typeof raw.id === 'number' || typeof raw.id === 'string' ? parseId(String(raw.id)) : null;
  if (key === null) throw invalid('permissions', 'Permission updates need the permission\'s "id".');
  const current = await readRecord(trx, 'svc_permissions', key, {});
  return { ...normalize(trx, body(raw), current), id: key };
}

/** The `permissions` of a policy write (POST or PATCH /policies) in Directus' one-to-many shapes, each nested
 * permission validated as POST/PATCH /permissions validate it: an array of ids (kept or linked) and objects
 * (with an id: updated, else created; permissions not listed are deleted), or `{create, update, delete}`. The
 * result is written through the policy's `permissions` alias, so every permission created, changed or
 * deleted is recorded in activity as a nested write of the policy. */
export async function nestedPermissions(trx: ServiceContext, policy: string, raw: unknown): Promise<unknown> {
  if (Array.isArray(raw)) {
    const out: unknown[] = [];
    for (const item of raw) {
      if (typeof item === 'number' || typeof item === 'string') out.push(parseId(String(item)));
      else if (typeof item === 'object' && item !== null && !Array.isArray(item) && (item as RecordData).id !== undefined) out.push(await forUpdate(trx, item as RecordData));
      else out.push(forCreate(trx, item, policy));
    }
    return out;
  }
  if (typeof raw !== 'object' || raw === null) throw invalid('permissions', '"permissions" must be an array or {create, update, delete}.');
  const { create = [], update = [], delete: remove = [], ...rest } = raw as RecordData;
  if (Object.keys(rest).length > 0 || !Array.isArray(create) || !Array.isArray(update) || !Array.isArray(remove)) {
    throw invalid('permissions', '"permissions" must be an array or {create, update, delete}.');
  }
  const updates: RecordData[] = [];
  for (const item of update) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalid('permissions', '"permissions.update" must list permission objects.');
    updates.push(await forUpdate(trx, item as RecordData));
  }
  const deletes = remove.map((id) => {
    if (typeof id !== 'number' && typeof id !== 'string') throw invalid('permissions', '"permissions.delete" must list permission ids.');
    return parseId(String(id));
  });
  return { create: create.map((item) => forCreate(trx, item, policy)), update: updates, delete: deletes };
}

/** A permission created inside the caller's transaction (`trx`: an admin's context bound to it, whose schema
 * holds the collection). */
export async function addPermission(trx: ServiceContext, raw: unknown): Promise<number> {
  return Number(await createItem(trx, 'svc_permissions', normalize(trx, body(raw), null)));
}

export async function createPermission(services: SchemaPort, ctx: ServiceContext, raw: unknown): Promise<number> {
  requireAdmin(ctx);
  const normalized = normalize(ctx, body(raw), null);
  return changeAccess(services, ctx, async (trx) => Number(await createItem(trx, 'svc_permissions', normalized)));
}

function parseId(id: string): number {
  if (!/^\d{1,9}$/.test(id)) throw new ForbiddenError();
  return Number(id);
}

export async function updatePermission(services: SchemaPort, ctx: ServiceContext, id: string, raw: unknown): Promise<number> {
  requireAdmin(ctx);
  const key = parseId(id);
  const data = body(raw);
  return changeAccess(services, ctx, (trx) => changePermission(trx, key, data));
}

/** A permission changed inside the caller's transaction (see addPermission). */
export async function changePermission(trx: ServiceContext, key: number, raw: unknown): Promise<number> {
  const current = await readRecord(trx, 'svc_permissions', key, {});
  await updateItem(trx, 'svc_permissions', key, normalize(trx, body(raw), current));
  return key;
}

/** A permission deleted inside the caller's transaction. */
export async function removePermission(trx: ServiceContext, key: number): Promise<void> {
  await deleteItem(trx, 'svc_permissions', key);
}

export async function deletePermission(services: SchemaPort, ctx: ServiceContext, id: string): Promise<void> {
  requireAdmin(ctx);
  const key = parseId(id);
  await changeAccess(services, ctx, (trx) => deleteItem(trx, 'svc_permissions', key));
}

export async function listPermissions(ctx: ServiceContext, query: Query): Promise<{ data: RecordData[]; meta?: RecordData }> {
  requireAdmin(ctx);
  return readRecords(ctx, 'svc_permissions', query);
}

export async function readPermission(ctx: ServiceContext, id: string, query: Query): Promise<RecordData> {
  requireAdmin(ctx);
  return readRecord(ctx, 'svc_permissions', parseId(id), query);
}

export interface ActionAccess {
  access: 'full' | 'partial';
  fields: string[];
  permissions: Filter | null;
  validation: Filter | null;
  presets: RecordData | null;
}

/** Every collection and action the caller may use. `full` = no row filter, `partial` = rows limited. */
export async function permissionsOfCaller(ctx: ServiceContext): Promise<Record<string, Partial<Record<PermissionAction, ActionAccess>>>> {
  const set = await loadPermissions(ctx);
  const out: Record<string, Partial<Record<PermissionAction, ActionAccess>>> = {};
  for (const name of Object.keys(ctx.schema.collections).sort()) {
    const c = ctx.schema.collections[name];
    if (c.folder) continue;
    for (const action of PERMISSION_ACTIONS) {
      const p = set.get(name, action);
      if (!p) continue;
      (out[name] ??= {})[action] = {
        access: p.filter ? 'partial' : 'full',
        fields: p.fields ? [...p.fields] : ['*'],
        permissions: p.filter,
        validation: p.validation,
        presets: p.presets,
      };
    }
  }
  return out;
}
