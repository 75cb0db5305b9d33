/** Creating one row: relations it points at first, the row, then the rows that point at it. */
import { randomUUID } from 'node:crypto';
import { ident, run } from '../../db/database.ts';
import { InvalidPayloadError } from '../../errors.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { checkDepth, permit, track } from './context.ts';
import { primaryField } from './keys.ts';
import { writeToMany, writeToOne } from './nested.ts';
import { checkFieldAccess, isPlainObject, preparePayload, type PreparedPayload } from './payload.ts';
import { applyPresets } from './presets.ts';
import { stampPayload } from './specials.ts';
import { validatePayload } from '../../access/validation.ts';
import type { Filter } from '../../query/types.ts';
import { guardCredentialWrite } from '../../access/credential-guard.ts';
import { keyFromRow, returning, type WrittenRow } from './sql.ts';
import type { Payload, PrimaryKey, ValidationContext, WriteContext } from './types.ts';

/** Permission (action, fields, presets, validation) and payload checks of a create; no database work. */
export async function validateCreate(v: ValidationContext, collection: CollectionOverview, payload: unknown): Promise<PreparedPayload> {
  if (!isPlainObject(payload)) throw new InvalidPayloadError('Invalid payload. Items must be objects.');
  const name = collection.collection;
  const permission = permit(v, name, 'create');
  checkFieldAccess(name, payload, permission.fields);
  guardCredentialWrite(v.accountability, name, 'create', payload);
  const data = permission.presets ? applyPresets(permission.presets, payload, v.accountability) : payload;
  validatePayload(permission.validation, data, v.accountability);
  if (collection.fieldValidation) validatePayload(collection.fieldValidation.rule as Filter, data, v.accountability, collection.fieldValidation.messages);
  return preparePayload(v.schema, collection, stampPayload(collection, 'create', data, v.accountability), 'create', null);
}

/** `insert into <table> as _row ...` without a returning clause; a uuid key is generated when missing. */
/** Draws a uuid key for an item that has none where the key column has no default (single and batch creates). */
export function ensureKey(collection: CollectionOverview, columns: Payload): void {
  const pkField = primaryField(collection);
  if (pkField.type === 'uuid' && columns[pkField.field] === undefined && !pkField.defaultValue) columns[pkField.field] = randomUUID();
}

export function insertSql(collection: CollectionOverview, columns: Payload): { sql: string; params: unknown[] } {
  ensureKey(collection, columns);
  const names = Object.keys(columns);
  const table = `${ident(collection.collection)} as _row`;
  if (names.length === 0) return { sql: `insert into ${table} default values`, params: [] };
  return {
    sql: `insert into ${table} (${names.map(ident).join(', ')}) values (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
    params: names.map((n) => columns[n]),
  };
}

export async function insertPrepared(w: WriteContext, collection: CollectionOverview, prepared: PreparedPayload, depth: number): Promise<PrimaryKey> {
  track(w, 1);
  const mark = w.activity.mark();
  await writeToOne(w, prepared, depth);
  const insert = insertSql(collection, prepared.columns);
  const [row] = await run<WrittenRow>(w.trx, `${insert.sql} ${returning(collection)}`, insert.params);
  const key = keyFromRow(row.pk);
  for (const toMany of prepared.toMany) await writeToMany(w, key, toMany, depth, true);
  w.activity.record(collection, 'create', [{ key, snapshot: row.snap ?? null }], prepared.columns, mark);
  return key;
}

export async function createOne(w: WriteContext, collection: CollectionOverview, payload: unknown, depth: number): Promise<PrimaryKey> {
  checkDepth(w, depth);
  return insertPrepared(w, collection, await validateCreate(w, collection, payload), depth);
}
