/** The data model as this module edits it: the full collection and field metadata the API answers (content/schema.ts
 * types what the content module reads), and the names the server accepts for collections and fields. */
import type { Collection, CollectionMeta, Field, FieldMeta } from '../content/schema.ts';

export interface FullCollectionMeta extends CollectionMeta {
  accountability?: 'all' | 'activity' | null;
  archive_app_filter?: boolean;
  preview_url?: string | null;
  versioning?: boolean;
  search_index?: boolean;
  system?: boolean;
}

export type FullCollection = Omit<Collection, 'meta'> & { meta: FullCollectionMeta | null };

export interface FullFieldSchema {
  is_primary_key?: boolean;
  is_nullable?: boolean;
  default_value?: unknown;
  data_type?: string;
  max_length?: number | null;
  numeric_precision?: number | null;
  numeric_scale?: number | null;
  has_auto_increment?: boolean;
  is_unique?: boolean;
  is_indexed?: boolean;
  foreign_key_table?: string | null;
}

export type FullField = Omit<Field, 'schema'> & { schema: FullFieldSchema | null; meta: FieldMeta | null };

/** The server's rule (core/schema/ddl/names.ts): a letter or underscore, then letters, digits and underscores, at
 * most 63 characters (Postgres' identifier length). A problem in words, or null when the name is fine. */
export function nameProblem(name: string, what: 'collection' | 'field'): string | null {
  if (name === '') return `Give the ${what} a name.`;
  if (name.length > 63) return 'Use at most 63 characters.';
  if (!/^[a-z_]/i.test(name)) return 'Start with a letter or an underscore.';
  if (!/^[a-z_][a-z0-9_]*$/i.test(name)) return 'Use only letters, digits and underscores (no spaces or dashes).';
  if (what === 'collection' && name.toLowerCase().startsWith('svc_')) return 'Names starting with "svc_" belong to the system.';
  return null;
}

/** A name as typed, made into one the server takes: lower case, spaces and dashes as underscores. */
export function slugName(text: string): string {
  return text.trim().toLowerCase().replace(/[\s-]+/g, '_').replace(/[^a-z0-9_]/g, '');
}

export function isSystem(name: string): boolean {
  return name.toLowerCase().startsWith('svc_');
}

export function isFolder(c: FullCollection): boolean {
  return c.schema === null;
}

/** Sorted the way the navigation sorts: meta.sort, then name. */
export function bySort<T extends { meta: { sort?: number | null } | null }>(key: (x: T) => string) {
  return (a: T, b: T): number => (a.meta?.sort ?? Number.MAX_SAFE_INTEGER) - (b.meta?.sort ?? Number.MAX_SAFE_INTEGER) || key(a).localeCompare(key(b));
}

/** The primary key field of a collection's fields, if it has one. */
export function primaryOf(fields: FullField[]): FullField | undefined {
  return fields.find((f) => f.schema?.is_primary_key);
}
