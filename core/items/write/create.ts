/** Creating one row: relations it points at first, the row, then the rows that point at it. */
import { randomUUID } from 'node:crypto';
import { ident, run } from '../../db/database.ts';
import { InvalidPayloadError } from '../../errors.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { checkDepth, permit, track } from './context.ts';
import { primaryField } from './keys.ts';
import { writeToMany, writeToOne } from './nested.ts';
import { checkFieldAccess, isPlainObject, preparePayload } from './payload.ts';
import { applyPresets } from './presets.ts';
import { keyFromRow, returning, type WrittenRow } from './sql.ts';
import type { PrimaryKey, WriteContext } from './types.ts';

export async function createOne(w: WriteContext, collection: CollectionOverview, payload: unknown, depth: number): Promise<PrimaryKey> {
  if (!isPlainObject(payload)) throw new InvalidPayloadError('Invalid payload. Items must be objects.');
  checkDepth(w, depth);
  const name = collection.collection;
  const permission = permit(w, name, 'create');
  checkFieldAccess(name, payload, permission.fields);
  const data = permission.presets ? applyPresets(permission.presets, payload, w.accountability) : payload;
  const prepared = await preparePayload(w.schema, collection, data, 'create', null);
  track(w, 1);
  const mark = w.activity.mark();
  await writeToOne(w, prepared, depth);

  const columns = prepared.columns;
  const pkField = primaryField(collection);
  if (pkField.type === 'uuid' && columns[pkField.field] === undefined && !pkField.defaultValue) columns[pkField.field] = randomUUID();
  const names = Object.keys(columns);
  const table = `${ident(name)} as _row`;
  const sql = names.length === 0
    ? `insert into ${table} default values ${returning(collection)}`
    : `insert into ${table} (${names.map(ident).join(', ')}) values (${names.map((_, i) => `$${i + 1}`).join(', ')}) ${returning(collection)}`;
  const [row] = await run<WrittenRow>(w.trx, sql, names.map((n) => columns[n]));
  const key = keyFromRow(row.pk);

  for (const toMany of prepared.toMany) await writeToMany(w, key, toMany, depth, true);
  w.activity.record(collection, 'create', [{ key, snapshot: row.snap ?? null }], columns, mark);
  return key;
}
