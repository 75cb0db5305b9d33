/** The collections as the data model shows them: every user collection (hidden ones too) under its group, in
 * meta.sort order. */
import { bySort, isSystem, type FullCollection } from '../model.ts';

export interface TreeNode {
  collection: FullCollection;
  name: string;
  children: TreeNode[];
}

export function buildTree(collections: FullCollection[]): TreeNode[] {
  const user = collections.filter((c) => !isSystem(c.collection));
  const names = new Set(user.map((c) => c.collection));
  const byParent = new Map<string | null, FullCollection[]>();
  for (const c of user) {
    const g = c.meta?.group && names.has(c.meta.group) && c.meta.group !== c.collection ? c.meta.group : null;
    byParent.set(g, [...(byParent.get(g) ?? []), c]);
  }
  const build = (parent: string | null, seen: Set<string>): TreeNode[] => (byParent.get(parent) ?? [])
    .sort(bySort((c) => c.collection))
    .filter((c) => !seen.has(c.collection))
    .map((c) => ({ collection: c, name: c.collection, children: build(c.collection, new Set([...seen, c.collection])) }));
  return build(null, new Set());
}

export function flatten(nodes: TreeNode[], depth = 0): { node: TreeNode; depth: number }[] {
  return nodes.flatMap((n) => [{ node: n, depth }, ...flatten(n.children, depth + 1)]);
}

export function findNode(nodes: TreeNode[], name: string): { node: TreeNode; parent: TreeNode | null; siblings: TreeNode[] } | null {
  const walk = (list: TreeNode[], parent: TreeNode | null): ReturnType<typeof findNode> => {
    for (const n of list) {
      if (n.name === name) return { node: n, parent, siblings: list };
      const inner = walk(n.children, n);
      if (inner) return inner;
    }
    return null;
  };
  return walk(nodes, null);
}

/** Whether `name` is `ancestor` or inside it (a collection can't be moved into itself). */
export function isWithin(nodes: TreeNode[], name: string, ancestor: string): boolean {
  const top = findNode(nodes, ancestor);
  if (!top) return false;
  return flatten([top.node]).some((x) => x.node.name === name);
}
