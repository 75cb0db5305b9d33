/** A delta as a reader may see it: fields the caller may not read are cut, at the top level and inside the
 * nested write shapes of relational fields (M2O objects, O2M arrays and `{create, update, delete}`, junction
 * and A2O objects), so a preview or a version read never shows a related collection's field the caller could
 * not read through the item itself. Nested objects in collections the caller may not read at all are dropped. */
import type { PermissionSet } from '../query/permission-set.ts';
import { isPlainObject } from '../plain-object.ts';
import { relationOf } from '../schema/relations.ts';
import type { SchemaOverview } from '../schema/types.ts';
import type { Delta } from './types.ts';

const MAX_DEPTH = 10;

interface Reader { schema: SchemaOverview; permissions: PermissionSet }

function cutObject(r: Reader, collection: string, obj: Delta, depth: number): Delta | null {
  const read = r.permissions.get(collection, 'read');
  if (!read || depth > MAX_DEPTH) return null;
  const out: Delta = {};
  for (const [field, value] of Object.entries(obj)) {
    if (read.fields && !read.fields.has(field)) continue;
    const relation = value !== null && typeof value === 'object' ? relationOf(r.schema, collection, field) : null;
    if (!relation) {
      out[field] = value;
      continue;
    }
    const related = relation.kind === 'a2o' ? obj[relation.collectionField] : relation.related;
    const cut = typeof related === 'string' ? cutRelated(r, relation.kind, related, value, depth + 1) : undefined;
    if (cut !== undefined) out[field] = cut;
  }
  return out;
}

function cutItems(r: Reader, collection: string, list: unknown[], depth: number): unknown[] {
  const out: unknown[] = [];
  for (const item of list) {
    if (!isPlainObject(item)) out.push(item);
    else {
      const cut = cutObject(r, collection, item, depth);
      if (cut) out.push(cut);
    }
  }
  return out;
}

/** The related value cut, or undefined to leave the field out. */
function cutRelated(r: Reader, kind: 'm2o' | 'o2m' | 'a2o', collection: string, value: unknown, depth: number): unknown {
  if (kind !== 'o2m') return isPlainObject(value) ? cutObject(r, collection, value, depth) ?? undefined : value;
  if (Array.isArray(value)) return cutItems(r, collection, value, depth);
  if (!isPlainObject(value)) return undefined;
  const out: Delta = {};
  for (const [op, list] of Object.entries(value)) {
    if (op === 'delete') out.delete = list;
    else if ((op === 'create' || op === 'update') && Array.isArray(list)) out[op] = cutItems(r, collection, list, depth);
  }
  return out;
}

/** null permissions = an admin: the delta unchanged. */
export function readableDelta(schema: SchemaOverview, permissions: PermissionSet | null, collection: string, delta: Delta | null): Delta {
  if (!delta) return {};
  if (!permissions) return delta;
  return cutObject({ schema, permissions }, collection, delta, 0) ?? {};
}
