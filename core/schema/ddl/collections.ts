/** Collections: create (table + fields + metadata, or a metadata-only folder), read, update meta, delete. */
import type { Transaction } from 'kysely';
import { ident, run } from '../../db/database.ts';
import { CollectionNotFoundError, ForbiddenError, InvalidPayloadError } from '../../errors.ts';
import type { SchemaOverview } from '../types.ts';
import { readPermission, requireAppAccess, requireReadableCollection } from './access.ts';
import { columnDefinition, parseFieldInput, specialFor, type FieldInput } from './columns.ts';
import { batchEntries, labelled } from './batch.ts';
import { ddl, requireAdmin, withSchemaChange, type DdlScope, type SchemaServiceContext } from './context.ts';
import { removeField } from './fields.ts';
import { fieldIndexName, requireTrigramExtension } from './indexes.ts';
import { requireGroup, requireNoChildren, requireNoGroupCycle } from './groups.ts';
import { insertCollectionMeta, readCollectionMetaRows, requireMetaObject, updateCollectionMeta, upsertFieldMeta } from './meta.ts';
import { isPlainObject, isSystemCollection, requireIdentifier } from './names.ts';
import { collectionObject, type CollectionObject } from './shapes.ts';

type Row = Record<string, unknown>;

const DEFAULT_PRIMARY_KEY: FieldInput = {
  field: 'id',
  type: 'integer',
  meta: { hidden: true, interface: 'numeric', readonly: true },
  schema: { is_primary_key: true, has_auto_increment: true },
};

function objects(schema: SchemaOverview, rows: Row[], names: Iterable<string>): CollectionObject[] {
  const metas = new Map(rows.map((r) => [r.collection as string, r]));
  return [...names].map((name) => collectionObject(name, schema.collections[name], metas.get(name)));
}

/** User collections first (by sort, then name), then the system ones. */
function orderedNames(schema: SchemaOverview, rows: Row[]): string[] {
  const user = rows.map((r) => r.collection as string).filter((c) => schema.collections[c]);
  const system = Object.keys(schema.collections).filter((c) => schema.collections[c].system && !user.includes(c)).sort();
  return [...user, ...system];
}

export async function readCollections(ctx: SchemaServiceContext): Promise<CollectionObject[]> {
  requireAppAccess(ctx);
  const schema = await ctx.cache.get();
  const rows = await readCollectionMetaRows(ctx.db);
  let names = orderedNames(schema, rows);
  if (!ctx.accountability.admin) {
    const allowed = new Set<string>();
    for (const name of names) if (await readPermission(ctx, schema, name)) allowed.add(name);
    // Folders holding a readable collection stay visible, so the tree can be drawn.
    const groups = new Map(rows.map((r) => [r.collection as string, r.group as string | null]));
    for (const name of [...allowed]) {
      for (let g = groups.get(name), depth = 0; g && depth < 32; g = groups.get(g), depth++) allowed.add(g);
    }
    names = names.filter((n) => allowed.has(n));
  }
  return objects(schema, rows, names);
}

export async function readCollection(ctx: SchemaServiceContext, collection: string, known?: SchemaOverview): Promise<CollectionObject> {
  const schema = known ?? await ctx.cache.get();
  await requireReadableCollection(ctx, schema, collection);
  const [row] = await run<Row>(ctx.db, 'select * from svc_collections where collection = $1', [collection]);
  return collectionObject(collection, schema.collections[collection], row);
}

function parseFields(raw: unknown): FieldInput[] {
  if (raw === undefined || raw === null) return [{ ...DEFAULT_PRIMARY_KEY }];
  if (!Array.isArray(raw)) throw new InvalidPayloadError('"fields" must be an array.');
  const fields = raw.map(parseFieldInput);
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f.field)) throw new InvalidPayloadError(`Field "${f.field}" is listed twice.`);
    seen.add(f.field);
  }
  const primary = fields.filter((f) => f.schema?.is_primary_key);
  if (primary.length > 1) throw new InvalidPayloadError('A collection can have only one primary key field.');
  if (primary.length === 0) {
    if (seen.has('id')) throw new InvalidPayloadError('The collection needs a primary key: mark one field with "schema.is_primary_key".');
    fields.unshift({ ...DEFAULT_PRIMARY_KEY });
  }
  return fields;
}

async function nameTaken(trx: Transaction<any>, schema: SchemaOverview, collection: string): Promise<boolean> {
  if (schema.collections[collection]) return true;
  const rows = await run(trx, `select 1 from svc_collections where collection = $1
    union all select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
    where c.relname = $1`, [collection]);
  return rows.length > 0;
}

export async function createCollection(ctx: SchemaServiceContext, body: Record<string, unknown>): Promise<CollectionObject> {
  requireAdmin(ctx);
  const { result: collection, schema } = await withSchemaChange(ctx, (scope) => addCollection(scope, body));
  return readCollection(ctx, collection, schema);
}

/** Creates a collection (its table with its fields, or a folder) inside a schema change; returns its name. */
export async function addCollection({ trx, schema }: DdlScope, body: Record<string, unknown>): Promise<string> {
  const collection = requireIdentifier(body.collection, 'collection');
  if (isSystemCollection(collection)) throw new InvalidPayloadError('Collections can\'t start with "svc_".');
  const meta = { ...(requireMetaObject(body.meta) ?? {}) };
  // As Directus: without a schema the collection is a folder (metadata only); `folder: true` says so outright.
  const folder = body.folder === true || meta.folder === true || body.schema === null || body.schema === undefined;
  delete meta.folder;
  if (!folder && !isPlainObject(body.schema)) throw new InvalidPayloadError('"schema" must be an object or null.');
  const fieldsGiven = Array.isArray(body.fields) ? body.fields.length > 0 : body.fields !== undefined && body.fields !== null;
  if (folder && fieldsGiven) {
    throw new InvalidPayloadError('A folder has no table, so it can\'t have fields: send "schema": {} to create a table.');
  }
  const fields = folder ? [] : parseFields(body.fields);

  if (await nameTaken(trx, schema, collection)) throw new InvalidPayloadError(`Collection "${collection}" already exists.`);
  await requireGroup(trx, collection, meta.group);
  if (!folder) {
    const columns: string[] = [];
    for (const f of fields) if (f.type !== 'alias') columns.push(`${ident(f.field)} ${await columnDefinition(trx, f)}`);
    await ddl(trx, `create table ${ident(collection)} (${columns.join(', ')})`);
    // The table is new and empty: its indexes are made in the same transaction.
    for (const f of fields) {
      if (f.schema?.is_indexed && !f.schema.is_unique && !f.schema.is_primary_key) {
        await ddl(trx, `create index ${ident(fieldIndexName(collection, f.field, false))} on ${ident(collection)} (${ident(f.field)})`);
      }
    }
  }
  if (meta.search_index === true) await requireTrigramExtension(trx);
  await insertCollectionMeta(trx, collection, meta);
  for (const [i, f] of fields.entries()) {
    await upsertFieldMeta(trx, collection, f.field, { sort: i + 1, ...(f.meta ?? {}) }, specialFor(f.type, f.meta?.special));
  }
  return collection;
}

interface CollectionChange { collection: string; body: Record<string, unknown> }

/** Applies `{meta}` changes to collections inside one schema change, then checks that no group nesting
 * became circular (checked once at the end, so a batch may pass through an intermediate state). */
export async function changeCollections({ trx, schema }: DdlScope, changes: CollectionChange[]): Promise<void> {
  const regrouped: string[] = [];
  for (const { collection, body } of changes) {
    await labelled(`Collection "${collection}"`, async () => {
      const col = schema.collections[collection];
      if (!col) throw new CollectionNotFoundError(collection);
      if (col.system) throw new ForbiddenError("System collections can't be changed.");
      const meta = requireMetaObject(body.meta);
      if (!meta) return;
      if (meta.group !== undefined) {
        await requireGroup(trx, collection, meta.group);
        regrouped.push(collection);
      }
      if (meta.search_index === true) await requireTrigramExtension(trx);
      const [existing] = await run(trx, 'select 1 from svc_collections where collection = $1', [collection]);
      if (existing) await updateCollectionMeta(trx, collection, meta);
      else await insertCollectionMeta(trx, collection, meta);
    });
  }
  await requireNoGroupCycle(trx, regrouped);
}

export async function updateCollection(ctx: SchemaServiceContext, collection: string, body: Record<string, unknown>): Promise<CollectionObject> {
  const { schema } = await withSchemaChange(ctx, (scope) => changeCollections(scope, [{ collection, body }]));
  return readCollection(ctx, collection, schema);
}

/** PATCH /collections with an array of `{collection, meta}`: every change or none, in one transaction with
 * one schema version bump; answers the changed collections in the order given (each once). */
export async function updateCollections(ctx: SchemaServiceContext, body: unknown): Promise<CollectionObject[]> {
  requireAdmin(ctx);
  const changes = batchEntries(body, ctx.config.maxBatchMutation, 'collection changes').map((entry, i) => {
    if (typeof entry.collection !== 'string' || entry.collection === '') throw new InvalidPayloadError(`body[${i}]: "collection" is required.`);
    return { collection: entry.collection, body: entry };
  });
  if (changes.length === 0) return [];
  const { schema } = await withSchemaChange(ctx, (scope) => changeCollections(scope, changes));
  const out: CollectionObject[] = [];
  for (const name of new Set(changes.map((c) => c.collection))) out.push(await readCollection(ctx, name, schema));
  return out;
}

/** Drops the table and everything that refers to it, as Directus does: relations on both sides, the O2M
 * aliases and M2O fields of other collections pointing at it, A2O allow-lists, field and collection
 * metadata, presets and permissions. */
async function removeCollection(trx: Transaction<any>, schema: SchemaOverview, collection: string): Promise<void> {
  const col = schema.collections[collection];
  if (!col.folder) {
    const done = new Set<string>();
    for (const r of schema.relations) {
      if (r.collection !== collection && r.related_collection !== collection) continue;
      if (r.related_collection && r.meta.one_field && r.related_collection !== collection) {
        await removeField(trx, schema, r.related_collection, r.meta.one_field, done);
      }
      if (r.related_collection === collection && r.collection !== collection) {
        await removeField(trx, schema, r.collection, r.field, done);
      }
    }
    for (const r of schema.relations) {
      const allowed = r.meta.one_allowed_collections;
      if (r.meta.id !== null && allowed?.includes(collection)) {
        await run(trx, 'update svc_relations set one_allowed_collections = $1 where id = $2',
          [allowed.filter((c) => c !== collection).join(',') || null, r.meta.id]);
      }
    }
    await run(trx, 'delete from svc_relations where many_collection = $1 or one_collection = $1', [collection]);
    await ddl(trx, `drop table if exists ${ident(collection)} cascade`);
    await run(trx, 'delete from svc_presets where collection = $1', [collection]);
    await run(trx, 'delete from svc_permissions where collection = $1', [collection]);
  }
  await run(trx, 'delete from svc_fields where collection = $1', [collection]);
  await run(trx, 'delete from svc_collections where collection = $1', [collection]);
}

export async function deleteCollection(ctx: SchemaServiceContext, collection: string): Promise<void> {
  await withSchemaChange(ctx, (scope) => dropCollection(scope, collection));
}

/** Deletes a user collection (not a folder still holding others) inside a schema change. */
export async function dropCollection({ trx, schema }: DdlScope, collection: string): Promise<void> {
  const col = schema.collections[collection];
  if (!col) throw new CollectionNotFoundError(collection);
  if (col.system) throw new ForbiddenError("System collections can't be deleted.");
  await requireNoChildren(trx, collection);
  await removeCollection(trx, schema, collection);
}
