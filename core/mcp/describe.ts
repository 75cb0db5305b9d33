/** The content model as an agent needs it: collections, their fields (type, note, whether required, choices, what a
 * relation points at) and the relations between them. Read through the schema services REST's /collections, /fields
 * and /relations use, so the caller sees exactly what those show them: app access needed, only collections they may
 * read, only fields they may read, only relations whose both ends they may read. Shapes are compact (defaults left
 * out), for an agent's context. */
import {
  readAllFields, readCollection, readCollectionFields, readCollections, readRelations, type FieldObject, type RelationObject, type SchemaServiceContext,
} from '../schema/ddl/index.ts';
import type { McpCall } from './call.ts';

type Row = Record<string, unknown>;

export interface FieldDescription {
  field: string;
  type: string;
  note?: string;
  primary_key?: true;
  generated_key?: true;
  required?: true;
  readonly?: true;
  hidden?: true;
  nullable?: false;
  unique?: true;
  default?: unknown;
  max_length?: number;
  interface?: string;
  special?: string[];
  choices?: unknown[];
  relation?: Row;
}

export interface CollectionDescription {
  collection: string;
  note?: string;
  singleton?: true;
  versioning?: true;
  display_template?: string;
  sort_field?: string;
  archive_field?: string;
  fields: FieldDescription[];
}

export interface SchemaDescription {
  collections: CollectionDescription[];
  relations: Row[];
}

export function schemaContext(call: McpCall): SchemaServiceContext {
  const { services, ctx } = call;
  return { db: services.database.db, cache: services.schema, accountability: ctx.accountability, config: ctx.config };
}

function choicesOf(meta: Row | null): unknown[] | undefined {
  const options = meta?.options as Row | null | undefined;
  const choices = options && Array.isArray(options.choices) ? options.choices as unknown[] : null;
  if (!choices || choices.length === 0) return undefined;
  return choices.map((c) => (c && typeof c === 'object' && 'value' in c ? (c as Row).value : c));
}

/** What each field of a visible relation points at, keyed `collection.field`. */
function relationIndex(relations: RelationObject[], readable: Set<string>): Map<string, Row> {
  const index = new Map<string, Row>();
  for (const r of relations) {
    const meta = r.meta as Row | null;
    if (r.related_collection) {
      index.set(`${r.collection}.${r.field}`, { kind: 'm2o', collection: r.related_collection });
      const oneField = meta?.one_field;
      if (typeof oneField === 'string') {
        const junction = typeof meta?.junction_field === 'string' ? { junction_field: meta.junction_field } : {};
        index.set(`${r.related_collection}.${oneField}`, { kind: 'o2m', collection: r.collection, field: r.field, ...junction });
      }
    } else if (typeof meta?.one_collection_field === 'string') {
      const allowed = Array.isArray(meta.one_allowed_collections) ? (meta.one_allowed_collections as string[]).filter((c) => readable.has(c)) : [];
      index.set(`${r.collection}.${r.field}`, { kind: 'a2o', collections: allowed, collection_field: meta.one_collection_field });
    }
  }
  return index;
}

function describeField(f: FieldObject, relations: Map<string, Row>): FieldDescription {
  const meta = f.meta;
  const col = f.schema;
  const out: FieldDescription = { field: f.field, type: f.type };
  if (typeof meta?.note === 'string' && meta.note) out.note = meta.note;
  if (col?.is_primary_key) out.primary_key = true;
  if (col?.has_auto_increment) out.generated_key = true;
  if (meta?.required) out.required = true;
  if (meta?.readonly) out.readonly = true;
  if (meta?.hidden) out.hidden = true;
  if (col && col.is_nullable === false && !col.is_primary_key) out.nullable = false;
  if (col?.is_unique && !col.is_primary_key) out.unique = true;
  if (col && col.default_value !== null && col.default_value !== undefined) out.default = col.default_value;
  if (typeof col?.max_length === 'number') out.max_length = col.max_length;
  if (typeof meta?.interface === 'string') out.interface = meta.interface;
  if (Array.isArray(meta?.special) && meta.special.length) out.special = meta.special as string[];
  const choices = choicesOf(meta);
  if (choices) out.choices = choices;
  const relation = relations.get(`${f.collection}.${f.field}`);
  if (relation) out.relation = relation;
  return out;
}

function describeCollection(name: string, meta: Row | null, fields: FieldObject[], relations: Map<string, Row>): CollectionDescription {
  const out: Omit<CollectionDescription, 'fields'> = { collection: name };
  if (typeof meta?.note === 'string' && meta.note) out.note = meta.note;
  if (meta?.singleton) out.singleton = true;
  if (meta?.versioning) out.versioning = true;
  if (typeof meta?.display_template === 'string') out.display_template = meta.display_template;
  if (typeof meta?.sort_field === 'string') out.sort_field = meta.sort_field;
  if (typeof meta?.archive_field === 'string') out.archive_field = meta.archive_field;
  return { ...out, fields: fields.map((f) => describeField(f, relations)) };
}

function relationRow(r: RelationObject): Row {
  const meta = r.meta as Row | null;
  const row: Row = { collection: r.collection, field: r.field, related_collection: r.related_collection };
  for (const k of ['one_field', 'junction_field', 'one_collection_field', 'one_allowed_collections', 'sort_field']) {
    if (meta?.[k] !== null && meta?.[k] !== undefined) row[k] = meta[k];
  }
  return row;
}

/** The collections with a table (no folders) the caller may read; system ones (svc_*) only when asked for. */
export async function readableCollections(call: McpCall, includeSystem: boolean): Promise<{ name: string; meta: Row | null }[]> {
  const all = await readCollections(schemaContext(call));
  return all
    .filter((c) => c.schema !== null && (includeSystem || !call.ctx.schema.collections[c.collection]?.system))
    .map((c) => ({ name: c.collection, meta: c.meta }));
}

/** Every readable collection, or one (FORBIDDEN when the caller may not read it, as GET /collections/{c}). */
export async function describeSchema(call: McpCall, opts: { collection?: string; includeSystem?: boolean }): Promise<SchemaDescription> {
  const sctx = schemaContext(call);
  const listed = await readableCollections(call, true);
  const readable = new Set(listed.map((c) => c.name));
  const visible = await readRelations(sctx);
  if (opts.collection !== undefined) {
    const name = opts.collection;
    const object = await readCollection(sctx, name);
    const fields = await readCollectionFields(sctx, name);
    const relations = visible.filter((r) => r.collection === name || r.related_collection === name);
    return { collections: [describeCollection(name, object.meta, fields, relationIndex(relations, readable))], relations: relations.map(relationRow) };
  }
  const chosen = opts.includeSystem ? listed : listed.filter((c) => !call.ctx.schema.collections[c.name]?.system);
  const names = new Set(chosen.map((c) => c.name));
  const byCollection = new Map<string, FieldObject[]>();
  for (const f of await readAllFields(sctx)) {
    if (!names.has(f.collection)) continue;
    const list = byCollection.get(f.collection) ?? [];
    list.push(f);
    byCollection.set(f.collection, list);
  }
  const relations = visible.filter((r) => names.has(r.collection) || (r.related_collection !== null && names.has(r.related_collection)));
  const index = relationIndex(relations, readable);
  return {
    collections: chosen.map((c) => describeCollection(c.name, c.meta, byCollection.get(c.name) ?? [], index)),
    relations: relations.map(relationRow),
  };
}
