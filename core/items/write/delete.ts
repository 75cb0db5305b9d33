/** Deleting rows by key; dependent rows follow the foreign keys' on-delete rules. */
import { ident, run } from '../../db/database.ts';
import { ForbiddenError } from '../../errors.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { permit, track } from './context.ts';
import { keyArrayCast, primaryField } from './keys.ts';
import { keyFromRow } from './sql.ts';
import type { PrimaryKey, WriteContext } from './types.ts';

/** keys must be unique and already checked against the key type (keys.ts). */
export async function deleteMany(w: WriteContext, collection: CollectionOverview, keys: PrimaryKey[]): Promise<PrimaryKey[]> {
  if (keys.length === 0) return [];
  const name = collection.collection;
  permit(w, name, 'delete');
  track(w, keys.length);
  const mark = w.activity.mark();
  const pk = primaryField(collection);
  const rows = await run<{ pk: unknown }>(w.trx,
    `delete from ${ident(name)} as _row where _row.${ident(pk.field)} = any($1${keyArrayCast(pk)}) returning _row.${ident(pk.field)} as pk`,
    [keys]);
  if (rows.length !== keys.length) throw new ForbiddenError();
  w.activity.record(collection, 'delete', rows.map((r) => ({ key: keyFromRow(r.pk), snapshot: null })), null, mark);
  return keys;
}
