/** SQL text shared by the row writers. Identifiers come from the schema overview only. */
import { ident } from '../../db/database.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import type { PrimaryKey } from './types.ts';

export interface WrittenRow {
  pk: unknown;
  snap?: string | null;
}

const secretsOf = new WeakMap<CollectionOverview, string[]>();

/** Fields whose values never go into revisions: hashes (passwords) and concealed secrets (tokens). Computed
 * once per collection overview (a schema reload builds new ones). */
export function secretFields(collection: CollectionOverview): string[] {
  let secrets = secretsOf.get(collection);
  if (!secrets) {
    secrets = Object.values(collection.fields)
      .filter((f) => f.special.includes('hash') || f.special.includes('conceal'))
      .map((f) => f.field);
    secretsOf.set(collection, secrets);
  }
  return secrets;
}

/** The row `ref` (a table alias) as JSON for a revision snapshot, secrets left out. */
export function snapshotSql(collection: CollectionOverview, ref: string): string {
  const secrets = secretFields(collection);
  if (secrets.length === 0) return `row_to_json(${ref}.*)`;
  return `(to_jsonb(${ref}.*)${secrets.map((f) => ` - '${f.replace(/'/g, "''")}'`).join('')})::json`;
}

const jsonOf = new WeakMap<CollectionOverview, string[]>();

/** json fields, whose values are bound as JSON text. */
function jsonFields(collection: CollectionOverview): string[] {
  let json = jsonOf.get(collection);
  if (!json) {
    json = Object.values(collection.fields).filter((f) => f.type === 'json').map((f) => f.field);
    jsonOf.set(collection, json);
  }
  return json;
}

/** A revision delta from the bound values: json values as the JSON they hold (not its text), secret values
 * replaced by the concealed marker (the change itself is kept). */
export function redactDelta<T extends Record<string, unknown> | null>(collection: CollectionOverview, delta: T): T {
  if (!delta) return delta;
  const secrets = secretFields(collection).filter((f) => f in delta);
  const json = jsonFields(collection).filter((f) => typeof delta[f] === 'string');
  if (secrets.length === 0 && json.length === 0) return delta;
  const out: Record<string, unknown> = { ...delta };
  for (const f of json) out[f] = JSON.parse(out[f] as string);
  for (const f of secrets) if (out[f] !== null) out[f] = '**********';
  return out as T;
}

/** Whether redactDelta leaves these values as they are, json text aside (it parses that into the JSON it holds):
 * no secret to mask, no undefined value to drop. A batch create then reads each revision's delta from the
 * item's own JSON rather than sending a second copy. Follows redactDelta's rules. */
export function deltaIsColumns(collection: CollectionOverview, columns: Record<string, unknown>): boolean {
  for (const f of secretFields(collection)) if (f in columns) return false;
  for (const k in columns) if (columns[k] === undefined) return false;
  return true;
}

/** `returning` the key, plus the row as JSON text when the collection keeps revisions. */
export function returning(collection: CollectionOverview): string {
  const pk = `_row.${ident(collection.primary!)} as pk`;
  return collection.accountability === 'all' ? `returning ${pk}, ${snapshotSql(collection, '_row')}::text as snap` : `returning ${pk}`;
}

/** Keys as the API returns them: int8 may arrive as a JS bigint from PGlite. */
export function keyFromRow(value: unknown): PrimaryKey {
  if (typeof value === 'bigint') return value.toString();
  return value as PrimaryKey;
}
