/** The content navigation's tree: user collections the caller may read, under their folder (meta.group), ordered by
 * meta.sort then name. System collections (svc_*) and hidden ones are left out; a folder shows only when something
 * in it does. A collection can hold others too (Directus allows a table as a group). */
import type { Collection } from '../schema.ts';

export interface NavNode {
  collection: Collection;
  name: string;
  folder: boolean;
  children: NavNode[];
}

function order(a: Collection, b: Collection): number {
  const sa = a.meta?.sort ?? Number.MAX_SAFE_INTEGER;
  const sb = b.meta?.sort ?? Number.MAX_SAFE_INTEGER;
  return sa - sb || a.collection.localeCompare(b.collection);
}

export function buildTree(collections: Collection[], readable: (name: string) => boolean): NavNode[] {
  const shown = collections.filter((c) => !c.collection.startsWith('svc_') && !c.meta?.hidden);
  const names = new Set(shown.map((c) => c.collection));
  const byParent = new Map<string | null, Collection[]>();
  for (const c of shown) {
    const group = c.meta?.group && names.has(c.meta.group) && c.meta.group !== c.collection ? c.meta.group : null;
    const list = byParent.get(group) ?? [];
    list.push(c);
    byParent.set(group, list);
  }
  // Children of a hidden collection go with it: their group is missing from `names`, so they would surface at the
  // top; leave out those whose group exists but is hidden.
  const hiddenGroups = new Set(collections.filter((c) => c.meta?.hidden).map((c) => c.collection));
  const build = (parent: string | null, seen: Set<string>): NavNode[] => (byParent.get(parent) ?? [])
    .filter((c) => !(parent === null && c.meta?.group && hiddenGroups.has(c.meta.group)))
    .sort(order)
    .flatMap((c): NavNode[] => {
      if (seen.has(c.collection)) return [];
      const children = build(c.collection, new Set([...seen, c.collection]));
      // A collection the caller may not read but which holds readable ones shows as a folder.
      const folder = c.schema === null || !readable(c.collection);
      if (folder && children.length === 0) return [];
      return [{ collection: c, name: c.collection, folder, children }];
    });
  return build(null, new Set());
}

/** The collections of the tree, depth first (the overview lists them in nav order). */
export function flatten(nodes: NavNode[], depth = 0): { node: NavNode; depth: number }[] {
  return nodes.flatMap((n) => [{ node: n, depth }, ...flatten(n.children, depth + 1)]);
}

/** The collections on the way to `name` (opened so the current collection is in view). */
export function ancestorsOf(nodes: NavNode[], name: string): string[] {
  const find = (list: NavNode[]): string[] | null => {
    for (const n of list) {
      if (n.name === name) return [];
      const inner = find(n.children);
      if (inner) return [n.name, ...inner];
    }
    return null;
  };
  return find(nodes) ?? [];
}
