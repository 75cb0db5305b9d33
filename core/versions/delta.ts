/** A delta is checked when it is saved, as the write it will become at promote would be: against the schema
 * (unknown fields, wrong types, nulls in required fields: 400) and the caller's permissions (the action,
 * fields not permitted, validation rules: 403/400), without writing anything. The primary key is the
 * version's item: a key in the delta is kept as sent but never used (SPEC.md > Versions: the primary key
 * always keeps its real value), so it is not checked, previews show the real key and promote ignores it. */
import type { ServiceContext } from '../context.ts';
import { InvalidPayloadError } from '../errors.ts';
import { validation } from '../items/write/context.ts';
import { validateCreate } from '../items/write/create.ts';
import { isPlainObject } from '../items/write/payload.ts';
import { validateUpdate } from '../items/write/update.ts';
import type { CollectionOverview } from '../schema/types.ts';
import type { VersionTarget } from './target.ts';
import type { Delta } from './types.ts';

/** A delta from a request body: an object (null and absent mean none). */
export function parseDelta(raw: unknown): Delta | null {
  if (raw === undefined || raw === null) return null;
  if (!isPlainObject(raw)) throw new InvalidPayloadError('Invalid payload. "delta" must be an object.', { field: 'delta' });
  return raw;
}

/** The delta without the collection's primary key (the version's item is the key). */
export function withoutKey(collection: CollectionOverview, delta: Delta): Delta {
  const pk = collection.primary!;
  if (!Object.hasOwn(delta, pk)) return delta;
  const { [pk]: _ignored, ...rest } = delta;
  return rest;
}

/** Checks `delta` as an update of the item (when its row exists) or as its create (when not). */
export async function checkDelta(ctx: ServiceContext, target: VersionTarget, delta: Delta | null, exists: boolean): Promise<void> {
  const c = target.collection;
  const v = await validation(ctx, c.collection, exists ? 'update' : 'create');
  if (!delta) return;
  const changes = withoutKey(c, delta);
  if (exists) await validateUpdate(v, c, [target.key], changes);
  else await validateCreate(v, c, { ...changes, [c.primary!]: target.key });
}
