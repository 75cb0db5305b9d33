/** Indexes asked for through the API: `schema.is_indexed` / `schema.is_unique` of a field and the per-collection
 * trigram search index (`meta.search_index`). Indexes on existing tables are built after the schema change has
 * committed, outside any transaction, with CREATE [UNIQUE] INDEX CONCURRENTLY on a Postgres server so writes go
 * on meanwhile; the embedded engine has one connection (every statement waits for the build anyway), so it
 * builds them plainly. What GET /fields reports is read back from pg_index (core/schema/load.ts). */
import type { Kysely } from 'kysely';
import { ident, run, type Executor } from '../../db/database.ts';
import { InvalidPayloadError, ServiceError, mapDatabaseError } from '../../errors.ts';
import { TEXT_TYPES } from '../field-types.ts';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../types.ts';
import { constraintName } from './names.ts';

/** A field index to build after commit (drops run inside the transaction: they are instant). */
export interface IndexJob {
  collection: string;
  field: string;
  unique: boolean;
}

export function fieldIndexName(collection: string, field: string, unique: boolean): string {
  return constraintName(collection, field, unique ? 'unique' : 'index');
}

export function searchIndexName(collection: string): string {
  return constraintName(collection, 'search', 'trgm');
}

/** The columns `search` compares with ILIKE (core/query/plan.ts planSearch): text types, not hashes or
 * concealed values. The trigram index covers exactly these, one GIN column each. */
export function searchableTextFields(col: CollectionOverview): FieldOverview[] {
  return Object.values(col.fields).filter((f) => !f.alias && TEXT_TYPES.has(f.type) && f.type !== 'hash' && !f.special.includes('conceal'));
}

const embeddedEngine = new WeakMap<object, boolean>();

async function isEmbedded(db: Kysely<any>): Promise<boolean> {
  let known = embeddedEngine.get(db);
  if (known === undefined) {
    const [row] = await run<{ v: string }>(db, 'select version() as v');
    known = row.v.includes('PGlite');
    embeddedEngine.set(db, known);
  }
  return known;
}

async function concurrently(db: Kysely<any>): Promise<string> {
  return (await isEmbedded(db)) ? '' : ' concurrently';
}

/** Index rows of one single-column key on table.column: their names, uniqueness and access method. */
export async function columnIndexes(ex: Executor, table: string, column: string): Promise<{ name: string; unique: boolean; primary: boolean; constraint: boolean; btree: boolean }[]> {
  return run(ex, `
    select ic.relname as name, i.indisunique as unique, i.indisprimary as primary, con.conname is not null as constraint,
      am.amname = 'btree' as btree
    from pg_index i
    join pg_class t on t.oid = i.indrelid and t.relname = $1
    join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
    join pg_class ic on ic.oid = i.indexrelid
    join pg_am am on am.oid = ic.relam
    join pg_attribute a on a.attrelid = t.oid and a.attname = $2 and a.attnum = i.indkey[0]
    left join pg_constraint con on con.conindid = i.indexrelid and con.contype in ('u', 'p')
    where i.indnkeyatts = 1 and i.indpred is null and i.indexprs is null`, [table, column]);
}

/** Checked inside the schema change, so a unique flag on a column holding duplicates is refused with 400
 * and nothing of the change is kept. A duplicate written between commit and build is caught by the build. */
export async function requireNoDuplicates(ex: Executor, collection: string, field: string): Promise<void> {
  const [dup] = await run<{ value: string }>(ex,
    `select ${ident(field)}::text as value from ${ident(collection)} where ${ident(field)} is not null group by ${ident(field)} having count(*) > 1 limit 1`);
  if (dup) throw duplicateError(collection, field, dup.value);
}

/** A new unique column with a non-null default: every row holds the same value. */
export async function requireAtMostOneRow(ex: Executor, collection: string, field: string): Promise<void> {
  const rows = await run(ex, `select 1 from ${ident(collection)} offset 1 limit 1`);
  if (rows.length) throw duplicateError(collection, field, null);
}

function duplicateError(collection: string, field: string, value: string | null): InvalidPayloadError {
  return new InvalidPayloadError(
    `Field "${field}" of "${collection}" can't be unique: ${value === null ? 'some values occur' : `the value "${value.slice(0, 100)}" occurs`} more than once.`,
    { collection, field });
}

/** Builds the indexes a schema change asked for, one at a time. A unique index the data breaks is dropped again
 * (CONCURRENTLY leaves an INVALID index behind when it fails) and answered with 400. */
export async function buildFieldIndexes(db: Kysely<any>, jobs: readonly IndexJob[]): Promise<void> {
  const how = await concurrently(db);
  for (const job of jobs) {
    const name = fieldIndexName(job.collection, job.field, job.unique);
    try {
      await run(db, `create ${job.unique ? 'unique ' : ''}index${how} if not exists ${ident(name)} on ${ident(job.collection)} (${ident(job.field)})`);
    } catch (err) {
      await run(db, `drop index${how} if exists ${ident(name)}`);
      const code = (err as { code?: unknown }).code;
      if (code === '23505') {
        const m = /=\((.*)\) is duplicated/.exec(String((err as { detail?: unknown }).detail ?? ''));
        throw duplicateError(job.collection, job.field, m ? m[1] : null);
      }
      const mapped = mapDatabaseError(err);
      throw mapped instanceof ServiceError ? mapped : err;
    }
  }
}

/** Fails with 400 where pg_trgm can't be enabled (not installed on the server, or a role that may not create it). */
export async function requireTrigramExtension(ex: Executor): Promise<void> {
  try {
    await run(ex, 'create extension if not exists pg_trgm');
  } catch (err) {
    throw new InvalidPayloadError('"meta.search_index" needs the pg_trgm extension, which this database can\'t enable.', {},
      String((err as Error).message));
  }
}

interface SearchIndexRow { collection: string; name: string; valid: boolean; columns: string[] }

/** Brings every collection's trigram search index in line with its `search_index` flag and its current text
 * columns (a text field added, dropped or retyped changes the index). Runs after each schema change. */
export async function reconcileSearchIndexes(db: Kysely<any>, schema: SchemaOverview): Promise<void> {
  const existing = await run<SearchIndexRow>(db, `
    select t.relname as collection, ic.relname as name, i.indisvalid as valid,
      array(select a.attname::text from unnest(i.indkey) with ordinality k(attnum, ord)
            join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.ord) as columns
    from pg_index i
    join pg_class ic on ic.oid = i.indexrelid
    join pg_class t on t.oid = i.indrelid
    join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
    join pg_opclass oc on oc.oid = i.indclass[0] and oc.opcname = 'gin_trgm_ops'`);
  const byCollection = new Map<string, SearchIndexRow>();
  for (const row of existing) if (row.name === searchIndexName(row.collection)) byCollection.set(row.collection, row);
  const how = await concurrently(db);
  const names = new Set([...byCollection.keys(), ...Object.values(schema.collections).filter((c) => c.searchIndex).map((c) => c.collection)]);
  for (const collection of names) {
    const col = schema.collections[collection];
    const wanted = col?.searchIndex && !col.folder ? searchableTextFields(col).map((f) => f.field) : [];
    const have = byCollection.get(collection);
    if (have && have.valid && have.columns.join(',') === wanted.join(',')) continue;
    const name = searchIndexName(collection);
    if (have) await run(db, `drop index${how} if exists ${ident(name)}`);
    if (wanted.length === 0) continue;
    await requireTrigramExtension(db);
    const columns = wanted.map((f) => `${ident(f)} gin_trgm_ops`).join(', ');
    try {
      await run(db, `create index${how} if not exists ${ident(name)} on ${ident(collection)} using gin (${columns})`);
    } catch (err) {
      await run(db, `drop index${how} if exists ${ident(name)}`);
      throw err;
    }
  }
}
