/** Folder trees: a write may not make a folder its own ancestor. The parents after the write are simulated
 * over the current tree (every change of the request at once, so a batch can't close a loop between its own
 * items) and each changed folder's ancestry walked. */
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { InvalidPayloadError } from '../errors.ts';
import { isPlainObject } from '../items/write/payload.ts';

/** A folder's new parent, as a write asks for it. */
export interface ParentChange {
  id: string;
  parent: string | null;
}

/** The parent changes a folders payload carries: `{parent}` applied to `keys`, or items with `id` and `parent`. */
export function parentChanges(keys: readonly unknown[], data: unknown): ParentChange[] {
  if (!isPlainObject(data) || !Object.hasOwn(data, 'parent')) return [];
  const parent = data.parent;
  const value = typeof parent === 'string' ? parent : isPlainObject(parent) && typeof parent.id === 'string' ? parent.id : null;
  return keys.filter((k): k is string => typeof k === 'string').map((id) => ({ id, parent: value }));
}

export async function assertNoFolderCycle(ctx: ServiceContext, changes: readonly ParentChange[]): Promise<void> {
  if (changes.length === 0) return;
  const rows = await run<{ id: string; parent: string | null }>(ctx.db, 'select id::text as id, parent::text as parent from svc_folders');
  const parents = new Map<string, string | null>(rows.map((r) => [r.id.toLowerCase(), r.parent?.toLowerCase() ?? null]));
  for (const c of changes) parents.set(c.id.toLowerCase(), c.parent?.toLowerCase() ?? null);
  for (const c of changes) {
    const start = c.id.toLowerCase();
    const seen = new Set<string>([start]);
    let at = parents.get(start) ?? null;
    while (at !== null) {
      if (seen.has(at)) {
        throw new InvalidPayloadError('Invalid payload. A folder can\'t be placed inside itself or one of its subfolders.', { collection: 'svc_folders', field: 'parent' });
      }
      seen.add(at);
      at = parents.get(at) ?? null;
    }
  }
}
