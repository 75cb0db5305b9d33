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
import { readableFields, visibleDelta } from './access.ts';
import { itemExists } from './target.ts';
import type { Delta } from './types.ts';

interface PreviewVersion { collection: string; item: string; delta: Delta | null }

const VERSION_COLUMN = (id: string) => ({
  sql: '(select row_to_json(_v)::text from (select collection, item, delta from svc_versions where id = $1::uuid) as _v)',
  params: [id],
});

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
  const [allowed, { data: itemText, extra }] = await Promise.all([
    hasAppPermission(ctx, 'versioning:view'),
    readItemDataWith(ctx, collectionName, rawKey, input, VERSION_COLUMN(versionId)),
  ]);
  const version = extra === null ? null : JSON.parse(extra) as PreviewVersion;
  const key = keyOf(primaryField(collection), rawKey);
  if (!allowed || !version || key === null || version.collection !== collectionName || version.item !== String(key)) throw new ForbiddenError();
  const pk = collection.primary!;
  const delta = version.delta && typeof version.delta === 'object' ? version.delta : {};
  if (itemText !== null) return overlay(itemText, delta, pk);

  // No row visible: either it exists and the caller may not read it, or it is new content.
  if (await itemExists(ctx, { collection, key })) throw new ForbiddenError();
  const readable = await readableFields(ctx, collectionName);
  const asked = requestedFields(input);
  const data: Record<string, unknown> = {};
  if (!asked || asked.has(pk)) data[pk] = key;
  for (const [k, v] of Object.entries(visibleDelta(delta, readable) ?? {})) {
    if (k !== pk && (!asked || asked.has(k)) && Object.hasOwn(collection.fields, k)) data[k] = v;
  }
  return JSON.stringify({ data });
}
