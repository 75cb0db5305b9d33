/** The data model's tree: every user collection and folder (hidden ones and empty folders too: they are part of the
 * model) under its group, in meta.sort then name order, as the content module orders them. */
import type { Collection } from '../content/schema.ts';

export interface ModelNode { collection: Collection; depth: number; children: number }

export function modelTree(collections: Collection[]): ModelNode[] {
  const own = collections.filter((c) => !c.collection.startsWith('svc_'));
  const names = new Set(own.map((c) => c.collection));
  const byParent = new Map<string | null, Collection[]>();
  for (const c of own) {
    const group = c.meta?.group && names.has(c.meta.group) && c.meta.group !== c.collection ? c.meta.group : null;
    byParent.set(group, [...(byParent.get(group) ?? []), c]);
  }
  const order = (a: Collection, b: Collection): number =>
    (a.meta?.sort ?? Number.MAX_SAFE_INTEGER) - (b.meta?.sort ?? Number.MAX_SAFE_INTEGER) || a.collection.localeCompare(b.collection);
  const out: ModelNode[] = [];
  const walk = (parent: string | null, depth: number, seen: Set<string>): void => {
    for (const c of [...(byParent.get(parent) ?? [])].sort(order)) {
      if (seen.has(c.collection)) continue;
      out.push({ collection: c, depth, children: (byParent.get(c.collection) ?? []).length });
      walk(c.collection, depth + 1, new Set([...seen, c.collection]));
    }
  };
  walk(null, 0, new Set());
  return out;
}

/** Siblings of a collection (same group), in order: the ones "move up/down" swaps with. */
export function siblingsOf(collections: Collection[], name: string): Collection[] {
  const me = collections.find((c) => c.collection === name);
  const group = me?.meta?.group ?? null;
  return modelTree(collections).map((n) => n.collection).filter((c) => (c.meta?.group ?? null) === group);
}
