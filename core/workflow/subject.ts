/** What a workflow's filters and dynamic assignees look at: the item merged with the version delta (SPEC.md >
 * Workflow rules), read in the caller's transaction. Every field of the collection is present (null when
 * neither the row nor the delta sets it), so a filter on a field a new item lacks does not pass by absence. */
import { systemAccountability } from '../access/accountability.ts';
import { validatePayload } from '../access/validation.ts';
import { ident, run, type Executor } from '../db/database.ts';
import { ErrorList, InvalidPayloadError } from '../errors.ts';
import type { Filter } from '../query/types.ts';
import type { SchemaOverview } from '../schema/types.ts';
import { isObject } from './input.ts';

export type Subject = Record<string, unknown>;

export async function readSubject(db: Executor, schema: SchemaOverview, collection: string, item: string | null, delta: unknown): Promise<Subject> {
  const c = schema.collections[collection];
  const out: Subject = {};
  if (!c?.primary) return isObject(delta) ? { ...delta } : out;
  for (const f of Object.values(c.fields)) if (!f.alias) out[f.field] = null;
  if (item !== null) {
    // The key is compared as text: version.item is a string whatever the primary key's type.
    const [row] = await run<{ data: Subject }>(db, `select row_to_json(t) as data from ${ident(collection)} t where t.${ident(c.primary)}::text = $1`, [item]);
    if (row) Object.assign(out, row.data);
  }
  // The primary key always keeps its real value: a key in the delta is ignored, as on preview and promote.
  if (isObject(delta)) for (const [k, v] of Object.entries(delta)) if (k !== c.primary) out[k] = v;
  return out;
}

/** Whether the subject satisfies `filter` (the query language's operators, evaluated in memory as permission
 * validation does). An empty or missing filter matches. */
export function matchesFilter(filter: unknown, subject: Subject): boolean {
  if (!isObject(filter) || Object.keys(filter).length === 0) return true;
  try {
    validatePayload(filter as Filter, subject, systemAccountability());
    return true;
  } catch (err) {
    if (err instanceof InvalidPayloadError || err instanceof ErrorList) return false;
    throw err;
  }
}
