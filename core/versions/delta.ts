/** A delta is checked when it is saved, as the write it will become at promote would be: against the schema
 * (unknown fields, wrong types, nulls in required fields: 400) and the caller's permissions (the action,
 * fields not permitted, validation rules: 403/400), without writing anything. The primary key is the
 * version's item and may not be in the delta. */
import type { ServiceContext } from '../context.ts';
import { InvalidPayloadError } from '../errors.ts';
import { validation } from '../items/write/context.ts';
import { validateCreate } from '../items/write/create.ts';
import { isPlainObject } from '../items/write/payload.ts';
import { validateUpdate } from '../items/write/update.ts';
import type { VersionTarget } from './target.ts';
import type { Delta } from './types.ts';

/** A delta from a request body: an object (null and absent mean none). */
export function parseDelta(raw: unknown): Delta | null {
  if (raw === undefined || raw === null) return null;
  if (!isPlainObject(raw)) throw new InvalidPayloadError('Invalid payload. "delta" must be an object.', { field: 'delta' });
  return raw;
}

/** Checks `delta` as an update of the item (when its row exists) or as its create (when not). */
export async function checkDelta(ctx: ServiceContext, target: VersionTarget, delta: Delta | null, exists: boolean): Promise<void> {
  const c = target.collection;
  const pk = c.primary!;
  if (delta && Object.hasOwn(delta, pk)) {
    throw new InvalidPayloadError(`Invalid payload. The primary key "${pk}" is the version's item and can't be in the delta.`, { collection: c.collection, field: pk });
  }
  const v = await validation(ctx, c.collection, exists ? 'update' : 'create');
  if (!delta) return;
  if (exists) await validateUpdate(v, c, [target.key], delta);
  else await validateCreate(v, c, { ...delta, [pk]: target.key });
}
