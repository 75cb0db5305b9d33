/** What the list knows about a collection's fields: which can be columns, how a many-to-one column shows its
 * related item (the related collection's simple display template, else a name/title field, else the key), which
 * fields to request for the visible columns (never the whole row), the paths a filter can use (through many-to-one
 * relations) and the fields a batch edit can set. */
import {
  can, fieldAllowed, fieldsOf, primaryKeyOf, relationFor, titleOf,
  type Collection, type Field, type Permissions, type Relation,
} from '../schema.ts';

export interface Schema {
  collections: Collection[];
  fields: Field[];
  relations: Relation[];
  perms: Permissions;
  admin: boolean;
}

/** How a related item is shown: the fields to request from it, and the text built from them. */
export interface Display {
  fields: string[];
  render(item: Record<string, unknown>): string;
  /** The one field to sort by when the display is a single field. */
  sortField: string | null;
}

const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;

export function displayOf(schema: Schema, collection: string): Display {
  const fields = fieldsOf(schema.fields, collection);
  const readable = (f: string): boolean => fields.some((x) => x.field === f) && fieldAllowed(schema.perms, schema.admin, collection, 'read', f);
  const pk = primaryKeyOf(fields);
  const template = schema.collections.find((c) => c.collection === collection)?.meta?.display_template ?? null;
  if (template) {
    const names = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
    if (names.length > 0 && names.every((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n) && readable(n))) {
      return {
        fields: [...new Set(names)],
        render: (item) => template.replace(PLACEHOLDER, (_, name: string) => plain(item[name])).trim(),
        sortField: names.length === 1 ? names[0] : null,
      };
    }
  }
  // System collections without a template: people by name (else email), files by title (else file name).
  if (collection === 'svc_users' && ['first_name', 'last_name', 'email'].every(readable)) {
    return {
      fields: ['first_name', 'last_name', 'email'],
      render: (item) => [plain(item.first_name), plain(item.last_name)].filter(Boolean).join(' ') || plain(item.email),
      sortField: 'email',
    };
  }
  if (collection === 'svc_files' && ['title', 'filename_download'].every(readable)) {
    return { fields: ['title', 'filename_download'], render: (item) => plain(item.title) || plain(item.filename_download), sortField: 'title' };
  }
  const named = ['name', 'title', 'label'].find(readable);
  if (named) return { fields: [named], render: (item) => plain(item[named]), sortField: named };
  return { fields: [pk], render: (item) => plain(item[pk]), sortField: pk };
}

/** A value as short text (objects as JSON, lists joined). */
export function plain(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(plain).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export interface Column {
  field: Field;
  label: string;
  /** The related collection of a many-to-one column (its display is requested through the relation). */
  related: string | null;
  display: Display | null;
  /** The fields to request for this column. */
  request: string[];
  /** The sort expression clicking its header uses, or null when it cannot be sorted. */
  sortKey: string | null;
}

/** The fields that can be columns: stored fields the caller may read (not O2M/M2M aliases or groups). */
export function columnFields(schema: Schema, collection: string): Field[] {
  return fieldsOf(schema.fields, collection).filter((f) => f.type !== 'alias' && fieldAllowed(schema.perms, schema.admin, collection, 'read', f.field));
}

export function columnOf(schema: Schema, collection: string, field: Field): Column {
  const rel = relationFor(schema.relations, collection, field.field);
  const related = rel && (rel.kind === 'm2o' || rel.kind === 'file') ? rel.relation.related_collection : null;
  if (related && can(schema.perms, schema.admin, related, 'read')) {
    const display = displayOf(schema, related);
    return {
      field, label: titleOf(field.field), related, display,
      request: display.fields.map((f) => `${field.field}.${f}`),
      sortKey: display.sortField ? `${field.field}.${display.sortField}` : field.field,
    };
  }
  return { field, label: titleOf(field.field), related: null, display: null, request: [field.field], sortKey: field.type === 'json' ? null : field.field };
}

/** The columns shown when the user has not chosen: the visible stored fields in form order, at most six. */
export function defaultColumns(schema: Schema, collection: string): string[] {
  const all = columnFields(schema, collection);
  const visible = all.filter((f) => !f.meta?.hidden).slice(0, 6).map((f) => f.field);
  if (visible.length > 0) return visible;
  return all.slice(0, 1).map((f) => f.field);
}

/** The `fields` parameter: the visible columns (related display fields through their relation) and the key. */
export function requestFields(columns: Column[], pk: string): string[] {
  return [...new Set([pk, ...columns.flatMap((c) => c.request)])];
}

export interface FilterField {
  path: string;
  label: string;
  type: string;
  /** The heading of the relation it goes through ("Author"), or null for the collection's own fields. */
  via: string | null;
  /** The related collection when the field is a many-to-one (its key is compared). */
  related: string | null;
}

/** The paths a filter can use: the collection's own fields, and through each many-to-one the related collection's
 * fields, two hops deep. */
export function filterFields(schema: Schema, collection: string, depth = 2): FilterField[] {
  const out: FilterField[] = [];
  const walk = (c: string, prefix: string, labelPrefix: string, left: number, seen: Set<string>): void => {
    const relatedOnes: { field: Field; related: string }[] = [];
    for (const f of columnFields(schema, c)) {
      const rel = relationFor(schema.relations, c, f.field);
      const related = rel && (rel.kind === 'm2o' || rel.kind === 'file') ? rel.relation.related_collection : null;
      out.push({
        path: `${prefix}${f.field}`, label: `${labelPrefix}${titleOf(f.field)}`, type: f.type,
        via: labelPrefix ? labelPrefix.replace(/ → $/, '') : null, related,
      });
      if (related && can(schema.perms, schema.admin, related, 'read') && !seen.has(related)) relatedOnes.push({ field: f, related });
    }
    if (left <= 1) return;
    for (const { field, related } of relatedOnes) {
      walk(related, `${prefix}${field.field}.`, `${labelPrefix}${titleOf(field.field)} → `, left - 1, new Set([...seen, related]));
    }
  };
  walk(collection, '', '', depth, new Set([collection]));
  return out;
}

/** Fields a batch edit may set: stored, not the key, not read-only, and allowed for update. */
export function editableFields(schema: Schema, collection: string): Field[] {
  return fieldsOf(schema.fields, collection).filter((f) => f.type !== 'alias' && !f.schema?.is_primary_key && !f.meta?.readonly
    && !(f.meta?.special ?? []).some((s) => ['date-created', 'date-updated', 'user-created', 'user-updated', 'uuid'].includes(s))
    && fieldAllowed(schema.perms, schema.admin, collection, 'update', f.field));
}
