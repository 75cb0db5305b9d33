/** Updating rows by key: one statement for every key, nested writes per key, FORBIDDEN when a key is missing. */
import { ident, run } from '../../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../../errors.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { checkDepth, permit, track } from './context.ts';
import { keyArrayCast, primaryField } from './keys.ts';
import { writeToMany, writeToOne } from './nested.ts';
import { checkFieldAccess, isPlainObject, preparePayload } from './payload.ts';
import { keyFromRow, returning, type WrittenRow } from './sql.ts';
import type { PrimaryKey, WriteContext } from './types.ts';

/** keys must be unique and already checked against the key type (keys.ts). */
export async function updateMany(
  w: WriteContext, collection: CollectionOverview, keys: PrimaryKey[], payload: unknown, depth: number,
): Promise<PrimaryKey[]> {
  if (!isPlainObject(payload)) throw new InvalidPayloadError('Invalid payload. Update data must be an object.');
  if (keys.length === 0) return [];
  checkDepth(w, depth);
  const name = collection.collection;
  const permission = permit(w, name, 'update');
  checkFieldAccess(name, payload, permission.fields);
  const prepared = await preparePayload(w.schema, collection, payload, 'update', keys);
  track(w, keys.length);
  const mark = w.activity.mark();
  await writeToOne(w, prepared, depth);

  const columns = prepared.columns;
  const names = Object.keys(columns);
  const pk = primaryField(collection);
  const n = names.length;
  const where = `_row.${ident(pk.field)} = any($${n + 1}${keyArrayCast(pk)})`;
  const sql = n > 0
    ? `update ${ident(name)} as _row set ${names.map((c, i) => `${ident(c)} = $${i + 1}`).join(', ')} where ${where} ${returning(collection)}`
    : `select _row.${ident(pk.field)} as pk${collection.accountability === 'all' ? ', row_to_json(_row.*)::text as snap' : ''}
       from ${ident(name)} as _row where ${where} for update`;
  const rows = await run<WrittenRow>(w.trx, sql, [...names.map((c) => columns[c]), keys]);
  // Directus answers a missing item like a forbidden one, so existence is not leaked.
  if (rows.length !== keys.length) throw new ForbiddenError();

  if (prepared.toMany.length > 0) {
    for (const key of keys) {
      for (const toMany of prepared.toMany) await writeToMany(w, key, toMany, depth, false);
    }
  }
  w.activity.record(collection, 'update', rows.map((r) => ({ key: keyFromRow(r.pk), snapshot: r.snap ?? null })), columns, mark);
  return keys;
}
