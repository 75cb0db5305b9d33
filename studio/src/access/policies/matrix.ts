/** The permission editor's model: a policy's svc_permissions rows by collection and action, what a cell amounts to
 * at a glance (no access, all of it, or custom: rows filtered, fields listed, validation or presets), the payload a
 * cell's settings save as, and the collections in the order the matrix lists them (the project's own, then the
 * system collections in their own group). */
import type { Action, Collection } from '../../content/schema.ts';
import type { PermissionRow } from '../data.ts';

export const ACTIONS: readonly Action[] = ['create', 'read', 'update', 'delete', 'share'];

export const ACTION_LABEL: Record<Action, string> = { create: 'Create', read: 'Read', update: 'Update', delete: 'Delete', share: 'Share' };

export type CellState = 'none' | 'all' | 'custom';

export const STATE_LABEL: Record<CellState, string> = { none: 'no access', all: 'all access', custom: 'custom access' };

/** Which parts of a permission apply to an action (as Directus offers them). */
export const PARTS: Record<Action, { filter: boolean; fields: boolean; validation: boolean; presets: boolean }> = {
  create: { filter: false, fields: true, validation: true, presets: true },
  read: { filter: true, fields: true, validation: false, presets: false },
  update: { filter: true, fields: true, validation: true, presets: true },
  delete: { filter: true, fields: false, validation: false, presets: false },
  share: { filter: true, fields: false, validation: false, presets: false },
};

export function keyOf(collection: string, action: Action): string {
  return `${collection}:${action}`;
}

/** The rows of each cell (normally one; more when written by hand through the API). */
export function indexRows(rows: readonly PermissionRow[]): Map<string, PermissionRow[]> {
  const map = new Map<string, PermissionRow[]>();
  for (const row of rows) {
    const key = keyOf(row.collection, row.action);
    const list = map.get(key);
    if (list) list.push(row);
    else map.set(key, [row]);
  }
  return map;
}

export function isEmptyObject(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'object' && Object.keys(value as object).length === 0);
}

export function allFields(fields: readonly string[] | null | undefined): boolean {
  return !fields || fields.includes('*');
}

export function stateOf(rows: readonly PermissionRow[] | undefined): CellState {
  if (!rows || rows.length === 0) return 'none';
  if (rows.length > 1) return 'custom';
  const [r] = rows;
  return allFields(r.fields) && isEmptyObject(r.permissions) && isEmptyObject(r.validation) && isEmptyObject(r.presets) ? 'all' : 'custom';
}

/** A custom cell in a few words, for its tooltip: "rows filtered · 3 fields · validation". */
export function detailOf(rows: readonly PermissionRow[] | undefined, action: Action): string {
  if (!rows || rows.length === 0) return 'No access';
  const r = rows[0];
  const parts = PARTS[action];
  const out: string[] = [];
  if (parts.filter) out.push(isEmptyObject(r.permissions) ? 'all items' : 'items filtered');
  if (parts.fields) out.push(allFields(r.fields) ? 'all fields' : `${r.fields!.length} field${r.fields!.length === 1 ? '' : 's'}`);
  if (parts.validation && !isEmptyObject(r.validation)) out.push('validation');
  if (parts.presets && !isEmptyObject(r.presets)) out.push(`${Object.keys(r.presets!).length} preset${Object.keys(r.presets!).length === 1 ? '' : 's'}`);
  if (rows.length > 1) out.push(`${rows.length} records`);
  return out.join(' · ') || 'All access';
}

/** The five states of a collection's row in one string ("nacnn"), so a row re-renders only when one changes. */
export function rowCode(index: Map<string, PermissionRow[]>, collection: string): string {
  return ACTIONS.map((a) => stateOf(index.get(keyOf(collection, a)))[0]).join('');
}

export const CODE_STATE: Record<string, CellState> = { n: 'none', a: 'all', c: 'custom' };

export function isSystem(c: Collection): boolean {
  return c.collection.startsWith('svc_') || (c.meta as { system?: boolean } | null)?.system === true;
}

/** Collections with a table (folders have none), the project's own first, each group by name. */
export function matrixCollections(all: readonly Collection[]): { own: Collection[]; system: Collection[] } {
  const tables = all.filter((c) => c.schema !== null).sort((a, b) => a.collection.localeCompare(b.collection));
  return { own: tables.filter((c) => !isSystem(c)), system: tables.filter(isSystem) };
}

/** What a cell saves as: no rows, one unrestricted row, or the custom settings. */
export interface CellPayload {
  fields: string[];
  permissions: Record<string, unknown> | null;
  validation: Record<string, unknown> | null;
  presets: Record<string, unknown> | null;
}

export const ALL_ACCESS: CellPayload = { fields: ['*'], permissions: null, validation: null, presets: null };

/** The nested write of PATCH /policies/{id} that turns a cell's rows into `next` (null: no access): the first row
 * is changed, extra ones deleted, or a row created. One request, one transaction. */
export function cellWrite(policy: string, collection: string, action: Action, rows: readonly PermissionRow[], next: CellPayload | null): {
  create: Record<string, unknown>[]; update: Record<string, unknown>[]; delete: number[];
} {
  if (next === null) return { create: [], update: [], delete: rows.map((r) => r.id) };
  const [first, ...extra] = rows;
  if (!first) return { create: [{ policy, collection, action, ...next }], update: [], delete: [] };
  return { create: [], update: [{ id: first.id, ...next }], delete: extra.map((r) => r.id) };
}
