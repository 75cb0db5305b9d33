/** Fields: read, add a column (or an alias), change type/nullability/default/length/uniqueness, drop. */
import type { Transaction } from 'kysely';
import { ident, run } from '../../db/database.ts';
import { CollectionNotFoundError, FieldNotFoundError, ForbiddenError, InvalidPayloadError } from '../../errors.ts';
import type { FieldType, SchemaOverview } from '../types.ts';
import { fieldAllowed, readPermission, requireAppAccess, requireReadableCollection } from './access.ts';
import {
  baseType, columnDefinition, columnType, defaultExpression, parseFieldInput, parseFieldSchema, parseFieldType, plainType,
  specialFor, withoutImplicit, type FieldInput, type FieldSchemaInput,
} from './columns.ts';
import { batchEntries, labelled } from './batch.ts';
import { ddl, requireAdmin, withSchemaChange, type DdlScope, type SchemaServiceContext } from './context.ts';
import { readFieldMetaRows, requireMetaObject, splitSpecial, upsertFieldMeta } from './meta.ts';
import { isSystemCollection } from './names.ts';
import { columnIndexes, fieldIndexName, requireAtMostOneRow, requireNoDuplicates, type IndexJob } from './indexes.ts';
import { fieldObject, type FieldObject } from './shapes.ts';

type Row = Record<string, unknown>;

function metaIndex(rows: Row[]): Map<string, Row> {
  return new Map(rows.map((r) => [`${r.collection}.${r.field}`, r]));
}

function fieldsOf(schema: SchemaOverview, collection: string, metas: Map<string, Row>): FieldObject[] {
  const col = schema.collections[collection];
  if (!col) return [];
  return Object.values(col.fields).map((f) => fieldObject(schema, collection, f, metas.get(`${collection}.${f.field}`)));
}

export async function readAllFields(ctx: SchemaServiceContext): Promise<FieldObject[]> {
  requireAppAccess(ctx);
  const schema = await ctx.cache.get();
  const metas = metaIndex(await readFieldMetaRows(ctx.db));
  const out: FieldObject[] = [];
  for (const collection of Object.keys(schema.collections).sort()) {
    const permission = ctx.accountability.admin ? null : await readPermission(ctx, schema, collection);
    if (!ctx.accountability.admin && !permission) continue;
    out.push(...fieldsOf(schema, collection, metas).filter((f) => fieldAllowed(permission, f.field)));
  }
  return out;
}

export async function readCollectionFields(ctx: SchemaServiceContext, collection: string): Promise<FieldObject[]> {
  const schema = await ctx.cache.get();
  const permission = await requireReadableCollection(ctx, schema, collection);
  const metas = metaIndex(await readFieldMetaRows(ctx.db, collection));
  return fieldsOf(schema, collection, metas).filter((f) => fieldAllowed(permission, f.field));
}

export async function readOneField(ctx: SchemaServiceContext, collection: string, field: string, known?: SchemaOverview): Promise<FieldObject> {
  const schema = known ?? await ctx.cache.get();
  const permission = await requireReadableCollection(ctx, schema, collection);
  const f = schema.collections[collection].fields[field];
  if (!f || !fieldAllowed(permission, field)) {
    if (!ctx.accountability.admin) throw new ForbiddenError();
    throw new FieldNotFoundError(collection, field);
  }
  const [meta] = await run<Row>(ctx.db, 'select * from svc_fields where collection = $1 and field = $2', [collection, field]);
  return fieldObject(schema, collection, f, meta);
}

/** Adds one field (column and/or svc_fields row) to an existing collection inside a schema change. Its unique or
 * plain index is queued on `indexJobs` (built after commit without blocking writes), or, without a queue, made
 * with the column. */
export async function addField(trx: Transaction<any>, schema: SchemaOverview, collection: string, input: FieldInput, indexJobs?: IndexJob[]): Promise<void> {
  const col = schema.collections[collection];
  if (!col) throw new CollectionNotFoundError(collection);
  const [existing] = await run(trx, 'select 1 from svc_fields where collection = $1 and field = $2', [collection, input.field]);
  if (col.fields[input.field] || existing) {
    throw new InvalidPayloadError(`Field "${input.field}" already exists in collection "${collection}".`);
  }
  if (input.type !== 'alias') {
    if (col.folder) throw new InvalidPayloadError(`Collection "${collection}" is a folder and can't hold database fields.`);
    if (input.schema?.is_primary_key && col.primary) {
      throw new InvalidPayloadError(`Collection "${collection}" already has a primary key.`);
    }
    const s = input.schema;
    const deferred = indexJobs !== undefined && !s?.is_primary_key;
    const definition = await columnDefinition(trx, deferred ? { ...input, schema: s && { ...s, is_unique: false, is_indexed: false } } : input);
    await ddl(trx, `alter table ${ident(collection)} add column ${ident(input.field)} ${definition}`);
    if (deferred && s?.is_unique) {
      // Every row holds the default: with a non-null one, two rows are already a duplicate.
      if (s.default_value !== undefined && s.default_value !== null) await requireAtMostOneRow(trx, collection, input.field);
      indexJobs.push({ collection, field: input.field, unique: true });
    } else if (deferred && s?.is_indexed) {
      indexJobs.push({ collection, field: input.field, unique: false });
    } else if (s?.is_indexed && !s.is_unique && !s.is_primary_key) {
      await ddl(trx, `create index ${ident(fieldIndexName(collection, input.field, false))} on ${ident(collection)} (${ident(input.field)})`);
    }
  }
  await upsertFieldMeta(trx, collection, input.field, input.meta ?? {}, specialFor(input.type, input.meta?.special));
}

export async function createField(ctx: SchemaServiceContext, collection: string, body: Record<string, unknown>): Promise<FieldObject> {
  let field = '';
  const { schema } = await withSchemaChange(ctx, async ({ trx, schema, indexJobs }) => {
    if (!schema.collections[collection]) throw new CollectionNotFoundError(collection);
    const input = parseFieldInput(body);
    field = input.field;
    await addField(trx, schema, collection, input, indexJobs);
  });
  return readOneField(ctx, collection, field, schema);
}

/** Built-in columns of svc_ tables are part of the service, not of the user's schema. */
async function requireEditable(trx: Transaction<any>, collection: string, field: string): Promise<Row | undefined> {
  const [meta] = await run<Row>(trx, 'select * from svc_fields where collection = $1 and field = $2', [collection, field]);
  if (isSystemCollection(collection) && !meta) throw new ForbiddenError("System fields can't be changed.");
  return meta;
}

/** is_unique / is_indexed of a PATCH: drops run here (instant), builds are queued for after commit. */
async function changeIndexes({ trx, indexJobs }: DdlScope, collection: string, field: string, s: FieldSchemaInput): Promise<void> {
  const table = ident(collection);
  const indexes = await columnIndexes(trx, collection, field);
  if (indexes.some((i) => i.primary)) return; // the primary key is unique and indexed already
  const unique = indexes.filter((i) => i.unique);
  if (s.is_unique === true && unique.length === 0) {
    await requireNoDuplicates(trx, collection, field);
    indexJobs.push({ collection, field, unique: true });
  } else if (s.is_unique === false) {
    for (const i of unique) await ddl(trx, i.constraint ? `alter table ${table} drop constraint ${ident(i.name)}` : `drop index ${ident(i.name)}`);
  }
  const plain = indexes.filter((i) => !i.unique && i.btree);
  const uniqueAfter = s.is_unique ?? unique.length > 0;
  if (s.is_indexed === true && plain.length === 0 && !uniqueAfter) {
    indexJobs.push({ collection, field, unique: false });
  } else if (s.is_indexed === false) {
    for (const i of plain) await ddl(trx, `drop index ${ident(i.name)}`);
  }
}

/** Applies one field change (`{type?, meta?, schema?}`) inside a schema change. Changes to different fields
 * of one transaction are independent, so several may run against the same start-of-transaction overview. */
export async function changeField(scope: DdlScope, collection: string, field: string, body: Record<string, unknown>): Promise<void> {
  const { trx, schema } = scope;
  const col = schema.collections[collection];
  if (!col) throw new CollectionNotFoundError(collection);
  const current = col.fields[field];
  if (!current) throw new FieldNotFoundError(collection, field);
  const metaRow = await requireEditable(trx, collection, field);
  const meta = requireMetaObject(body.meta);
  const type: FieldType = body.type === undefined || body.type === null ? current.type : parseFieldType(body.type);
  if ((type === 'alias') !== current.alias) throw new InvalidPayloadError("Alias fields can't become database fields or the other way round.");
  const s = current.alias ? null : parseFieldSchema(body.schema);
  const table = ident(collection);
  const column = ident(field);

  if (!current.alias) {
    if (s?.is_primary_key !== undefined && s.is_primary_key !== current.isPrimaryKey) {
      throw new InvalidPayloadError("A field's primary key flag can't be changed.");
    }
    const wantedLength = s?.max_length !== undefined ? s.max_length : current.maxLength;
    const wantedPrecision = s?.numeric_precision !== undefined ? s.numeric_precision : current.numericPrecision;
    const wantedScale = s?.numeric_scale !== undefined ? s.numeric_scale : current.numericScale;
    const newType = plainType(columnType(type, { max_length: wantedLength, numeric_precision: wantedPrecision, numeric_scale: wantedScale }));
    const oldType = plainType(columnType(current.type, { max_length: current.maxLength, numeric_precision: current.numericPrecision, numeric_scale: current.numericScale }));
    const typeChanges = type !== current.type || newType !== oldType;
    const defaultGiven = s !== null && s.default_value !== undefined;
    if (typeChanges) {
      // The old default may not fit the new type: drop it, convert, then set it again where it fits.
      if (current.defaultValue !== null && !current.autoIncrement) await ddl(trx, `alter table ${table} alter column ${column} drop default`);
      await ddl(trx, `alter table ${table} alter column ${column} type ${newType} using ${column}::${baseType(newType)}`);
      if (!defaultGiven && current.defaultValue !== null && !current.autoIncrement) {
        const restored = await defaultExpression(trx, type, newType, current.defaultValue).catch(() => null);
        if (restored) await ddl(trx, `alter table ${table} alter column ${column} set default ${restored}`);
      }
    }
    if (defaultGiven && !current.autoIncrement) {
      const expr = await defaultExpression(trx, type, newType, s!.default_value);
      await ddl(trx, `alter table ${table} alter column ${column} ${expr === null ? 'drop default' : `set default ${expr}`}`);
    }
    if (s?.is_nullable !== undefined && s.is_nullable !== current.nullable && !current.isPrimaryKey) {
      await ddl(trx, `alter table ${table} alter column ${column} ${s.is_nullable ? 'drop not null' : 'set not null'}`);
    }
    if (s && (s.is_unique !== undefined || s.is_indexed !== undefined)) await changeIndexes(scope, collection, field, s);
  }

  const storedSpecial = splitSpecial(metaRow?.special);
  const special = meta && meta.special !== undefined
    ? specialFor(type, meta.special)
    : specialFor(type, type !== current.type ? withoutImplicit(current.type, storedSpecial) : storedSpecial);
  if (meta || !metaRow || special.join(',') !== storedSpecial.join(',')) {
    await upsertFieldMeta(trx, collection, field, meta ?? {}, special);
  }
}

export async function updateField(ctx: SchemaServiceContext, collection: string, field: string, body: Record<string, unknown>): Promise<FieldObject> {
  const { schema } = await withSchemaChange(ctx, (scope) => changeField(scope, collection, field, body));
  return readOneField(ctx, collection, field, schema);
}

/** PATCH /fields/{collection} with an array of `{field, type?, meta?, schema?}`: every change or none, in one
 * transaction with one schema version bump; answers the changed fields in the order given. */
export async function updateFields(ctx: SchemaServiceContext, collection: string, body: unknown): Promise<FieldObject[]> {
  requireAdmin(ctx);
  const entries = batchEntries(body, ctx.config.maxBatchMutation, 'field changes');
  const changes = entries.map((entry, i) => {
    const field = entry.field;
    if (typeof field !== 'string' || field === '') throw new InvalidPayloadError(`body[${i}]: "field" is required.`);
    if (entry.collection !== undefined && entry.collection !== collection) {
      throw new InvalidPayloadError(`body[${i}]: "collection" must be "${collection}" or left out.`);
    }
    return { field, body: entry };
  });
  const seen = new Set<string>();
  for (const { field } of changes) {
    if (seen.has(field)) throw new InvalidPayloadError(`Field "${field}" is listed twice.`);
    seen.add(field);
  }
  if (changes.length === 0) {
    if (!(await ctx.cache.get()).collections[collection]) throw new CollectionNotFoundError(collection);
    return [];
  }
  const { schema } = await withSchemaChange(ctx, async (scope) => {
    if (!scope.schema.collections[collection]) throw new CollectionNotFoundError(collection);
    for (const { field, body: change } of changes) await labelled(`Field "${field}"`, () => changeField(scope, collection, field, change));
  });
  const out: FieldObject[] = [];
  for (const { field } of changes) out.push(await readOneField(ctx, collection, field, schema));
  return out;
}

/** Removes a field and everything that hangs on it, as Directus does: its M2O relation (and the O2M alias
 * on the other side), the one_field of relations it was the alias of, and references in metadata.
 * `done` makes it safe to call repeatedly with the overview from the start of the transaction. */
export async function removeField(trx: Transaction<any>, schema: SchemaOverview, collection: string, field: string, done: Set<string>): Promise<void> {
  const key = `${collection}.${field}`;
  if (done.has(key)) return;
  done.add(key);
  for (const r of schema.relations) {
    const isM2O = r.collection === collection && r.field === field;
    if (isM2O) {
      await run(trx, 'delete from svc_relations where many_collection = $1 and many_field = $2', [collection, field]);
      if (r.related_collection && r.meta.one_field) await removeField(trx, schema, r.related_collection, r.meta.one_field, done);
    } else if (r.related_collection === collection && r.meta.one_field === field) {
      await run(trx, 'update svc_relations set one_field = null where many_collection = $1 and many_field = $2', [r.collection, r.field]);
    } else if (r.collection === collection && r.meta.one_collection_field === field) {
      await run(trx, 'delete from svc_relations where many_collection = $1 and many_field = $2', [r.collection, r.field]);
    }
  }
  await run(trx, 'update svc_relations set junction_field = null where many_collection = $1 and junction_field = $2', [collection, field]);
  await run(trx, 'update svc_relations set sort_field = null where many_collection = $1 and sort_field = $2', [collection, field]);
  const f = schema.collections[collection]?.fields[field];
  if (f && !f.alias) await ddl(trx, `alter table ${ident(collection)} drop column if exists ${ident(field)}`);
  await run(trx, 'delete from svc_fields where collection = $1 and field = $2', [collection, field]);
  await run(trx, 'update svc_fields set "group" = null where collection = $1 and "group" = $2', [collection, field]);
  await run(trx, 'update svc_collections set sort_field = null where collection = $1 and sort_field = $2', [collection, field]);
  await run(trx, 'update svc_collections set archive_field = null where collection = $1 and archive_field = $2', [collection, field]);
}

export async function deleteField(ctx: SchemaServiceContext, collection: string, field: string): Promise<void> {
  await withSchemaChange(ctx, (scope) => dropField(scope, collection, field));
}

/** Deletes a field (not the primary key) and what hangs on it inside a schema change. */
export async function dropField({ trx, schema }: DdlScope, collection: string, field: string): Promise<void> {
  const col = schema.collections[collection];
  if (!col) throw new CollectionNotFoundError(collection);
  const f = col.fields[field];
  if (!f) throw new FieldNotFoundError(collection, field);
  await requireEditable(trx, collection, field);
  if (f.isPrimaryKey) throw new InvalidPayloadError("The primary key field can't be deleted.");
  await removeField(trx, schema, collection, field, new Set());
}
