/** Relations: M2O (a foreign key plus a svc_relations row), O2M (the same row naming an alias field on the
 * related collection), M2M (two M2O rows on a junction collection pointing at each other through
 * junction_field) and A2O (no related collection, no foreign key: one_allowed_collections and a
 * discriminator column named by one_collection_field). */
import type { Transaction } from 'kysely';
import { ident, run } from '../../db/database.ts';
import { CollectionNotFoundError, ForbiddenError, InvalidPayloadError, NotFoundError } from '../../errors.ts';
import type { Relation, SchemaOverview } from '../types.ts';
import { readPermission, requireAppAccess, requireReadableCollection } from './access.ts';
import { ddl, requireAdmin, withSchemaChange, type DdlScope, type SchemaServiceContext } from './context.ts';
import { addField } from './fields.ts';
import { requireMetaObject } from './meta.ts';
import { constraintName, isIdentifier, isSystemCollection, optionalIdentifier, requireIdentifier } from './names.ts';
import { relationObject, type RelationObject } from './shapes.ts';

const ACTIONS = new Set(['NO ACTION', 'RESTRICT', 'CASCADE', 'SET NULL', 'SET DEFAULT']);
const TYPE_FAMILY: Record<string, string> = { int2: 'int', int4: 'int', int8: 'int', varchar: 'text', bpchar: 'text', text: 'text' };

function family(dbType: string | null): string {
  return dbType ? TYPE_FAMILY[dbType] ?? dbType : 'none';
}

function parseAction(value: unknown, key: string, fallback: string): string {
  if (value === undefined || value === null) return fallback;
  const action = typeof value === 'string' ? value.trim().toUpperCase() : '';
  if (!ACTIONS.has(action)) throw new InvalidPayloadError(`"schema.${key}" must be one of ${[...ACTIONS].join(', ')}.`);
  return action;
}

function findRelation(schema: SchemaOverview, collection: string, field: string): Relation | undefined {
  return schema.relations.find((r) => r.collection === collection && r.field === field);
}

async function visible(ctx: SchemaServiceContext, schema: SchemaOverview, r: Relation): Promise<boolean> {
  if (ctx.accountability.admin) return true;
  if (!(await readPermission(ctx, schema, r.collection))) return false;
  return !r.related_collection || Boolean(await readPermission(ctx, schema, r.related_collection));
}

export async function readRelations(ctx: SchemaServiceContext, collection?: string): Promise<RelationObject[]> {
  requireAppAccess(ctx);
  const schema = await ctx.cache.get();
  if (collection !== undefined) await requireReadableCollection(ctx, schema, collection);
  const out: RelationObject[] = [];
  for (const r of schema.relations) {
    if (collection !== undefined && r.collection !== collection) continue;
    if (await visible(ctx, schema, r)) out.push(relationObject(schema, r));
  }
  return out;
}

export async function readRelation(ctx: SchemaServiceContext, collection: string, field: string, known?: SchemaOverview): Promise<RelationObject> {
  const schema = known ?? await ctx.cache.get();
  await requireReadableCollection(ctx, schema, collection);
  const r = findRelation(schema, collection, field);
  if (!r || !(await visible(ctx, schema, r))) {
    if (!ctx.accountability.admin) throw new ForbiddenError();
    throw new NotFoundError(`Field "${field}" in collection "${collection}" has no relation.`);
  }
  return relationObject(schema, r);
}

interface MetaValues {
  one_field?: string | null;
  one_collection_field?: string | null;
  one_allowed_collections?: string | null;
  junction_field?: string | null;
  sort_field?: string | null;
  one_deselect_action?: string;
}

function parseAllowed(schema: SchemaOverview, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : null;
  if (!list || !list.every(isIdentifier)) throw new InvalidPayloadError('"meta.one_allowed_collections" must be a list of collection names.');
  for (const c of list) {
    if (!schema.collections[c]?.primary) throw new InvalidPayloadError(`Collection "${c}" in "meta.one_allowed_collections" doesn't exist or has no primary key.`);
  }
  return list.length ? list.join(',') : null;
}

/** The meta keys present in the payload, checked. */
function parseMeta(schema: SchemaOverview, meta: Record<string, unknown>): MetaValues {
  const out: MetaValues = {};
  for (const key of ['one_field', 'one_collection_field', 'junction_field', 'sort_field'] as const) {
    if (key in meta) out[key] = optionalIdentifier(meta[key], `meta.${key}`);
  }
  if ('one_allowed_collections' in meta) out.one_allowed_collections = parseAllowed(schema, meta.one_allowed_collections);
  if ('one_deselect_action' in meta && meta.one_deselect_action !== null) {
    if (meta.one_deselect_action !== 'nullify' && meta.one_deselect_action !== 'delete') {
      throw new InvalidPayloadError('"meta.one_deselect_action" must be "nullify" or "delete".');
    }
    out.one_deselect_action = meta.one_deselect_action;
  }
  return out;
}

/** The O2M side: an alias field on the related collection, created when the caller hasn't yet. */
async function ensureOneField(trx: Transaction<any>, schema: SchemaOverview, related: string, oneField: string): Promise<void> {
  const existing = schema.collections[related].fields[oneField];
  if (existing && !existing.alias) throw new InvalidPayloadError(`Field "${oneField}" in collection "${related}" is not an alias field.`);
  if (!existing) await addField(trx, schema, related, { field: oneField, type: 'alias', meta: { special: ['o2m'], interface: 'list-o2m' }, schema: null });
}

async function addForeignKey(trx: Transaction<any>, schema: SchemaOverview, collection: string, field: string, related: string, onDelete: string, onUpdate: string): Promise<void> {
  const primary = schema.collections[related].primary!;
  await ddl(trx, `alter table ${ident(collection)} add constraint ${ident(constraintName(collection, field, 'foreign'))}
    foreign key (${ident(field)}) references ${ident(related)} (${ident(primary)}) on delete ${onDelete} on update ${onUpdate}`);
}

function requireColumn(schema: SchemaOverview, collection: string, field: string, what: string): void {
  const f = schema.collections[collection]?.fields[field];
  if (!f || f.alias) throw new InvalidPayloadError(`Field "${field}" (${what}) doesn't exist in collection "${collection}".`);
}

export async function createRelation(ctx: SchemaServiceContext, body: Record<string, unknown>): Promise<RelationObject> {
  requireAdmin(ctx);
  const { result: [collection, field], schema } = await withSchemaChange(ctx, (scope) => addRelation(scope, body));
  return readRelation(ctx, collection, field, schema);
}

/** Creates a relation (its foreign key, and the O2M alias it names) inside a schema change; returns its
 * collection and field. */
export async function addRelation({ trx, schema }: DdlScope, body: Record<string, unknown>): Promise<[string, string]> {
  const collection = requireIdentifier(body.collection, 'collection');
  const field = requireIdentifier(body.field, 'field');
  const related = optionalIdentifier(body.related_collection, 'related_collection');
  const metaIn = requireMetaObject(body.meta) ?? {};
  const schemaIn = body.schema === null ? null : requireMetaObject(body.schema, 'schema') ?? {};

  const col = schema.collections[collection];
  if (!col || col.folder) throw new InvalidPayloadError(`Collection "${collection}" doesn't exist.`);
  requireColumn(schema, collection, field, 'field');
  if (findRelation(schema, collection, field)) {
    throw new InvalidPayloadError(`Field "${field}" in collection "${collection}" already has an associated relationship.`);
  }
  const meta = parseMeta(schema, metaIn);
  if (related) {
    const relCol = schema.collections[related];
    if (!relCol || relCol.folder) throw new InvalidPayloadError(`Collection "${related}" doesn't exist.`);
    if (!relCol.primary) throw new InvalidPayloadError(`Collection "${related}" has no primary key.`);
    const pk = relCol.fields[relCol.primary];
    if (family(col.fields[field].dbType) !== family(pk.dbType)) {
      throw new InvalidPayloadError(`Field "${field}" must have the type of the primary key of "${related}" (${pk.type}).`);
    }
    if (meta.one_allowed_collections || meta.one_collection_field) {
      throw new InvalidPayloadError('"meta.one_allowed_collections" and "meta.one_collection_field" are only for relations without "related_collection".');
    }
    if (schemaIn !== null) {
      await addForeignKey(trx, schema, collection, field, related,
        parseAction(schemaIn.on_delete, 'on_delete', 'SET NULL'), parseAction(schemaIn.on_update, 'on_update', 'NO ACTION'));
    }
    if (meta.one_field) await ensureOneField(trx, schema, related, meta.one_field);
  } else {
    if (!meta.one_collection_field || !meta.one_allowed_collections) {
      throw new InvalidPayloadError('"related_collection" is required, or "meta.one_collection_field" and "meta.one_allowed_collections" for a many-to-any relation.');
    }
    requireColumn(schema, collection, meta.one_collection_field, 'meta.one_collection_field');
    if (meta.one_field) throw new InvalidPayloadError('"meta.one_field" needs "related_collection".');
  }
  await run(trx, `insert into svc_relations (many_collection, many_field, one_collection, one_field, one_collection_field,
    one_allowed_collections, junction_field, sort_field, one_deselect_action) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
  [collection, field, related, meta.one_field ?? null, meta.one_collection_field ?? null, meta.one_allowed_collections ?? null,
    meta.junction_field ?? null, meta.sort_field ?? null, meta.one_deselect_action ?? 'nullify']);
  return [collection, field];
}

/** The relation at collection.field for a change: 404s for unknown ones, 403 for built-in system links. */
function requireChangeable(schema: SchemaOverview, collection: string, field: string): Relation {
  if (!schema.collections[collection]) throw new CollectionNotFoundError(collection);
  const r = findRelation(schema, collection, field);
  if (!r) throw new NotFoundError(`Field "${field}" in collection "${collection}" has no relation.`);
  if (r.meta.id === null && isSystemCollection(collection)) throw new ForbiddenError("System relations can't be changed.");
  return r;
}

export async function updateRelation(ctx: SchemaServiceContext, collection: string, field: string, body: Record<string, unknown>): Promise<RelationObject> {
  const { schema } = await withSchemaChange(ctx, (scope) => changeRelation(scope, collection, field, body));
  return readRelation(ctx, collection, field, schema);
}

/** Changes a relation's foreign key actions (`schema`) and `meta` inside a schema change. */
export async function changeRelation({ trx, schema }: DdlScope, collection: string, field: string, body: Record<string, unknown>): Promise<void> {
  const r = requireChangeable(schema, collection, field);
  const related = r.related_collection;
  if ('schema' in body && related) {
    const schemaIn = body.schema === null ? null : requireMetaObject(body.schema, 'schema') ?? {};
    const onDelete = parseAction(schemaIn?.on_delete, 'on_delete', r.schema?.on_delete ?? 'SET NULL');
    const onUpdate = parseAction(schemaIn?.on_update, 'on_update', r.schema?.on_update ?? 'NO ACTION');
    if (r.schema?.constraint_name) {
      await ddl(trx, `alter table ${ident(collection)} drop constraint if exists ${ident(r.schema.constraint_name)}`);
    }
    if (schemaIn !== null) await addForeignKey(trx, schema, collection, field, related, onDelete, onUpdate);
  }
  const metaIn = requireMetaObject(body.meta);
  if (!metaIn) return;
  const meta = parseMeta(schema, metaIn);
  if (meta.one_field && !related) throw new InvalidPayloadError('"meta.one_field" needs "related_collection".');
  if (meta.one_field && related) await ensureOneField(trx, schema, related, meta.one_field);
  if (meta.one_collection_field) requireColumn(schema, collection, meta.one_collection_field, 'meta.one_collection_field');
  const entries = Object.entries(meta);
  if (r.meta.id === null) {
    await run(trx, 'insert into svc_relations (many_collection, many_field, one_collection) values ($1, $2, $3)', [collection, field, related]);
  }
  if (entries.length > 0) {
    // Keys come from the fixed list parseMeta knows.
    const sets = entries.map(([k], i) => `${ident(k)} = $${i + 1}`);
    await run(trx, `update svc_relations set ${sets.join(', ')} where many_collection = $${entries.length + 1} and many_field = $${entries.length + 2}`,
      [...entries.map(([, v]) => v), collection, field]);
  }
}

export async function deleteRelation(ctx: SchemaServiceContext, collection: string, field: string): Promise<void> {
  await withSchemaChange(ctx, (scope) => dropRelation(scope, collection, field));
}

/** Deletes a relation (its foreign key; the field stays) inside a schema change. */
export async function dropRelation({ trx, schema }: DdlScope, collection: string, field: string): Promise<void> {
  const r = requireChangeable(schema, collection, field);
  if (r.schema?.constraint_name) {
    await ddl(trx, `alter table ${ident(collection)} drop constraint if exists ${ident(r.schema.constraint_name)}`);
  }
  await run(trx, 'delete from svc_relations where many_collection = $1 and many_field = $2', [collection, field]);
}
