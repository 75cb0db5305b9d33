/** POST /versions: a draft version of one item (SPEC.md > Versions; Promote rule 6).
 *
 * - The item may have no row yet when the collection's key is chosen by the client (uuid or string keys):
 *   new content gets no placeholder row, promote creates it. Auto-increment keys cannot be chosen by the
 *   client, so their row (the placeholder) must exist; a missing one is FORBIDDEN, as a write to a missing
 *   item is, without telling whether it exists.
 * - An existing item must be readable by the caller (Directus checks read access on it) and the caller needs
 *   update permission on the collection; for new content, create permission.
 * - The delta is checked now, as that write would check it. A duplicate key for (collection, item) is 409. */
import { requireAppPermission } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError } from '../errors.ts';
import { readItemData } from '../items/read.ts';
import { primaryField } from '../items/write/keys.ts';
import { checkDelta, parseDelta } from './delta.ts';
import { parseCreate } from './input.ts';
import { insertVersion } from './store.ts';
import { itemExists, mainHash, targetKey, versionableCollection, type VersionTarget } from './target.ts';

export async function createVersion(ctx: ServiceContext, raw: unknown): Promise<string> {
  await requireAppPermission(ctx, 'versioning:create');
  const input = parseCreate(raw);
  const collection = versionableCollection(ctx, input.collection);
  const target: VersionTarget = { collection, key: targetKey(collection, input.item) };
  const delta = parseDelta(input.delta);
  return inTransaction(ctx.db, async (trx) => {
    const t: ServiceContext = { ...ctx, db: trx };
    const exists = await itemExists(t, target);
    if (!exists && primaryField(collection).autoIncrement) throw new ForbiddenError();
    if (exists && await readItemData(t, collection.collection, target.key, { fields: [collection.primary!] }) === null) throw new ForbiddenError();
    await checkDelta(t, target, delta, exists);
    return insertVersion(t, {
      key: input.key, name: input.name, collection: collection.collection, item: String(target.key),
      hash: exists ? await mainHash(t, target) : null, delta,
    });
  });
}
