/** Resolves what the caller may do on a collection: permission rows of all its policies merged
 * (SPEC.md > Permission evaluation): allowed when any grants the action, row filters OR-combined,
 * field lists intersected. Admins bypass everything. Cached per schema version and policy set. */
import { run } from '../db/database.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError } from '../errors.ts';
import type { Filter } from '../query/types.ts';
import { builtinPermission } from './builtin.ts';
import { withoutAdminOnlyRows } from './admin-only-rows.ts';
import type { PermissionAction, PermissionSet, ResolvedPermission } from '../query/permission-set.ts';

export type { PermissionAction, PermissionSet, ResolvedPermission };

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


const ADMIN_SET: PermissionSet = { get: () => FULL, clockDependent: false };

/** A share token reads only the shared item, under its role's read permission on that collection, and
 * writes nothing (Directus' share scope, without its reach into related collections). */
function shareScoped(ctx: ServiceContext, base: PermissionSet, share: { collection: string; item: string }): PermissionSet {
  const collection = Object.hasOwn(ctx.schema.collections, share.collection) ? ctx.schema.collections[share.collection] : undefined;
  const pk = collection?.primary;
  let scoped: ResolvedPermission | null | undefined;
  return {
    clockDependent: base.clockDependent,
    get(name, action) {
      if (!pk || name !== share.collection || action !== 'read') return null;
      if (scoped === undefined) {
        const p = base.get(name, 'read');
        const item: Filter = { [pk]: { _eq: share.item } };
        scoped = p && { ...p, filter: p.filter ? { _and: [p.filter, item] } : item };
      }
      return scoped;
    },
  };
}

export async function loadPermissions(ctx: ServiceContext): Promise<PermissionSet> {
  if (ctx.accountability.share) return shareScoped(ctx, await loadPolicyPermissions(ctx), ctx.accountability.share);
  if (ctx.accountability.admin) return ADMIN_SET;
  return loadPolicyPermissions(ctx);
}

async function loadPolicyPermissions(ctx: ServiceContext): Promise<PermissionSet> {
  const rows = await rowsFor(ctx);
  const app = ctx.accountability.app;
  const merged = new Map<string, ResolvedPermission | null>();
  return {
    clockDependent: rows.some((r) => JSON.stringify(r.permissions ?? null).includes('$NOW')),
    get(collection, action) {
      const key = `${collection}:${action}`;
      if (!merged.has(key)) {
        // Rule 2: app_access callers fall back to the built-in grant where no record of theirs exists.
        const own = merge(rows.filter((r) => r.collection === collection && r.action === action));
        merged.set(key, withoutAdminOnlyRows(collection, action, own ?? (app ? builtinPermission(collection, action) : null)));
      }
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
