/** The content model as the Studio needs it: collections (with their folder groups), fields with their meta,
 * relations, and what the caller may do (GET /permissions/me). Each is one request, cached for the session, read in
 * parallel by the screens that need them (no waterfall: a screen asks for all it needs at once), and started as the
 * Studio opens, beside GET /users/me (prefetchSchema, ../app/prefetch.ts), so no screen waits for them in turn. */
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';

export interface CollectionMeta {
  icon?: string | null;
  note?: string | null;
  hidden?: boolean;
  singleton?: boolean;
  group?: string | null;
  sort?: number | null;
  collapse?: 'open' | 'closed' | 'locked' | null;
  color?: string | null;
  display_template?: string | null;
  sort_field?: string | null;
  archive_field?: string | null;
  archive_value?: string | null;
  unarchive_value?: string | null;
  translations?: unknown;
  /** The website's address of an item, with {{field}} placeholders (live preview). */
  preview_url?: string | null;
  /** Drafts (versions) are offered for the collection's items. */
  versioning?: boolean;
}

export interface Collection {
  collection: string;
  meta: CollectionMeta | null;
  /** null for a folder (a group with no table). */
  schema: { name: string } | null;
}

export interface FieldMeta {
  interface?: string | null;
  options?: Record<string, unknown> | null;
  display?: string | null;
  display_options?: Record<string, unknown> | null;
  width?: 'half' | 'half-left' | 'half-right' | 'full' | 'fill' | null;
  sort?: number | null;
  group?: string | null;
  hidden?: boolean;
  readonly?: boolean;
  required?: boolean;
  note?: string | null;
  conditions?: unknown[] | null;
  validation?: Record<string, unknown> | null;
  validation_message?: string | null;
  special?: string[] | null;
}

export interface Field {
  collection: string;
  field: string;
  type: string;
  meta: FieldMeta | null;
  schema: {
    is_primary_key?: boolean;
    is_nullable?: boolean;
    default_value?: unknown;
    data_type?: string;
    max_length?: number | null;
    has_auto_increment?: boolean;
    is_unique?: boolean;
    is_indexed?: boolean;
  } | null;
}

export interface Relation {
  collection: string;
  field: string;
  related_collection: string | null;
  meta: {
    one_field?: string | null;
    junction_field?: string | null;
    sort_field?: string | null;
    one_collection_field?: string | null;
    one_allowed_collections?: string[] | null;
    one_deselect_action?: string | null;
  } | null;
}

export type Action = 'create' | 'read' | 'update' | 'delete' | 'share';

export interface ActionAccess {
  access: 'full' | 'partial';
  fields: string[];
  permissions: unknown;
  validation: unknown;
  presets: Record<string, unknown> | null;
}

export type Permissions = Record<string, Partial<Record<Action, ActionAccess>>>;

const collectionsQuery = queryOptions({ queryKey: ['collections'], queryFn: ({ signal }) => request<Collection[]>('GET', '/collections', { signal }) });
const fieldsQuery = queryOptions({ queryKey: ['fields'], queryFn: ({ signal }) => request<Field[]>('GET', '/fields', { signal }) });
const relationsQuery = queryOptions({ queryKey: ['relations'], queryFn: ({ signal }) => request<Relation[]>('GET', '/relations', { signal }) });
const permissionsQuery = queryOptions({ queryKey: ['permissions-me'], queryFn: ({ signal }) => request<Permissions>('GET', '/permissions/me', { signal }) });

export function useCollections() {
  return useQuery(collectionsQuery);
}

/** Every field of every collection the caller may see, in one request (the list and the editor share it). */
export function useAllFields() {
  return useQuery(fieldsQuery);
}

export function useRelations() {
  return useQuery(relationsQuery);
}

export function usePermissions() {
  return useQuery(permissionsQuery);
}

export interface PolicyGlobals {
  app_access: boolean;
  admin_access: boolean;
  enforce_tfa: boolean;
}

const policyGlobalsQuery = queryOptions({ queryKey: ['policy-globals'], queryFn: ({ signal }) => request<PolicyGlobals>('GET', '/policies/me/globals', { signal }) });

export function usePolicyGlobals() {
  return useQuery(policyGlobalsQuery);
}

/** Starts every schema request at once (each only when not cached and fresh already), the longest answer first; the
 * hooks above pick up the answers. A failed one (a 401 before the session is known, say) is read again when a screen mounts its hook. */
export function prefetchSchema(queryClient: QueryClient): void {
  void queryClient.prefetchQuery(fieldsQuery);
  void queryClient.prefetchQuery(relationsQuery);
  void queryClient.prefetchQuery(collectionsQuery);
  void queryClient.prefetchQuery(permissionsQuery);
  void queryClient.prefetchQuery(policyGlobalsQuery);
}

/** The fields of one collection in form order (meta.sort, then name). */
export function fieldsOf(all: Field[] | undefined, collection: string): Field[] {
  return (all ?? []).filter((f) => f.collection === collection)
    .sort((a, b) => (a.meta?.sort ?? 1e9) - (b.meta?.sort ?? 1e9) || a.field.localeCompare(b.field));
}

export function primaryKeyOf(fields: Field[]): string {
  return fields.find((f) => f.schema?.is_primary_key)?.field ?? 'id';
}

/** Whether the caller may do `action` on `collection` (admins: every action, everywhere). */
export function can(perms: Permissions | undefined, admin: boolean, collection: string, action: Action): boolean {
  if (admin) return true;
  return Boolean(perms?.[collection]?.[action]);
}

/** Whether the caller may read or write `field` under `action` (a field list of ['*'] allows all). */
export function fieldAllowed(perms: Permissions | undefined, admin: boolean, collection: string, action: Action, field: string): boolean {
  if (admin) return true;
  const fields = perms?.[collection]?.[action]?.fields;
  return Boolean(fields && (fields.includes('*') || fields.includes(field)));
}

/** The relation that starts at collection.field (M2O, the many side of O2M/M2M junction rows), or the O2M whose
 * alias field it is (one_field). */
export function relationFor(relations: Relation[] | undefined, collection: string, field: string): { kind: 'm2o' | 'o2m' | 'm2m' | 'm2a' | 'file' | 'files'; relation: Relation; junction?: Relation } | null {
  const list = relations ?? [];
  const m2o = list.find((r) => r.collection === collection && r.field === field);
  if (m2o) {
    if (m2o.related_collection === null) return { kind: 'm2a', relation: m2o };
    return { kind: m2o.related_collection === 'svc_files' ? 'file' : 'm2o', relation: m2o };
  }
  const o2m = list.find((r) => r.related_collection === collection && r.meta?.one_field === field);
  if (!o2m) return null;
  const junctionField = o2m.meta?.junction_field;
  if (junctionField) {
    const junction = list.find((r) => r.collection === o2m.collection && r.field === junctionField);
    if (junction) {
      if (junction.related_collection === 'svc_files') return { kind: 'files', relation: o2m, junction };
      return { kind: junction.related_collection === null ? 'm2a' : 'm2m', relation: o2m, junction };
    }
  }
  return { kind: 'o2m', relation: o2m };
}

/** A collection's display name: its key in words ("blog_posts" -> "Blog posts"). */
export function titleOf(name: string): string {
  const words = name.replace(/^svc_/, '').replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
