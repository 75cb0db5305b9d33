/** The schema overview: what every read and write is checked against. Built from the database
 * catalogue plus svc_collections, svc_fields and svc_relations; cached per process. */

export const FIELD_TYPES = [
  'string', 'text', 'integer', 'bigInteger', 'float', 'decimal', 'boolean', 'date', 'time',
  'timestamp', 'dateTime', 'uuid', 'json', 'csv', 'hash', 'alias',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldOverview {
  field: string;
  type: FieldType;
  /** Postgres type name of the column (null for alias fields). */
  dbType: string | null;
  nullable: boolean;
  /** Column default as a value where it is a constant, else the SQL text. */
  defaultValue: unknown;
  maxLength: number | null;
  numericPrecision: number | null;
  numericScale: number | null;
  isPrimaryKey: boolean;
  autoIncrement: boolean;
  unique: boolean;
  /** A valid single-column index covers the column (primary key and unique ones included), from pg_index. */
  indexed?: boolean;
  special: string[];
  /** True when the field has no column (alias: o2m, m2m, m2a, presentation). */
  alias: boolean;
}

export interface CollectionOverview {
  collection: string;
  /** Primary key field name (null for folder collections). */
  primary: string | null;
  singleton: boolean;
  /** True when the collection is a folder (metadata only, no table). */
  folder: boolean;
  /** True for svc_* collections. */
  system: boolean;
  accountability: 'all' | 'activity' | null;
  sortField: string | null;
  /** svc_collections.search_index: a trigram index serves `search` (core/schema/ddl/indexes.ts keeps it built). */
  searchIndex?: boolean;
  /** The fields' own validation rules (svc_fields.validation), all of which a write must pass, with each field's
   * validation_message; null when no field has one. */
  fieldValidation?: { rule: Record<string, unknown>; messages: Record<string, string> } | null;
  fields: Record<string, FieldOverview>;
}

export interface RelationMeta {
  id: number | null;
  many_collection: string;
  many_field: string;
  one_collection: string | null;
  one_field: string | null;
  one_collection_field: string | null;
  one_allowed_collections: string[] | null;
  junction_field: string | null;
  sort_field: string | null;
  one_deselect_action: 'nullify' | 'delete';
}

export interface Relation {
  /** The "many" side: the collection holding the foreign key. */
  collection: string;
  field: string;
  /** The "one" side; null for A2O (polymorphic) relations. */
  related_collection: string | null;
  schema: { on_delete: string; on_update: string; constraint_name: string | null } | null;
  meta: RelationMeta;
}

export interface SchemaOverview {
  version: string;
  collections: Record<string, CollectionOverview>;
  relations: Relation[];
}

/** What a field of a collection points at, resolved once from the relations list. */
export type RelationInfo =
  | { kind: 'm2o'; relation: Relation; related: string }
  | { kind: 'o2m'; relation: Relation; related: string }
  | { kind: 'a2o'; relation: Relation; allowed: string[]; collectionField: string };
