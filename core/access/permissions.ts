/** Resolves what the caller may do on a collection: permission rows of all its policies merged
 * (SPEC.md > Permission evaluation): allowed when any grants the action, row filters OR-combined,
 * field lists intersected. Admins bypass everything. Cached per schema version and policy set. */
import { run } from '../db/database.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError } from '../errors.ts';
import type { Filter } from '../query/types.ts';

export type PermissionAction = 'create' | 'read' | 'update' | 'delete' | 'share';

export interface ResolvedPermission {
  /** Row filter to apply on read; null = every row. */
  filter: Filter | null;
  /** Allowed field names; null = all fields. */
  fields: Set<string> | null;
  validation: Filter | null;
  presets: Record<string, unknown> | null;
}

interface PermissionRow {
  collection: string; action: string; permissions: Filter | null; validation: Filter | null;
  presets: Record<string, unknown> | null; fields: string[] | string | null;
}

const FULL: ResolvedPermission = Object.freeze({ filter: null, fields: null, validation: null, presets: null }) as ResolvedPermission;

const cache = new WeakMap<object, Map<string, Promise<PermissionRow[]>>>();

async function rowsFor(ctx: ServiceContext): Promise<PermissionRow[]> {
  const policies = ctx.accountability.policies;
  if (policies.length === 0) return [];
  let byPolicies = cache.get(ctx.schema);
  if (!byPolicies) {
    byPolicies = new Map();
    cache.set(ctx.schema, byPolicies);
  }
  const key = [...policies].sort().join(',');
  let rows = byPolicies.get(key);
  if (!rows) {
    rows = run<PermissionRow>(ctx.db,
      'select collection, action, permissions, validation, presets, fields from svc_permissions where policy = any($1::uuid[])',
      [policies]);
    byPolicies.set(key, rows);
    rows.catch(() => byPolicies!.delete(key));
  }
  return rows;
}

function fieldList(raw: PermissionRow['fields']): string[] | null {
  if (raw === null) return [];
  const list = Array.isArray(raw) ? raw : String(raw).split(',').map((s) => s.trim()).filter(Boolean);
  return list.includes('*') ? null : list;
}

function isEmptyFilter(f: Filter | null): boolean {
  return !f || Object.keys(f).length === 0;
}

function merge(rows: PermissionRow[]): ResolvedPermission | null {
  if (rows.length === 0) return null;
  let unfiltered = false;
  const filters: Filter[] = [];
  let fields: Set<string> | null = null;
  let validation: Filter | null = null;
  let presets: Record<string, unknown> | null = null;
  for (const row of rows) {
    if (isEmptyFilter(row.permissions)) unfiltered = true;
    else filters.push(row.permissions!);
    const list = fieldList(row.fields);
    if (list) fields = fields ? new Set(list.filter((f) => fields!.has(f))) : new Set(list);
    if (!isEmptyFilter(row.validation)) validation = validation ? { _and: [validation, row.validation!] } : row.validation;
    if (row.presets) presets = { ...(presets ?? {}), ...row.presets };
  }
  return {
    filter: unfiltered ? null : filters.length === 1 ? filters[0] : { _or: filters },
    fields,
    validation,
    presets,
  };
}

/** All of a caller's permissions, loaded once, answered synchronously (the query planner is pure). */
export interface PermissionSet {
  get(collection: string, action: PermissionAction): ResolvedPermission | null;
  /** True when a row filter uses $NOW, so statements built from it cannot be reused later. */
  readonly clockDependent: boolean;
}

const ADMIN_SET: PermissionSet = { get: () => FULL, clockDependent: false };

export async function loadPermissions(ctx: ServiceContext): Promise<PermissionSet> {
  if (ctx.accountability.admin) return ADMIN_SET;
  const rows = await rowsFor(ctx);
  const merged = new Map<string, ResolvedPermission | null>();
  return {
    clockDependent: rows.some((r) => JSON.stringify(r.permissions ?? null).includes('$NOW')),
    get(collection, action) {
      const key = `${collection}:${action}`;
      if (!merged.has(key)) merged.set(key, merge(rows.filter((r) => r.collection === collection && r.action === action)));
      return merged.get(key)!;
    },
  };
}

/** The merged permission, or null when no policy grants the action. */
export async function resolvePermission(ctx: ServiceContext, collection: string, action: PermissionAction): Promise<ResolvedPermission | null> {
  return (await loadPermissions(ctx)).get(collection, action);
}

/** Like resolvePermission, but throws FORBIDDEN when nothing grants the action. */
export async function requirePermission(ctx: ServiceContext, collection: string, action: PermissionAction): Promise<ResolvedPermission> {
  const permission = await resolvePermission(ctx, collection, action);
  if (!permission) throw new ForbiddenError();
  return permission;
}
