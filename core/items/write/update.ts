/** Updating rows by key: one statement for every key, nested writes per key, FORBIDDEN when a key is missing. */
import { ident, run } from '../../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../../errors.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { checkDepth, permit, track } from './context.ts';
import { keyArrayCast, keyMatch, primaryField } from './keys.ts';
import { writeToMany, writeToOne } from './nested.ts';
import { checkFieldAccess, isPlainObject, preparePayload, type PreparedPayload } from './payload.ts';
import { keyFromRow, returning, snapshotSql, type WrittenRow } from './sql.ts';
import { stampPayload } from './specials.ts';
import { validatePayload } from '../../access/validation.ts';
import type { Filter } from '../../query/types.ts';
import { guardCredentialWrite } from '../../access/credential-guard.ts';
import type { Payload, PrimaryKey, ValidationContext, WriteContext } from './types.ts';

/** Permission (action, fields, validation) and payload checks of an update of `keys`; no database work. */
export async function validateUpdate(v: ValidationContext, collection: CollectionOverview, keys: PrimaryKey[], payload: unknown): Promise<PreparedPayload> {
  if (!isPlainObject(payload)) throw new InvalidPayloadError('Invalid payload. Update data must be an object.');
  const name = collection.collection;
  const permission = permit(v, name, 'update');
  checkFieldAccess(name, payload, permission.fields);
  guardCredentialWrite(v.accountability, name, 'update', payload);
  validatePayload(permission.validation, payload, v.accountability);
  if (collection.fieldValidation) validatePayload(collection.fieldValidation.rule as Filter, payload, v.accountability, collection.fieldValidation.messages);
  return preparePayload(v.schema, collection, stampPayload(collection, 'update', payload, v.accountability), 'update', keys);
}

/** `update <table> as _row set ... where <pk> = any($n)` without a returning clause (null without columns). */
export function updateSql(collection: CollectionOverview, columns: Payload, keys: PrimaryKey[]): { sql: string; params: unknown[] } | null {
  const names = Object.keys(columns);
  if (names.length === 0) return null;
  const pk = primaryField(collection);
  const match = keyMatch(pk, `_row.${ident(pk.field)}`, names.length + 1, keys);
  return {
    sql: `update ${ident(collection.collection)} as _row set ${names.map((c, i) => `${ident(c)} = $${i + 1}`).join(', ')}
      where ${match.sql}`,
    params: [...names.map((c) => columns[c]), match.param],
  };
}

/** keys must be unique and already checked against the key type (keys.ts). */
export async function updatePrepared(
  w: WriteContext, collection: CollectionOverview, keys: PrimaryKey[], prepared: PreparedPayload, depth: number,
): Promise<PrimaryKey[]> {
  track(w, keys.length);
  const mark = w.activity.mark();
  await writeToOne(w, prepared, depth);
  const update = updateSql(collection, prepared.columns, keys);
  const pk = primaryField(collection);
  const rows = await run<WrittenRow>(w.trx, update ? `${update.sql} ${returning(collection)}` : `
    select _row.${ident(pk.field)} as pk${collection.accountability === 'all' ? `, ${snapshotSql(collection, '_row')}::text as snap` : ''}
    from ${ident(collection.collection)} as _row where _row.${ident(pk.field)} = any($1${keyArrayCast(pk)}) for update`,
  update ? update.params : [keys]);
  // Directus answers a missing item like a forbidden one, so existence is not leaked.
  if (rows.length !== keys.length) throw new ForbiddenError();

  if (prepared.toMany.length > 0) {
    for (const key of keys) {
      for (const toMany of prepared.toMany) await writeToMany(w, key, toMany, depth, false);
    }
  }
  w.activity.record(collection, 'update', rows.map((r) => ({ key: keyFromRow(r.pk), snapshot: r.snap ?? null })), prepared.columns, mark);
  return keys;
}

export async function updateMany(
  w: WriteContext, collection: CollectionOverview, keys: PrimaryKey[], payload: unknown, depth: number,
): Promise<PrimaryKey[]> {
  if (keys.length === 0) {
    if (!isPlainObject(payload)) throw new InvalidPayloadError('Invalid payload. Update data must be an object.');
    return [];
  }
  checkDepth(w, depth);
  return updatePrepared(w, collection, keys, await validateUpdate(w, collection, keys, payload), depth);
}
