/** Singleton collections (SPEC Items rule 2): a write updates the one row, creating it when there is none. */
import { ident, run } from '../../db/database.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { createOne } from './create.ts';
import { keyFromRow } from './sql.ts';
import type { PrimaryKey, WriteContext } from './types.ts';
import { updateMany } from './update.ts';

export async function upsertSingletonRow(w: WriteContext, collection: CollectionOverview, payload: unknown): Promise<PrimaryKey> {
  // Two first writes racing must not both create the row.
  await run(w.trx, 'select pg_advisory_xact_lock(hashtext($1))', [`singleton:${collection.collection}`]);
  const pk = ident(collection.primary!);
  const [row] = await run<{ pk: unknown }>(w.trx, `select ${pk} as pk from ${ident(collection.collection)} order by ${pk} limit 1`);
  if (!row) return createOne(w, collection, payload, 0);
  const key = keyFromRow(row.pk);
  await updateMany(w, collection, [key], payload, 0);
  return key;
}
