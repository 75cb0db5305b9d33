/** The item a version points at: its collection (a user collection), its key as bound in SQL, whether its row
 * exists, and the hash of the main item (Directus' mainHash: compare answers `outdated` when it moved on). */
import { createHash } from 'node:crypto';
import { systemAccountability } from '../access/accountability.ts';
import type { ServiceContext } from '../context.ts';
import { ident, run } from '../db/database.ts';
import { CollectionNotFoundError, ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { itemsCollection } from '../items/collection.ts';
import { readItemData } from '../items/read.ts';
import { keyOf, primaryField } from '../items/write/keys.ts';
import type { PrimaryKey } from '../items/write/types.ts';
import type { CollectionOverview } from '../schema/types.ts';

export interface VersionTarget {
  collection: CollectionOverview;
  key: PrimaryKey;
}

/** A versionable collection: a user collection with a primary key (svc_* and folders are not versioned). */
export function versionableCollection(ctx: ServiceContext, name: unknown): CollectionOverview {
  if (typeof name !== 'string' || name === '') throw new InvalidPayloadError('Invalid payload. "collection" is required.', { field: 'collection' });
  const collection = itemsCollection(ctx, name);
  if (collection.system) throw new CollectionNotFoundError(name);
  return collection;
}

/** The key of `item` in the collection; 400 when it cannot be a key of that collection. */
export function targetKey(collection: CollectionOverview, item: unknown): PrimaryKey {
  if (typeof item !== 'string' || item === '' || item.length > 255) {
    throw new InvalidPayloadError('Invalid payload. "item" must be the primary key of the item, as a string.', { field: 'item' });
  }
  const key = keyOf(primaryField(collection), item);
  if (key === null) throw new InvalidPayloadError(`Invalid payload. "${item}" is not a valid primary key of "${collection.collection}".`, { field: 'item' });
  return key;
}

/** The key of an existing version's item (it was checked at creation; a changed key type answers FORBIDDEN). */
export function storedTarget(ctx: ServiceContext, collectionName: string, item: string): VersionTarget {
  const collection = itemsCollection(ctx, collectionName);
  const key = keyOf(primaryField(collection), item);
  if (key === null) throw new ForbiddenError();
  return { collection, key };
}

export async function itemExists(ctx: ServiceContext, target: VersionTarget): Promise<boolean> {
  const c = target.collection;
  const rows = await run(ctx.db, `select 1 from ${ident(c.collection)} where ${ident(c.primary!)} = $1 limit 1`, [target.key]);
  return rows.length > 0;
}

function systemRead(ctx: ServiceContext): ServiceContext {
  return { ...ctx, accountability: systemAccountability(), system: true, events: undefined };
}

/** The main item's direct fields as the database renders them (every field, whoever asks), or null. */
export async function mainItemText(ctx: ServiceContext, target: VersionTarget): Promise<string | null> {
  return readItemData(systemRead(ctx), target.collection.collection, target.key, { fields: ['*'] });
}

export function hashText(text: string | null): string | null {
  return text === null ? null : createHash('sha256').update(text).digest('hex');
}

/** sha256 of the main item (null when it has no row yet). */
export async function mainHash(ctx: ServiceContext, target: VersionTarget): Promise<string | null> {
  return hashText(await mainItemText(ctx, target));
}
