/** Collection groups: `meta.group` nests a collection under another user collection (usually a folder, a
 * collection without a table). A group must exist, can't be a system collection, and can't end up inside
 * itself; a collection that still holds others can't be deleted. */
import { run, type Executor } from '../../db/database.ts';
import { InvalidPayloadError } from '../../errors.ts';
import { isSystemCollection } from './names.ts';

type GroupRow = { collection: string; group: string | null };

/** Checks the `meta.group` a payload wants to give `collection`, before it is written. */
export async function requireGroup(ex: Executor, collection: string, group: unknown): Promise<void> {
  if (group === undefined || group === null) return;
  if (typeof group !== 'string') throw new InvalidPayloadError('"meta.group" must be a string.');
  if (group === collection) throw new InvalidPayloadError(`Collection "${collection}" can't be its own group.`);
  if (isSystemCollection(group)) throw new InvalidPayloadError(`"meta.group" can't be a system collection ("${group}").`);
  const rows = await run(ex, 'select 1 from svc_collections where collection = $1', [group]);
  if (rows.length === 0) throw new InvalidPayloadError(`"meta.group" must name an existing collection; "${group}" doesn't exist.`);
}

/** After the writes of one schema change: none of `collections` may be nested inside itself. */
export async function requireNoGroupCycle(ex: Executor, collections: Iterable<string>): Promise<void> {
  const rows = await run<GroupRow>(ex, 'select collection, "group" from svc_collections where "group" is not null');
  const parent = new Map(rows.map((r) => [r.collection, r.group]));
  for (const collection of collections) {
    const seen = new Set([collection]);
    for (let g = parent.get(collection); g; g = parent.get(g)) {
      if (seen.has(g)) throw new InvalidPayloadError(`"meta.group" would nest collection "${collection}" inside itself.`);
      seen.add(g);
    }
  }
}

/** Deleting a group that still holds collections is refused, so nothing is orphaned silently. */
export async function requireNoChildren(ex: Executor, collection: string): Promise<void> {
  const rows = await run<{ collection: string }>(ex, 'select collection from svc_collections where "group" = $1 order by collection', [collection]);
  if (rows.length === 0) return;
  const names = rows.map((r) => `"${r.collection}"`).join(', ');
  throw new InvalidPayloadError(`Collection "${collection}" still contains ${names}; move or delete ${rows.length === 1 ? 'it' : 'them'} first.`);
}
