/** Preview read (SPEC.md > Versions, preview table): GET /items/{c}/{pk}?version=<uuid> answers the item as
 * the caller reads it with the version's delta overlaid (shallow merge), in the unchanged response shape.
 *
 * - Only fields the item read returned are overlaid, so the delta never adds a field the caller may not
 *   read or did not ask for; the primary key keeps its real value.
 * - An item with no row yet (new content, rule 6) answers the delta plus the key, cut to the fields the
 *   caller may read (and asked for).
 * - A version of another item or collection, or none, is FORBIDDEN alike (existence is not leaked); a
 *   non-uuid is INVALID_QUERY. The caller needs versioning:view.
 * - The version row is read by the item's own statement (one more column), so a preview costs one round trip
 *   like a plain read. */
import { hasAppPermission } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidQueryError } from '../errors.ts';
import { itemsCollection } from '../items/collection.ts';
import { readItemDataWith, type QueryInput } from '../items/read.ts';
import { keyOf, primaryField } from '../items/write/keys.ts';
import { isUuid } from '../uuid.ts';
import { loadPermissions } from '../access/permissions.ts';
import { readableFields } from './access.ts';
import { readableDelta } from './readable-delta.ts';
import { itemExists } from './target.ts';
import type { Delta } from './types.ts';

/** The delta of the version when it is a version of this item (text; '{}' for none), else null: the match is
 * part of the item's statement, so a foreign and a missing version look alike. */
const VERSION_COLUMN = (id: string, collection: string, item: string) => ({
  sql: "(select coalesce(delta::text, '{}') from svc_versions where id = $1::uuid and collection = $2 and item = $3)",
  params: [id, collection, item],
});

function hasObjectValue(delta: Delta): boolean {
  for (const k in delta) if (delta[k] !== null && typeof delta[k] === 'object') return true;
  return false;
}

function requestedFields(input: QueryInput): Set<string> | null {
  const query = typeof input.query === 'function' ? input.query() : input.query;
  if (!query.fields || query.fields.length === 0 || query.fields.includes('*')) return null;
  return new Set(query.fields.map((f) => f.split('.')[0]));
}

function overlay(itemText: string, delta: Delta, pk: string): string {
  const item = JSON.parse(itemText) as Record<string, unknown>;
  for (const [k, v] of Object.entries(delta)) {
    if (k !== pk && Object.hasOwn(item, k)) item[k] = v;
  }
  return JSON.stringify({ data: item });
}

/** `{"data":{...}}` JSON text. */
export async function previewItem(ctx: ServiceContext, collectionName: string, rawKey: string, versionId: string, input: QueryInput): Promise<string> {
  if (!isUuid(versionId)) throw new InvalidQueryError('"version" must be a uuid.');
  const collection = itemsCollection(ctx, collectionName);
  const key = keyOf(primaryField(collection), rawKey);
  if (key === null) throw new ForbiddenError();
  const { data: itemText, extra } = await readItemDataWith(ctx, collectionName, key, input, VERSION_COLUMN(versionId, collectionName, String(key)));
  if (extra === null || !(await hasAppPermission(ctx, 'versioning:view'))) throw new ForbiddenError();
  const parsed = JSON.parse(extra) as unknown;
  const raw: Delta = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as Delta : {};
  // Top-level fields are cut by the overlay itself (only fields the read returned); nested values need the cut.
  const delta = ctx.accountability.admin || (itemText !== null && !hasObjectValue(raw)) ? raw : readableDelta(ctx.schema, await loadPermissions(ctx), collectionName, raw);
  const pk = collection.primary!;
  if (itemText !== null) return overlay(itemText, delta, pk);

  // No row visible: either it exists and the caller may not read it, or it is new content.
  if (await itemExists(ctx, { collection, key })) throw new ForbiddenError();
  await readableFields(ctx, collectionName);
  const asked = requestedFields(input);
  const data: Record<string, unknown> = {};
  if (!asked || asked.has(pk)) data[pk] = key;
  for (const [k, v] of Object.entries(delta)) {
    if (k !== pk && (!asked || asked.has(k)) && Object.hasOwn(collection.fields, k)) data[k] = v;
  }
  return JSON.stringify({ data });
}
