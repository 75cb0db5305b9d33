/** SQL text shared by the row writers. Identifiers come from the schema overview only. */
import { ident } from '../../db/database.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import type { PrimaryKey } from './types.ts';

export interface WrittenRow {
  pk: unknown;
  snap?: string | null;
}

/** `returning` the key, plus the row as JSON text when the collection keeps revisions. */
export function returning(collection: CollectionOverview): string {
  const pk = `_row.${ident(collection.primary!)} as pk`;
  return collection.accountability === 'all' ? `returning ${pk}, row_to_json(_row.*)::text as snap` : `returning ${pk}`;
}

/** Keys as the API returns them: int8 may arrive as a JS bigint from PGlite. */
export function keyFromRow(value: unknown): PrimaryKey {
  if (typeof value === 'bigint') return value.toString();
  return value as PrimaryKey;
}
