/** Directus wire shapes of collections, fields and relations, built from the schema overview plus the
 * svc_collections / svc_fields rows. */
import type { CollectionOverview, FieldOverview, FieldType, Relation, SchemaOverview } from '../types.ts';
import { splitSpecial } from './meta.ts';

export interface CollectionObject {
  collection: string;
  meta: Record<string, unknown> | null;
  schema: { name: string; comment: null } | null;
}

export interface FieldObject {
  collection: string;
  field: string;
  type: FieldType;
  meta: Record<string, unknown> | null;
  schema: Record<string, unknown> | null;
}

export interface RelationObject {
  collection: string;
  field: string;
  related_collection: string | null;
  schema: Record<string, unknown> | null;
  meta: Record<string, unknown> | null;
}

const COLLECTION_DEFAULTS = {
  icon: null, note: null, display_template: null, hidden: false, singleton: false, translations: null,
  archive_field: null, archive_app_filter: true, archive_value: null, unarchive_value: null, sort_field: null,
  accountability: 'all', color: null, item_duplication_fields: null, sort: null, group: null, collapse: 'open',
  preview_url: null, versioning: false, search_index: false,
};

export function collectionObject(name: string, overview: CollectionOverview | undefined, metaRow: Record<string, unknown> | undefined): CollectionObject {
  let meta: Record<string, unknown> | null = null;
  if (metaRow) meta = { collection: name, ...COLLECTION_DEFAULTS, ...metaRow };
  else if (overview?.system) meta = { collection: name, ...COLLECTION_DEFAULTS, accountability: null, system: true };
  const hasTable = overview !== undefined && !overview.folder;
  return { collection: name, meta, schema: hasTable ? { name, comment: null } : null };
}

const DATA_TYPES: Record<string, string> = {
  varchar: 'character varying', bpchar: 'character', text: 'text', int2: 'smallint', int4: 'integer', int8: 'bigint',
  float4: 'real', float8: 'double precision', numeric: 'numeric', bool: 'boolean', date: 'date',
  time: 'time without time zone', timetz: 'time with time zone', timestamptz: 'timestamp with time zone',
  timestamp: 'timestamp without time zone', uuid: 'uuid', json: 'json', jsonb: 'jsonb',
};

export function fieldMetaObject(row: Record<string, unknown>): Record<string, unknown> {
  const special = splitSpecial(row.special);
  return {
    id: row.id, collection: row.collection, field: row.field, special: special.length ? special : null,
    interface: row.interface ?? null, options: row.options ?? null, display: row.display ?? null,
    display_options: row.display_options ?? null, readonly: row.readonly ?? false, hidden: row.hidden ?? false,
    sort: row.sort ?? null, width: row.width ?? null, translations: row.translations ?? null, note: row.note ?? null,
    conditions: row.conditions ?? null, required: row.required ?? false, group: row.group ?? null,
    validation: row.validation ?? null, validation_message: row.validation_message ?? null,
  };
}

function foreignKeyOf(schema: SchemaOverview, collection: string, field: string): { table: string; column: string | null } | null {
  const rel = schema.relations.find((r) => r.collection === collection && r.field === field && r.related_collection && r.schema);
  if (!rel?.related_collection) return null;
  return { table: rel.related_collection, column: schema.collections[rel.related_collection]?.primary ?? null };
}

export function fieldObject(schema: SchemaOverview, collection: string, f: FieldOverview, metaRow: Record<string, unknown> | undefined): FieldObject {
  let columnSchema: Record<string, unknown> | null = null;
  if (!f.alias) {
    const fk = foreignKeyOf(schema, collection, f.field);
    columnSchema = {
      name: f.field, table: collection, data_type: DATA_TYPES[f.dbType ?? ''] ?? f.dbType, default_value: f.defaultValue,
      max_length: f.maxLength, numeric_precision: f.numericPrecision, numeric_scale: f.numericScale,
      is_generated: false, generation_expression: null, is_nullable: f.nullable, is_unique: f.unique, is_indexed: f.indexed ?? f.unique,
      is_primary_key: f.isPrimaryKey, has_auto_increment: f.autoIncrement,
      foreign_key_column: fk?.column ?? null, foreign_key_table: fk?.table ?? null, comment: null,
    };
  }
  return { collection, field: f.field, type: f.type, meta: metaRow ? fieldMetaObject(metaRow) : null, schema: columnSchema };
}

export function relationObject(schema: SchemaOverview, r: Relation): RelationObject {
  const related = r.related_collection;
  return {
    collection: r.collection,
    field: r.field,
    related_collection: related,
    schema: r.schema && related ? {
      constraint_name: r.schema.constraint_name, table: r.collection, column: r.field, foreign_key_schema: 'public',
      foreign_key_table: related, foreign_key_column: schema.collections[related]?.primary ?? null,
      on_update: r.schema.on_update, on_delete: r.schema.on_delete,
    } : null,
    meta: r.meta.id === null ? null : { ...r.meta },
  };
}
